//! An in-memory [`Store`].

use std::cell::RefCell;
use std::collections::HashSet;

use futures::future::LocalBoxFuture;

use super::{check_revision, ConversationImport, Store, StoreArchive, SyncedMessages, TurnWrite};
use crate::domain::SortedMap;
use crate::domain::{Book, Chunk, Page, StoredVectors};
use crate::domain::{
    CallUsage, ContextSummary, OpenTurn, OpenTurnChange, RunRecord, ToolCallRecord, UsageTotals,
};
use crate::domain::{Conversation, Message};
use crate::domain::{Grant, PendingRevision, PendingTurn};
use crate::error::{Error, Result, StorageReason};

/// Conversations and messages held in memory; gone when dropped.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: RefCell<Inner>,
    pub(super) books: RefCell<SortedMap<String, StoredBook>>,
}

/// A book and everything of it, as the memory store keeps it.
#[derive(Debug, Clone)]
pub(super) struct StoredBook {
    pub book: Book,
    pub chunks: Vec<Chunk>,
    pub vectors: StoredVectors,
    pub snapshot: Option<Vec<u8>>,
    pub lexical: Option<Vec<u8>>,
    pub pages: Vec<Page>,
}

#[derive(Debug, Default)]
struct Inner {
    conversations: SortedMap<String, Conversation>,
    messages: SortedMap<String, Vec<Message>>,
    /// Tool-call records by conversation, keyed by turn and position.
    tool_calls: SortedMap<String, SortedMap<(String, u32), ToolCallRecord>>,
    pending: SortedMap<String, PendingTurn>,
    runs: SortedMap<String, RunRecord>,
    usage: SortedMap<String, UsageTotals>,
    /// "Always allow" grants by conversation, keyed by tool name.
    grants: SortedMap<String, SortedMap<String, Grant>>,
    /// Context summaries by conversation.
    summaries: SortedMap<String, ContextSummary>,
    /// Recorded events by turn, with the turn's conversation.
    events: SortedMap<String, (String, Vec<serde_json::Value>)>,
    /// Open-turn records (a handful: one per conversation with a turn running or cut off).
    open_turns: Vec<OpenTurn>,
}

impl Inner {
    fn require(&self, conversation_id: &str) -> Result<()> {
        if self.conversations.contains_key(conversation_id) {
            Ok(())
        } else {
            Err(Error::not_found("conversation", conversation_id))
        }
    }

    fn append(&mut self, messages: Vec<Message>) -> Result<Vec<Message>> {
        for message in &messages {
            self.require(&message.conversation_id)?;
        }
        let mut stored = Vec::with_capacity(messages.len());
        for mut message in messages {
            let list = self.messages.get_or_default(message.conversation_id.clone());
            message.seq = list.last().map_or(0, |m| m.seq + 1);
            list.push(message.clone());
            stored.push(message);
        }
        Ok(stored)
    }

    /// Checks everything first, so a refused write changes nothing.
    fn commit(&mut self, write: TurnWrite) -> Result<Vec<Message>> {
        for record in &write.tool_calls {
            self.require(&record.conversation_id)?;
        }
        for grant in &write.grants {
            self.require(&grant.conversation_id)?;
        }
        if let Some(pending) = &write.pending {
            self.require(&pending.conversation_id)?;
            check_revision(
                self.pending.get(&pending.turn_id).map(PendingRevision::from),
                pending,
            )?;
        }
        if let Some(change) = &write.open_turn {
            self.require(change.conversation_id())?;
        }
        let stored = self.append(write.messages)?;
        for record in write.tool_calls {
            self.tool_calls
                .get_or_default(record.conversation_id.clone())
                .insert((record.turn_id.clone(), record.position), record);
        }
        if let Some(pending) = write.pending {
            self.pending.insert(pending.turn_id.clone(), pending.pruned());
        }
        for grant in write.grants {
            self.grants
                .get_or_default(grant.conversation_id.clone())
                .insert(grant.tool_name.clone(), grant);
        }
        match write.open_turn {
            Some(OpenTurnChange::Put(turn)) => {
                self.open_turns.retain(|t| t.turn_id != turn.turn_id);
                self.open_turns.push(*turn);
            }
            Some(OpenTurnChange::Delete {
                conversation_id,
                turn_id,
            }) => {
                let same = |t: &OpenTurn| t.conversation_id == conversation_id && t.turn_id == turn_id;
                self.open_turns.retain(|t| !same(t));
            }
            None => {}
        }
        Ok(stored)
    }

