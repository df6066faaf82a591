//! The IndexedDB [`Store`], for the browser.
//!
//! Schema (version [`SCHEMA_VERSION`]):
//! - `conversations`, keyed by `id`;
//! - `messages`, keyed by `[conversationId, seq]` so one key range reads a
//!   conversation in order and deletes it, with a unique `byId` index;
//! - books, chunks, vectors, index snapshots, lexical indexes and pages (see `indexeddb_books`);
//! - paused turns, tool-call records and runs (see `indexeddb_turns`);
//! - usage totals (see `indexeddb_usage`);
//! - "always allow" grants (see `indexeddb_grants`);
//! - context summaries (see `indexeddb_summaries`);
//! - recorded turn events (see `indexeddb_events`);
//! - open-turn records (see `indexeddb_open_turns`).
//!
//! Each method is one short transaction that awaits nothing but its own requests.

use futures::future::LocalBoxFuture;
use idb::{CursorDirection, Database, Factory, KeyRange, Query, TransactionMode};
use js_sys::Array;
use serde::{de::DeserializeOwned, Serialize};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbVersionChangeEvent};

use super::indexeddb_events::{self as recorded, TURN_EVENTS};
use super::indexeddb_grants::{self as grants, APPROVAL_GRANTS};
use super::indexeddb_open::{open_database, IndexedDbOptions, Upgrade};
use super::indexeddb_open_turns::{self as open_turns, OPEN_TURNS};
use super::indexeddb_schema as schema;
use super::indexeddb_summaries::{self as summaries, CONTEXT_SUMMARIES};
use super::indexeddb_turns as turns;
pub(super) use super::indexeddb_tx::{
    commit, finish, idb_error, idb_error_while, transaction, write_transaction,
};
use super::indexeddb_usage::{self as usage, USAGE_TOTALS};
use super::{ConversationImport, Store, TurnWrite};
use crate::domain::{CallUsage, ContextSummary, OpenTurn, RunRecord, ToolCallRecord, UsageTotals};
use crate::domain::{Conversation, Message};
use crate::domain::{Grant, PendingTurn};
use crate::error::{Error, Result, StorageReason};
use crate::web::{from_js_text, to_js_text, JsonTextError};

/// The schema version this code writes; `indexeddb_schema::upgrade` brings older databases to it.
pub const SCHEMA_VERSION: u32 = 8;

/// Conversations, keyed by `id`.
pub(super) const CONVERSATIONS: &str = "conversations";
/// Messages, keyed by `[conversationId, seq]`.
pub(super) const MESSAGES: &str = "messages";
/// Paused turns, keyed by `turnId`.
pub(super) const PENDING_TURNS: &str = "pendingTurns";
/// Tool-call records, keyed by `[conversationId, turnId, position]`.
pub(super) const TOOL_CALLS: &str = "toolCalls";
/// Headless runs, keyed by `runId`.
pub(super) const RUNS: &str = "runs";

/// Every store holding records of a conversation: deleting one deletes from
/// each, and deleting all conversations clears each (with `runs`).
const CONVERSATION_STORES: [&str; 9] = [
    CONVERSATIONS,
    MESSAGES,
    TOOL_CALLS,
    PENDING_TURNS,
    USAGE_TOTALS,
    APPROVAL_GRANTS,
    CONTEXT_SUMMARIES,
    TURN_EVENTS,
    OPEN_TURNS,
];

/// Books, keyed by `id`.
pub(super) const BOOKS: &str = "books";
/// Chunk batches, keyed by `[bookId, batch]`.
pub(super) const CHUNKS: &str = "chunks";
/// Vector batches (`Float32Array`s), keyed by `[bookId, batch]`.
pub(super) const VECTORS: &str = "vectors";
/// Index snapshots (`Uint8Array`s), keyed by `bookId`.
pub(super) const INDEX_SNAPSHOTS: &str = "indexSnapshots";
/// Lexical indexes (`Uint8Array`s), keyed by `bookId` (schema version 4).
pub(super) const LEXICAL_INDEXES: &str = "lexicalIndexes";
/// Pages `{ bookId, number, text, chapter? }`, keyed by `[bookId, number]` (schema version 5).
pub(super) const PAGES: &str = "pages";

