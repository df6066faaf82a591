//! The IndexedDB [`Store`] and [`BookStore`], for the browser: the
//! connection ([`IndexedDbStore`], opened by `open`, closed by `close` or by
//! another tab's upgrade) and the two traits, each method handed to the file
//! of the object store it works on:
//!
//! - `schema`: every store's name, key path and index, and the upgrade;
//! - `open`: opening, with a failing or blocked upgrade handled;
//! - `tx`, `errors`, `keys`, `record`: transactions, their failures, key
//!   ranges, and records as JS values;
//! - `conversations`, `messages`, `turns` (paused turns, tool-call records,
//!   runs), `usage`, `grants`, `summaries`, `events`, `open_turns`, `import`;
//! - `books` (books and chunks), `vectors`, `book_bytes` (index snapshots and
//!   lexical indexes), `pages`.
//!
//! Each method is one short transaction that awaits nothing but its own requests.

mod book_bytes;
mod books;
mod conversations;
mod errors;
mod events;
mod grants;
mod import;
mod keys;
mod messages;
mod open;
mod open_turns;
mod pages;
mod record;
mod schema;
mod summaries;
mod synced;
mod turns;
mod tx;
mod usage;
mod vectors;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use idb::{Database, Factory};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{IdbDatabase, IdbVersionChangeEvent};

use crate::domain::{Book, Chunk, Page, StoredVectors};
use crate::domain::{CallUsage, ContextSummary, OpenTurn, RunRecord, ToolCallRecord, UsageTotals};
use crate::domain::{Conversation, Message};
use crate::domain::{Grant, PendingTurn};
use crate::error::Result;
use crate::storage::{
    BookStore, BookWrite, ConversationImport, Store, StoreArchive, SyncedMessages, TurnWrite,
};
use errors::idb_error;
use open::{open_database, Upgrade};

pub use open::{IndexedDbOptions, DEFAULT_BLOCKED_TIMEOUT_MS};
pub use schema::SCHEMA_VERSION;

/// Conversations and messages in a named IndexedDB database.
///
/// When another tab opens a newer version of the database (or deletes it),
/// the connection closes itself so that tab is not blocked, tells the
/// listener set with [`IndexedDbStore::set_close_listener`], and every later
/// call fails with a `closed` storage error.
pub struct IndexedDbStore {
    db: Database,
    raw: IdbDatabase,
    closed: Rc<Cell<bool>>,
    listener: Rc<RefCell<Option<CloseListener>>>,
    _on_version_change: Closure<dyn FnMut(IdbVersionChangeEvent)>,
}

/// Told the new version (`None`: the database is being deleted) when the
/// connection closed itself for another connection's `versionchange`.
pub type CloseListener = Box<dyn Fn(Option<u32>)>;

impl std::fmt::Debug for IndexedDbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexedDbStore")
            .field("name", &self.raw.name())
            .field("closed", &self.closed.get())
            .finish()
    }
}

impl IndexedDbStore {
    /// Opens (creating or upgrading as needed) the database `name` with the default options.
    pub async fn open(name: &str) -> Result<Self> {
        Self::open_with(name, &IndexedDbOptions::default()).await
    }

    /// Opens (creating or upgrading as needed) the database `name`.
    ///
    /// A failing upgrade leaves the database at its old version and rejects
    /// with reason `upgrade`; an upgrade that other connections block past
    /// `options.blocked_timeout_ms` rejects with reason `blocked`; a database
    /// newer than this code rejects with reason `version`.
    pub async fn open_with(name: &str, options: &IndexedDbOptions) -> Result<Self> {
        let fail_at = options.fail_upgrade_to;
        let upgrade: Upgrade = Box::new(move |db, old| schema::upgrade(db, old, fail_at));
        let raw = open_database(name, SCHEMA_VERSION, options, upgrade).await?;
        let closed = Rc::new(Cell::new(false));
        let listener: Rc<RefCell<Option<CloseListener>>> = Rc::default();
        let on_version_change = {
            let (raw, closed, listener) = (raw.clone(), closed.clone(), listener.clone());
            Closure::<dyn FnMut(IdbVersionChangeEvent)>::new(move |event: IdbVersionChangeEvent| {
                raw.close();
                if !closed.replace(true) {
                    if let Some(listener) = listener.borrow().as_ref() {
                        listener(event.new_version().map(|v| v as u32));
                    }
                }
            })
        };
        raw.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
        Ok(IndexedDbStore {
            db: Database::from(raw.clone()),
            raw,
            closed,
            listener,
            _on_version_change: on_version_change,
        })
    }

    /// Deletes the database `name` (used by tests and "forget me" flows).
    pub async fn delete_database(name: &str) -> Result<()> {
        let factory = Factory::new().map_err(idb_error)?;
        factory.delete(name).map_err(idb_error)?.await.map_err(idb_error)
    }

    /// Closes the connection once running transactions finish; later calls fail with reason `closed`.
    pub fn close(&self) {
        self.closed.set(true);
        self.raw.close();
    }

    /// Whether the connection is closed: by [`IndexedDbStore::close`], or for another connection's upgrade.
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// Sets what to tell when the connection closes itself for another connection's `versionchange`.
    pub fn set_close_listener(&self, listener: CloseListener) {
        *self.listener.borrow_mut() = Some(listener);
    }
}

impl Drop for IndexedDbStore {
    /// Closes the connection, so deleting or upgrading the database is not blocked by it.
    fn drop(&mut self) {
        self.raw.set_onversionchange(None);
        self.raw.close();
    }
}

