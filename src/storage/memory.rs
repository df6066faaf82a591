//! An in-memory [`Store`].

use std::cell::RefCell;
use std::collections::BTreeMap;

use futures::future::LocalBoxFuture;

use super::Store;
use crate::domain::{Conversation, Message};
use crate::error::{Error, Result};
use crate::retrieval::book::Book;
use crate::retrieval::chunk::Chunk;
use crate::retrieval::vector::VectorSet;

/// Conversations and messages held in memory; gone when dropped.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: RefCell<Inner>,
    pub(super) books: RefCell<BTreeMap<String, StoredBook>>,
}

/// A book and everything of it, as the memory store keeps it.
#[derive(Debug, Clone)]
pub(super) struct StoredBook {
    pub book: Book,
    pub chunks: Vec<Chunk>,
    pub vectors: VectorSet,
    pub snapshot: Option<Vec<u8>>,
}

#[derive(Debug, Default)]
struct Inner {
    conversations: BTreeMap<String, Conversation>,
    messages: BTreeMap<String, Vec<Message>>,
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
                return Err(Error::storage(format!(
                    "conversation {} already exists",
                    conversation.id
                )));
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
        all.sort_by(|a, b| {
            a.created_at
                .total_cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        Box::pin(async move { Ok(all) })
    }

    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        let mut inner = self.inner.borrow_mut();
        let result = match inner.conversations.remove(id) {
            Some(_) => {
                inner.messages.remove(id);
                Ok(())
            }
            None => Err(Error::not_found("conversation", id)),
        };
        Box::pin(async move { result })
    }

    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        let result = (|| {
            let mut inner = self.inner.borrow_mut();
            if let Some(missing) = messages
                .iter()
                .find(|m| !inner.conversations.contains_key(&m.conversation_id))
            {
                return Err(Error::not_found("conversation", &missing.conversation_id));
            }
            let mut stored = Vec::with_capacity(messages.len());
            for mut message in messages {
                let list = inner.messages.entry(message.conversation_id.clone()).or_default();
                message.seq = list.last().map_or(0, |m| m.seq + 1);
                list.push(message.clone());
                stored.push(message);
            }
            Ok(stored)
        })();
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
}