/// Conversations and messages in a named IndexedDB database.
///
/// When another tab opens a newer version of the database (or deletes it),
/// the connection closes itself so that tab is not blocked, tells the
/// listener set with [`IndexedDbStore::set_close_listener`], and every later
/// call fails with a `closed` storage error.
pub struct IndexedDbStore {
    pub(super) db: Database,
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

/// A record as the JS object IndexedDB stores, through JSON text: the same
/// plain objects, arrays, strings, numbers, booleans and `null`s a direct
/// conversion makes (records hold no bytes, `Map`s or `undefined`; vectors and
/// snapshots are typed arrays written apart), with one serializer in the wasm.
pub(super) fn to_js<T: Serialize>(value: &T) -> Result<JsValue> {
    to_js_text(value).map_err(|e| match e {
        JsonTextError::Serde(e) => {
            Error::storage_because(StorageReason::Data, format!("cannot encode record: {e}"))
        }
        JsonTextError::NotJson => {
            Error::storage_because(StorageReason::Data, "cannot encode record as a JS object")
        }
    })
}

/// A stored record back, through JSON text (one deserializer in the wasm,
/// shared with the JS API's inputs).
pub(super) fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T> {
    // Through a `Value`: its per-type deserializers are far smaller than the text parser's.
    from_js_text::<serde_json::Value>(&value)
        .and_then(|value| serde_json::from_value(value).map_err(JsonTextError::Serde))
        .map_err(|e| match e {
            JsonTextError::Serde(e) => {
                Error::storage_because(StorageReason::Data, format!("cannot decode record: {e}"))
            }
            JsonTextError::NotJson => {
                Error::storage_because(StorageReason::Data, "cannot decode record: not plain JSON")
            }
        })
}

/// One record by key, read in a short transaction of its own.
pub(super) async fn get_record<T: DeserializeOwned>(
    db: &Database,
    store: &str,
    key: &str,
) -> Result<Option<T>> {
    let tx = transaction(db, &[store], TransactionMode::ReadOnly)?;
    let found = tx
        .object_store(store)
        .map_err(idb_error)?
        .get(JsValue::from_str(key))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    found.map(from_js).transpose()
}

/// Every record of a store, read in a short transaction of its own.
pub(super) async fn all_records<T: DeserializeOwned>(db: &Database, store: &str) -> Result<Vec<T>> {
    let tx = transaction(db, &[store], TransactionMode::ReadOnly)?;
    let values = tx
        .object_store(store)
        .map_err(idb_error)?
        .get_all(None, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    values.into_iter().map(from_js).collect()
}

/// Every record of `store` keyed `[owner_id, n]` (a conversation's messages, a book's chunks), in key order, within `tx`.
pub(super) async fn owned_records(
    tx: &idb::Transaction,
    store: &str,
    owner_id: &str,
) -> Result<Vec<JsValue>> {
    tx.object_store(store)
        .map_err(idb_error)?
        .get_all(Some(owner_range(owner_id)?), None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}

/// The key range covering every `[id, n]` key of one owner (a conversation's messages, a book's chunks).
pub(super) fn owner_range(owner_id: &str) -> Result<Query> {
    let lower = Array::of2(&JsValue::from_str(owner_id), &JsValue::from_f64(0.0));
    // Arrays sort after numbers, so `[id, []]` is above every `[id, n]`.
    let upper = Array::of2(&JsValue::from_str(owner_id), &Array::new());
    let range = KeyRange::bound(&lower, &upper, Some(false), Some(false)).map_err(idb_error)?;
    Ok(Query::KeyRange(range))
}

/// The key range of a conversation's messages with `start <= seq < end`.
fn seq_range(conversation_id: &str, start: u32, end: u32) -> Result<Query> {
    let id = JsValue::from_str(conversation_id);
    let lower = Array::of2(&id, &JsValue::from_f64(f64::from(start)));
    let upper = Array::of2(&id, &JsValue::from_f64(f64::from(end)));
    let range = KeyRange::bound(&lower, &upper, Some(false), Some(true)).map_err(idb_error)?;
    Ok(Query::KeyRange(range))
}

impl Store for IndexedDbStore {
    fn create_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let value = to_js(conversation)?;
            let tx = transaction(&self.db, &[CONVERSATIONS], TransactionMode::ReadWrite)?;
            let store = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
            let added = match store.add(&value, None) {
                Ok(request) => request.await.map(|_| ()),
                Err(e) => Err(e),
            };
            if let Err(e) = added {
                let _ = tx.abort();
                let doing = format!("cannot create conversation {}", conversation.id);
                return Err(idb_error_while(&doing, e));
            }
            commit(tx).await?;
            Ok(())
        })
    }