    /// `put_synced_messages`: checked whole, then written.
    fn put_synced(&mut self, mut synced: SyncedMessages) -> Result<()> {
        synced.check()?;
        let id = synced.conversation.id.clone();
        let others: HashSet<&str> = self
            .messages
            .iter()
            .filter(|(owner, _)| **owner != id)
            .flat_map(|(_, list)| list.iter().map(|m| m.id.as_str()))
            .collect();
        let elsewhere = synced.messages.iter().find(|m| others.contains(m.id.as_str()));
        if let Some(message) = elsewhere {
            return Err(Error::storage_because(
                StorageReason::Constraint,
                format!("message {} belongs to another conversation", message.id),
            ));
        }
        synced.number_messages();
        self.messages.insert(id.clone(), synced.messages);
        self.conversations.insert(id, synced.conversation);
        Ok(())
    }

    /// Checks everything first, so a refused import changes nothing.
    fn import(&mut self, mut import: ConversationImport) -> Result<()> {
        import.check_owner()?;
        let taken = |what: &str, id: &str| {
            Error::storage_because(StorageReason::Constraint, format!("{what} {id} already exists"))
        };
        let id = import.conversation.id.clone();
        if self.conversations.contains_key(&id) {
            return Err(taken("conversation", &id));
        }
        if let Some(turn) = import
            .pending_turns
            .iter()
            .find(|t| self.pending.contains_key(&t.turn_id))
        {
            return Err(taken("paused turn", &turn.turn_id));
        }
        import.number_messages();
        self.messages.insert(id.clone(), import.messages);
        let records = self.tool_calls.get_or_default(id.clone());
        for record in import.tool_calls {
            records.insert((record.turn_id.clone(), record.position), record);
        }
        for turn in import.pending_turns {
            self.pending.insert(turn.turn_id.clone(), turn.pruned());
        }
        self.usage.insert(id.clone(), import.usage);
        let grants = self.grants.get_or_default(id.clone());
        for grant in import.grants {
            grants.insert(grant.tool_name.clone(), grant);
        }
        self.conversations.insert(id, import.conversation);
        Ok(())
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Store for MemoryStore {
    fn create_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        let result = (|| {
            let mut inner = self.inner.borrow_mut();
            if inner.conversations.contains_key(&conversation.id) {
                return Err(Error::storage_because(
                    StorageReason::Constraint,
                    format!("conversation {} already exists", conversation.id),
                ));
            }
            inner
                .conversations
                .insert(conversation.id.clone(), conversation.clone());
            inner.messages.insert(conversation.id.clone(), Vec::new());
            Ok(())
        })();
        Box::pin(async move { result })
    }

    fn update_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        let result = match inner.conversations.get_mut(&conversation.id) {
            Some(stored) => {
                *stored = conversation.clone();
                Ok(())
            }
            None => Err(Error::not_found("conversation", &conversation.id)),
        };
        Box::pin(async move { result })
    }

