//! The storage seam: where conversations and messages live.
//!
//! [`MemoryStore`] keeps them in memory (native tests, ephemeral sessions);
//! `IndexedDbStore` keeps them in the browser's IndexedDB. Both pass the same
//! [`conformance`] suite.

use futures::future::LocalBoxFuture;

use crate::domain::{Conversation, Message};
use crate::error::Result;

mod books;
pub mod conformance;
#[cfg(target_arch = "wasm32")]
mod indexeddb;
#[cfg(target_arch = "wasm32")]
mod indexeddb_books;
mod memory;
mod memory_books;

pub use books::{BookStore, VECTOR_BATCH};
#[cfg(target_arch = "wasm32")]
pub use indexeddb::{IndexedDbStore, SCHEMA_VERSION as INDEXEDDB_SCHEMA_VERSION};
pub use memory::MemoryStore;

/// Persistent conversations and messages.
///
/// Each method is one atomic step: after a crash either all of it happened or none.
pub trait Store {
    /// Saves a new conversation. A conversation with the same id is a `Storage` error.
    fn create_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>>;

    /// The conversation with this id, if any.
    fn conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Conversation>>>;

    /// Replaces a stored conversation's record (title, working state); `NotFound` if it does not exist.
    fn update_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>>;

    /// All conversations, oldest first.
    fn conversations(&self) -> LocalBoxFuture<'_, Result<Vec<Conversation>>>;

    /// Deletes a conversation and all its messages; `NotFound` if it does not exist.
    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>>;

    /// Appends messages to their conversations in one atomic step, assigning
    /// each the next `seq` of its conversation; returns them as stored.
    /// `NotFound` (and nothing written) if a conversation does not exist.
    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>>;

    /// The messages of a conversation in `seq` order; `NotFound` if it does not exist.
    fn messages<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Message>>>;
}