    fn update_conversation<'a>(&'a self, conversation: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let value = to_js(conversation)?;
            let tx = transaction(&self.db, &[CONVERSATIONS], TransactionMode::ReadWrite)?;
            let store = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
            let key = JsValue::from_str(&conversation.id);
            let exists = store
                .count(Some(Query::Key(key)))
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            if exists == 0 {
                let _ = tx.abort();
                return Err(Error::not_found("conversation", &conversation.id));
            }
            store
                .put(&value, None)
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            commit(tx).await?;
            Ok(())
        })
    }

    fn conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Conversation>>> {
        Box::pin(get_record(&self.db, CONVERSATIONS, id))
    }

    fn conversations(&self) -> LocalBoxFuture<'_, Result<Vec<Conversation>>> {
        Box::pin(async move {
            let mut all: Vec<Conversation> = all_records(&self.db, CONVERSATIONS).await?;
            all.sort_by(|a, b| {
                a.created_at
                    .total_cmp(&b.created_at)
                    .then_with(|| a.id.cmp(&b.id))
            });
            Ok(all)
        })
    }

    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let tx = transaction(&self.db, &CONVERSATION_STORES, TransactionMode::ReadWrite)?;
            let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
            if !conversation_exists(&conversations, id).await? {
                let _ = tx.abort();
                return Err(Error::not_found("conversation", id));
            }
            turns::delete_turn_records(&tx, id).await?;
            usage::delete_usage(&tx, id).await?;
            grants::delete_grants_in(&tx, id).await?;
            summaries::delete_summary(&tx, id).await?;
            recorded::delete_events_in(&tx, id).await?;
            open_turns::delete_open_turns_in(&tx, id).await?;
            conversations
                .delete(JsValue::from_str(id))
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            let messages = tx.object_store(MESSAGES).map_err(idb_error)?;
            messages
                .delete(owner_range(id)?)
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            commit(tx).await?;
            Ok(())
        })
    }

    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        Box::pin(async move {
            let (tx, guard) = write_transaction(&self.db, &[CONVERSATIONS, MESSAGES])?;
            let outcome = append_in(&tx, messages).await;
            finish(tx, guard, outcome).await
        })
    }

    fn messages<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(async move {
            let tx = transaction(&self.db, &[CONVERSATIONS, MESSAGES], TransactionMode::ReadOnly)?;
            let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
            if !conversation_exists(&conversations, conversation_id).await? {
                return Err(Error::not_found("conversation", conversation_id));
            }
            let values = owned_records(&tx, MESSAGES, conversation_id).await?;
            values.into_iter().map(from_js).collect()
        })
    }

    fn recent_messages<'a>(
        &'a self,
        conversation_id: &'a str,
        before_seq: Option<u32>,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        Box::pin(async move {
            let tx = self
                .db
                .transaction(&[CONVERSATIONS, MESSAGES], TransactionMode::ReadOnly)
                .map_err(idb_error)?;
            let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
            if !conversation_exists(&conversations, conversation_id).await? {
                return Err(Error::not_found("conversation", conversation_id));
            }
            let store = tx.object_store(MESSAGES).map_err(idb_error)?;
            let mut end = match before_seq {
                Some(seq) => seq,
                None => last_seq(&store, conversation_id).await?.map_or(0, |s| s + 1),
            };
            // Seqs are dense, so one key range of `limit` seqs is the answer;
            // a gap would only make it short, and the loop reads on below it.
            let mut pages: Vec<Vec<Message>> = Vec::new();
            let mut found = 0;
            while found < limit && end > 0 {
                let start = end.saturating_sub(u32::try_from(limit - found).unwrap_or(u32::MAX));
                let values = store
                    .get_all(Some(seq_range(conversation_id, start, end)?), None)
                    .map_err(idb_error)?
                    .await
                    .map_err(idb_error)?;
                let page: Vec<Message> = values.into_iter().map(from_js).collect::<Result<_>>()?;
                found += page.len();
                pages.push(page);
                end = start;
            }
            Ok(pages.into_iter().rev().flatten().collect())
        })
    }

    fn commit(&self, write: TurnWrite) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        Box::pin(turns::commit(&self.db, write))
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

    fn tool_calls<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<ToolCallRecord>>> {
        Box::pin(turns::tool_calls(&self.db, conversation_id))
    }

    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(turns::put_run(&self.db, run))
    }

    fn run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<RunRecord>>> {
        Box::pin(turns::run(&self.db, run_id))
    }

    fn runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>>> {
        Box::pin(turns::runs(&self.db))
    }

    fn add_usage<'a>(&'a self, conversation_id: &'a str, call: CallUsage) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(usage::add_usage(&self.db, conversation_id, call))
    }

    fn delete_all_conversations(&self) -> LocalBoxFuture<'_, Result<()>> {
        Box::pin(async move {
            let stores: Vec<&str> = CONVERSATION_STORES.into_iter().chain([RUNS]).collect();
            let tx = transaction(&self.db, &stores, TransactionMode::ReadWrite)?;
            for name in stores {
                tx.object_store(name)
                    .map_err(idb_error)?
                    .clear()
                    .map_err(idb_error)?
                    .await
                    .map_err(idb_error)?;
            }
            commit(tx).await
        })
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
        Box::pin(recorded::append_turn_events(
            &self.db,
            conversation_id,
            turn_id,
            events,
        ))
    }

    fn turn_events<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<serde_json::Value>>> {
        Box::pin(recorded::turn_events(&self.db, turn_id))
    }

    fn recorded_turns<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<String>>> {
        Box::pin(recorded::recorded_turns(&self.db, conversation_id))
    }

    fn grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Grant>>> {
        Box::pin(grants::grants(&self.db, conversation_id))
    }

    fn clear_grants<'a>(&'a self, conversation_id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(grants::clear_grants(&self.db, conversation_id))
    }

    fn import_conversation(&self, import: ConversationImport) -> LocalBoxFuture<'_, Result<()>> {
        Box::pin(super::indexeddb_import::import_conversation(&self.db, import))
    }

    fn open_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<OpenTurn>>> {
        Box::pin(open_turns::open_turns(&self.db, conversation_id))
    }
}