    fn conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Conversation>>> {
        let found = self.inner.borrow().conversations.get(id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn conversations(&self) -> LocalBoxFuture<'_, Result<Vec<Conversation>>> {
        let mut all: Vec<Conversation> = self.inner.borrow().conversations.values().cloned().collect();
        crate::domain::sort_by(&mut all, |a, b| {
            a.created_at
                .total_cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        Box::pin(async move { Ok(all) })
    }

    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        let result = self.inner.borrow_mut().append(messages);
        Box::pin(async move { result })
    }

    fn messages<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        let result = self
            .inner
            .borrow()
            .messages
            .get(conversation_id)
            .cloned()
            .ok_or_else(|| Error::not_found("conversation", conversation_id));
        Box::pin(async move { result })
    }

    fn recent_messages<'a>(
        &'a self,
        conversation_id: &'a str,
        before_seq: Option<u32>,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        let result = match self.inner.borrow().messages.get(conversation_id) {
            Some(list) => {
                let end = before_seq.map_or(list.len(), |seq| list.partition_point(|m| m.seq < seq));
                Ok(list[end.saturating_sub(limit)..end].to_vec())
            }
            None => Err(Error::not_found("conversation", conversation_id)),
        };
        Box::pin(async move { result })
    }

    fn commit(&self, write: TurnWrite) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        let result = self.inner.borrow_mut().commit(write);
        Box::pin(async move { result })
    }

    fn has_pending_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<bool>> {
        let inner = self.inner.borrow();
        let any = inner
            .pending
            .values()
            .any(|t| t.conversation_id == conversation_id);
        Box::pin(async move { Ok(any) })
    }

    fn tool_calls<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<ToolCallRecord>>> {
        let inner = self.inner.borrow();
        let result = inner.require(conversation_id).map(|()| {
            inner
                .tool_calls
                .get(conversation_id)
                .map(|records| records.values().cloned().collect())
                .unwrap_or_default()
        });
        Box::pin(async move { result })
    }

    fn has_open_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<bool>> {
        let inner = self.inner.borrow();
        let any = inner
            .open_turns
            .iter()
            .any(|t| t.conversation_id == conversation_id);
        Box::pin(async move { Ok(any) })
    }

    fn has_runs(&self) -> LocalBoxFuture<'_, Result<bool>> {
        let any = !self.inner.borrow().runs.is_empty();
        Box::pin(async move { Ok(any) })
    }

    fn add_usage<'a>(&'a self, conversation_id: &'a str, call: CallUsage) -> LocalBoxFuture<'a, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        if inner.conversations.contains_key(conversation_id) {
            inner
                .usage
                .get_or_insert_with(conversation_id.to_owned(), || UsageTotals::empty(conversation_id))
                .add(&call.usage, call.cost_usd, call.first_of_turn);
        }
        Box::pin(async move { Ok(()) })
    }

    fn usage_totals<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<UsageTotals>> {
        let inner = self.inner.borrow();
        let result = match inner.usage.get(conversation_id) {
            Some(totals) => Ok(totals.clone()),
            None => inner
                .require(conversation_id)
                .map(|_| UsageTotals::empty(conversation_id)),
        };
        Box::pin(async move { result })
    }

    fn grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Grant>>> {
        let inner = self.inner.borrow();
        let result = inner.require(conversation_id).map(|()| {
            inner
                .grants
                .get(conversation_id)
                .map(|grants| grants.values().cloned().collect())
                .unwrap_or_default()
        });
        Box::pin(async move { result })
    }

    fn context_summary<'a>(
        &'a self,
        conversation_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<ContextSummary>>> {
        let inner = self.inner.borrow();
        let result = inner
            .require(conversation_id)
            .map(|()| inner.summaries.get(conversation_id).cloned());
        Box::pin(async move { result })
    }

    fn put_context_summary<'a>(&'a self, summary: &'a ContextSummary) -> LocalBoxFuture<'a, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        let result = inner.require(&summary.conversation_id).map(|()| {
            inner
                .summaries
                .insert(summary.conversation_id.clone(), summary.clone());
        });
        Box::pin(async move { result })
    }

    fn append_turn_events<'a>(
        &'a self,
        conversation_id: &'a str,
        turn_id: &'a str,
        events: Vec<serde_json::Value>,
    ) -> LocalBoxFuture<'a, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        let result = inner.require(conversation_id).map(|()| {
            let kept = inner
                .events
                .get_or_insert_with(turn_id.to_owned(), || (conversation_id.to_owned(), Vec::new()));
            kept.1.extend(events);
        });
        Box::pin(async move { result })
    }
}