impl Store for IndexedDbStore {
    fn create_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(conversations::create(&self.db, conversation))
    }

    fn conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Conversation>>> {
        Box::pin(conversations::conversation(&self.db, id))
    }

    fn update_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(conversations::update(&self.db, conversation))
    }

    fn conversations(&self) -> LocalBoxFuture<'_, Result<Vec<Conversation>>> {
        Box::pin(conversations::conversations(&self.db))
    }

    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        Box::pin(messages::append_messages(&self.db, messages))
    }

    fn messages<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(messages::messages(&self.db, conversation_id))
    }

    fn recent_messages<'a>(
        &'a self,
        conversation_id: &'a str,
        before_seq: Option<u32>,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(messages::recent_messages(
            &self.db,
            conversation_id,
            before_seq,
            limit,
        ))
    }

    fn commit(&self, write: TurnWrite) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        Box::pin(turns::commit(&self.db, write))
    }

    fn has_pending_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<bool>> {
        Box::pin(turns::has_pending_turns(&self.db, conversation_id))
    }
    fn tool_calls<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<ToolCallRecord>>> {
        Box::pin(turns::tool_calls(&self.db, conversation_id))
    }

    fn has_open_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<bool>> {
        Box::pin(open_turns::has_open_turns(&self.db, conversation_id))
    }

    fn has_runs(&self) -> LocalBoxFuture<'_, Result<bool>> {
        Box::pin(turns::has_runs(&self.db))
    }

    fn add_usage<'a>(&'a self, conversation_id: &'a str, call: CallUsage) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(usage::add_usage(&self.db, conversation_id, call))
    }

    fn usage_totals<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<UsageTotals>> {
        Box::pin(usage::usage_totals(&self.db, conversation_id))
    }

    fn context_summary<'a>(
        &'a self,
        conversation_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<ContextSummary>>> {
        Box::pin(summaries::context_summary(&self.db, conversation_id))
    }

    fn put_context_summary<'a>(&'a self, summary: &'a ContextSummary) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(summaries::put_context_summary(&self.db, summary))
    }

    fn append_turn_events<'a>(
        &'a self,
        conversation_id: &'a str,
        turn_id: &'a str,
        events: Vec<serde_json::Value>,
    ) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(events::append_turn_events(
            &self.db,
            conversation_id,
            turn_id,
            events,
        ))
    }

    fn grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Grant>>> {
        Box::pin(grants::grants(&self.db, conversation_id))
    }
}

impl StoreArchive for IndexedDbStore {
    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(conversations::delete(&self.db, id))
    }

    fn open_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<OpenTurn>>> {
        Box::pin(open_turns::open_turns(&self.db, conversation_id))
    }

    fn pending_turn<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Option<PendingTurn>>> {
        Box::pin(turns::pending_turn(&self.db, turn_id))
    }

    fn pending_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<PendingTurn>>> {
        Box::pin(turns::pending_turns(&self.db, conversation_id))
    }

    fn runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>>> {
        Box::pin(turns::runs(&self.db))
    }

    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(turns::put_run(&self.db, run))
    }

    fn run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<RunRecord>>> {
        Box::pin(turns::run(&self.db, run_id))
    }

    fn delete_all_conversations(&self) -> LocalBoxFuture<'_, Result<()>> {
        Box::pin(conversations::delete_all(&self.db))
    }

    fn turn_events<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<serde_json::Value>>> {
        Box::pin(events::turn_events(&self.db, turn_id))
    }

    fn recorded_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<String>>> {
        Box::pin(events::recorded_turns(&self.db, conversation_id))
    }

    fn clear_grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(grants::clear_grants(&self.db, conversation_id))
    }

    fn import_conversation(&self, import: ConversationImport) -> LocalBoxFuture<'_, Result<()>> {
        Box::pin(import::import_conversation(&self.db, import))
    }

    fn put_synced_messages(&self, synced: SyncedMessages) -> LocalBoxFuture<'_, Result<()>> {
        Box::pin(synced::put_synced_messages(&self.db, synced))
    }
}

impl BookStore for IndexedDbStore {
    fn put_book<'a>(&'a self, new: BookWrite<'a>) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(books::put_book(&self.db, new))
    }

    fn book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Book>>> {
        Box::pin(books::book(&self.db, id))
    }

    fn books(&self) -> LocalBoxFuture<'_, Result<Vec<Book>>> {
        Box::pin(books::books(&self.db))
    }

    fn update_book<'a>(&'a self, book: &'a Book) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(books::update_book(&self.db, book))
    }

    fn book_content<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(Vec<Chunk>, StoredVectors)>> {
        Box::pin(books::book_content(&self.db, id))
    }

    fn put_vectors<'a>(
        &'a self,
        id: &'a str,
        embedder: &'a str,
        vectors: &'a StoredVectors,
    ) -> LocalBoxFuture<'a, Result<Option<Book>>> {
        Box::pin(books::put_vectors(&self.db, id, embedder, vectors))
    }

    fn page<'a>(&'a self, id: &'a str, number: u32) -> LocalBoxFuture<'a, Result<Option<Page>>> {
        Box::pin(pages::page(&self.db, id, number))
    }

    fn book_pages<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Page>>> {
        Box::pin(pages::book_pages(&self.db, id))
    }

    fn index_snapshot<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>> {
        Box::pin(book_bytes::index_snapshot(&self.db, id))
    }

    fn lexical_index<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>> {
        Box::pin(book_bytes::lexical_index(&self.db, id))
    }

    fn put_lexical_index<'a>(&'a self, id: &'a str, bytes: &'a [u8]) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(book_bytes::put_lexical_index(&self.db, id, bytes))
    }

    fn put_index_snapshot<'a>(&'a self, id: &'a str, snapshot: &'a [u8]) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(book_bytes::put_index_snapshot(&self.db, id, snapshot))
    }

    fn delete_book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(books::delete_book(&self.db, id))
    }
}
