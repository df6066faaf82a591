//! A [`MemoryStore`] with hooks, shared by the native tests that need a
//! store to fail a write (a full disk) or to count what it reads, as
//! `crate::support::hooked_store`.
#![allow(dead_code)]

use std::cell::RefCell;

use futures::future::LocalBoxFuture;
use lectern::agent::{RunRecord, ToolCallRecord};
use lectern::approval::PendingTurn;
use lectern::domain::{Conversation, Message};
use lectern::error::{Error, Result};
use lectern::storage::{MemoryStore, Store, StoreArchive, TurnWrite};

/// Decides whether a commit fails: `Some(error)` fails it, writing nothing.
pub type CommitHook = Box<dyn Fn(&TurnWrite) -> Option<Error>>;

/// Sees the messages each message read returns.
pub type ReadHook = Box<dyn Fn(&[Message])>;

/// A memory store whose commits and message reads go through hooks first.
pub struct HookedStore {
    /// The store every call reaches.
    pub inner: MemoryStore,
    /// Called before each `commit`.
    pub before_commit: RefCell<CommitHook>,
    /// Called after each `messages` and `recent_messages` read that succeeded.
    pub on_read: RefCell<ReadHook>,
}

impl Default for HookedStore {
    fn default() -> Self {
        HookedStore {
            inner: MemoryStore::new(),
            before_commit: RefCell::new(Box::new(|_| None)),
            on_read: RefCell::new(Box::new(|_| {})),
        }
    }
}

impl HookedStore {
    /// A store whose commits go through `hook`.
    pub fn failing_commits(hook: impl Fn(&TurnWrite) -> Option<Error> + 'static) -> Self {
        let store = HookedStore::default();
        *store.before_commit.borrow_mut() = Box::new(hook);
        store
    }

    /// A store whose message reads are shown to `hook`.
    pub fn watching_reads(hook: impl Fn(&[Message]) + 'static) -> Self {
        let store = HookedStore::default();
        *store.on_read.borrow_mut() = Box::new(hook);
        store
    }

    fn read(&self, result: Result<Vec<Message>>) -> Result<Vec<Message>> {
        if let Ok(messages) = &result {
            (self.on_read.borrow())(messages);
        }
        result
    }
}

impl Store for HookedStore {
    fn create_conversation<'a>(&'a self, c: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.create_conversation(c)
    }
    fn conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Conversation>>> {
        self.inner.conversation(id)
    }
    fn update_conversation<'a>(&'a self, c: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.update_conversation(c)
    }
    fn conversations(&self) -> LocalBoxFuture<'_, Result<Vec<Conversation>>> {
        self.inner.conversations()
    }
    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        self.inner.append_messages(messages)
    }
    fn messages<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(async move { self.read(self.inner.messages(id).await) })
    }
    fn recent_messages<'a>(
        &'a self,
        id: &'a str,
        before_seq: Option<u32>,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(async move { self.read(self.inner.recent_messages(id, before_seq, limit).await) })
    }
    fn commit(&self, write: TurnWrite) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        if let Some(error) = (self.before_commit.borrow())(&write) {
            return Box::pin(async move { Err(error) });
        }
        self.inner.commit(write)
    }
    fn has_pending_turns<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<bool>> {
        self.inner.has_pending_turns(id)
    }
    fn tool_calls<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<ToolCallRecord>>> {
        self.inner.tool_calls(id)
    }
    fn has_open_turns<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<bool>> {
        self.inner.has_open_turns(id)
    }
    fn has_runs(&self) -> LocalBoxFuture<'_, Result<bool>> {
        self.inner.has_runs()
    }
    fn add_usage<'a>(
        &'a self,
        conversation_id: &'a str,
        call: lectern::domain::CallUsage,
    ) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.add_usage(conversation_id, call)
    }
    fn usage_totals<'a>(
        &'a self,
        conversation_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<lectern::domain::UsageTotals>> {
        self.inner.usage_totals(conversation_id)
    }
    fn grants<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<lectern::approval::Grant>>> {
        self.inner.grants(id)
    }
    fn context_summary<'a>(
        &'a self,
        id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<lectern::domain::ContextSummary>>> {
        self.inner.context_summary(id)
    }
    fn put_context_summary<'a>(
        &'a self,
        summary: &'a lectern::domain::ContextSummary,
    ) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.put_context_summary(summary)
    }
    fn append_turn_events<'a>(
        &'a self,
        conversation_id: &'a str,
        turn_id: &'a str,
        events: Vec<serde_json::Value>,
    ) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.append_turn_events(conversation_id, turn_id, events)
    }
}

impl StoreArchive for HookedStore {
    fn put_synced_messages(
        &self,
        synced: lectern::storage::SyncedMessages,
    ) -> LocalBoxFuture<'_, Result<()>> {
        self.inner.put_synced_messages(synced)
    }
    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.delete_conversation(id)
    }
    fn open_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<lectern::domain::OpenTurn>>> {
        self.inner.open_turns(conversation_id)
    }
    fn pending_turn<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<PendingTurn>>> {
        self.inner.pending_turn(id)
    }
    fn pending_turns<'a>(&'a self, id: Option<&'a str>) -> LocalBoxFuture<'a, Result<Vec<PendingTurn>>> {
        self.inner.pending_turns(id)
    }
    fn runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>>> {
        self.inner.runs()
    }
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.put_run(run)
    }
    fn run<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<RunRecord>>> {
        self.inner.run(id)
    }
    fn delete_all_conversations(&self) -> LocalBoxFuture<'_, Result<()>> {
        self.inner.delete_all_conversations()
    }
    fn clear_grants<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.clear_grants(id)
    }
    fn turn_events<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<serde_json::Value>>> {
        self.inner.turn_events(turn_id)
    }
    fn recorded_turns<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<String>>> {
        self.inner.recorded_turns(id)
    }
    fn import_conversation(
        &self,
        import: lectern::storage::ConversationImport,
    ) -> LocalBoxFuture<'_, Result<()>> {
        self.inner.import_conversation(import)
    }
}