impl StoreArchive for MemoryStore {
    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        let result = match inner.conversations.remove(id) {
            Some(_) => {
                inner.messages.remove(id);
                inner.tool_calls.remove(id);
                inner.pending.retain(|_, turn| turn.conversation_id != id);
                inner.usage.remove(id);
                inner.grants.remove(id);
                inner.summaries.remove(id);
                inner.events.retain(|_, (conversation, _)| conversation != id);
                inner.open_turns.retain(|t| t.conversation_id != id);
                Ok(())
            }
            None => Err(Error::not_found("conversation", id)),
        };
        Box::pin(async move { result })
    }

    fn open_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<OpenTurn>>> {
        let mut turns: Vec<OpenTurn> = self
            .inner
            .borrow()
            .open_turns
            .iter()
            .filter(|t| conversation_id.is_none_or(|id| t.conversation_id == id))
            .cloned()
            .collect();
        crate::domain::sort_by(&mut turns, |a, b| {
            (&a.conversation_id, &a.turn_id).cmp(&(&b.conversation_id, &b.turn_id))
        });
        Box::pin(async move { Ok(turns) })
    }

    fn pending_turn<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Option<PendingTurn>>> {
        let found = self.inner.borrow().pending.get(turn_id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn pending_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<PendingTurn>>> {
        let turns: Vec<PendingTurn> = self
            .inner
            .borrow()
            .pending
            .values()
            .filter(|t| conversation_id.is_none_or(|id| t.conversation_id == id))
            .cloned()
            .collect();
        Box::pin(async move { Ok(turns) })
    }

    fn runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>>> {
        let all: Vec<RunRecord> = self.inner.borrow().runs.values().cloned().collect();
        Box::pin(async move { Ok(all) })
    }

    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<()>> {
        self.inner
            .borrow_mut()
            .runs
            .insert(run.run_id.clone(), run.clone());
        Box::pin(async move { Ok(()) })
    }

    fn run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<RunRecord>>> {
        let found = self.inner.borrow().runs.get(run_id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn delete_all_conversations(&self) -> LocalBoxFuture<'_, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        inner.conversations.clear();
        inner.messages.clear();
        inner.tool_calls.clear();
        inner.pending.clear();
        inner.usage.clear();
        inner.grants.clear();
        inner.summaries.clear();
        inner.events.clear();
        inner.open_turns.clear();
        inner.runs.clear();
        Box::pin(async move { Ok(()) })
    }

    fn clear_grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        let result = inner.require(conversation_id).map(|()| {
            inner.grants.remove(conversation_id);
        });
        Box::pin(async move { result })
    }

    fn turn_events<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<serde_json::Value>>> {
        let events = self
            .inner
            .borrow()
            .events
            .get(turn_id)
            .map(|(_, events)| events.clone())
            .unwrap_or_default();
        Box::pin(async move { Ok(events) })
    }

    fn recorded_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<String>>> {
        let inner = self.inner.borrow();
        let result = inner.require(conversation_id).map(|()| {
            inner
                .events
                .iter()
                .filter(|(_, (conversation, _))| conversation == conversation_id)
                .map(|(turn, _)| turn.clone())
                .collect()
        });
        Box::pin(async move { result })
    }

    fn import_conversation(&self, import: ConversationImport) -> LocalBoxFuture<'_, Result<()>> {
        let result = self.inner.borrow_mut().import(import);
        Box::pin(async move { result })
    }

    fn put_synced_messages(&self, synced: SyncedMessages) -> LocalBoxFuture<'_, Result<()>> {
        let result = self.inner.borrow_mut().put_synced(synced);
        Box::pin(async move { result })
    }
}
