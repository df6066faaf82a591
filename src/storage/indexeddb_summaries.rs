//! Context summaries in IndexedDB: `contextSummaries`, one record a
//! conversation, keyed by `conversationId` (schema version 7).

use idb::{Database, KeyPath, ObjectStoreParams, TransactionMode};
use wasm_bindgen::JsValue;

use super::indexeddb::{commit, conversation_exists, from_js, idb_error, to_js, transaction, CONVERSATIONS};
use crate::domain::ContextSummary;
use crate::error::{Error, Result};

/// Context summaries, keyed by `conversationId` (schema version 7).
pub(super) const CONTEXT_SUMMARIES: &str = "contextSummaries";

/// The context summaries store (part of schema step 7).
pub(super) fn summaries_v7(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("conversationId")));
    db.create_object_store(CONTEXT_SUMMARIES, params)?;
    Ok(())
}

/// `Store::context_summary`.
pub(super) async fn context_summary(db: &Database, conversation_id: &str) -> Result<Option<ContextSummary>> {
    let tx = transaction(db, &[CONVERSATIONS, CONTEXT_SUMMARIES], TransactionMode::ReadOnly)?;
    let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    if !conversation_exists(&conversations, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let found = tx
        .object_store(CONTEXT_SUMMARIES)
        .map_err(idb_error)?
        .get(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    found.map(from_js).transpose()
}

/// `Store::put_context_summary`: checks the conversation and writes in one transaction.
pub(super) async fn put_context_summary(db: &Database, summary: &ContextSummary) -> Result<()> {
    let tx = transaction(
        db,
        &[CONVERSATIONS, CONTEXT_SUMMARIES],
        TransactionMode::ReadWrite,
    )?;
    let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    if !conversation_exists(&conversations, &summary.conversation_id).await? {
        let _ = tx.abort();
        return Err(Error::not_found("conversation", &summary.conversation_id));
    }
    tx.object_store(CONTEXT_SUMMARIES)
        .map_err(idb_error)?
        .put(&to_js(summary)?, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    commit(tx).await
}

/// Deletes a conversation's summary inside `tx` (its deletion's transaction).
pub(super) async fn delete_summary(tx: &idb::Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(CONTEXT_SUMMARIES)
        .map_err(idb_error)?
        .delete(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}