/// Whether the conversation `id` exists.
pub(super) async fn conversation_exists(conversations: &idb::ObjectStore, id: &str) -> Result<bool> {
    let count = conversations
        .count(Some(Query::Key(JsValue::from_str(id))))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    Ok(count > 0)
}

/// The body of `append_messages`, inside a read-write transaction over conversations and messages.
pub(super) async fn append_in(tx: &idb::Transaction, messages: Vec<Message>) -> Result<Vec<Message>> {
    let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    let store = tx.object_store(MESSAGES).map_err(idb_error)?;
    let mut next_seq: std::collections::HashMap<String, u32> = Default::default();
    let mut stored = Vec::with_capacity(messages.len());
    for mut message in messages {
        let cid = message.conversation_id.clone();
        let seq = match next_seq.get(&cid) {
            Some(seq) => *seq,
            None => {
                if !conversation_exists(&conversations, &cid).await? {
                    return Err(Error::not_found("conversation", &cid));
                }
                last_seq(&store, &cid).await?.map_or(0, |s| s + 1)
            }
        };
        message.seq = seq;
        next_seq.insert(cid, seq + 1);
        store
            .add(&to_js(&message)?, None)
            .map_err(idb_error)?
            .await
            .map_err(|e| Error::storage(format!("cannot append message {}: {e}", message.id)))?;
        stored.push(message);
    }
    Ok(stored)
}

/// The highest `seq` stored for a conversation, read with one reverse cursor step.
async fn last_seq(store: &idb::ObjectStore, conversation_id: &str) -> Result<Option<u32>> {
    let cursor = store
        .open_cursor(Some(owner_range(conversation_id)?), Some(CursorDirection::Prev))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let Some(cursor) = cursor else { return Ok(None) };
    let key = cursor.key().map_err(idb_error)?;
    let seq = Array::from(&key)
        .get(1)
        .as_f64()
        .ok_or_else(|| Error::storage("message key without seq"))?;
    Ok(Some(seq as u32))
}
