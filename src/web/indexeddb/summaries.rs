//! Context summaries in IndexedDB: `contextSummaries`, one record a
//! conversation, keyed by `conversationId` (schema version 7).

use idb::{Database, Transaction, TransactionMode};
use wasm_bindgen::JsValue;

use super::errors::idb_error;
use super::record::{from_record, put_record};
use super::schema::{CONTEXT_SUMMARIES, CONVERSATIONS};
use super::tx::{commit, exists, transaction};
use crate::domain::ContextSummary;
use crate::error::{Error, Result};

/// `Store::context_summary`.
pub(super) async fn context_summary(db: &Database, conversation_id: &str) -> Result<Option<ContextSummary>> {
    let tx = transaction(db, &[CONVERSATIONS, CONTEXT_SUMMARIES], TransactionMode::ReadOnly)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let found = tx
        .object_store(CONTEXT_SUMMARIES)
        .map_err(idb_error)?
        .get(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    found.map(from_record).transpose()
}

/// `Store::put_context_summary`: checks the conversation and writes in one transaction.
pub(super) async fn put_context_summary(db: &Database, summary: &ContextSummary) -> Result<()> {
    let tx = transaction(
        db,
        &[CONVERSATIONS, CONTEXT_SUMMARIES],
        TransactionMode::ReadWrite,
    )?;
    if !exists(&tx, CONVERSATIONS, &summary.conversation_id).await? {
        let _ = tx.abort();
        return Err(Error::not_found("conversation", &summary.conversation_id));
    }
    put_record(&tx.object_store(CONTEXT_SUMMARIES).map_err(idb_error)?, summary).await?;
    commit(tx).await
}

/// Deletes a conversation's summary inside `tx` (its deletion's transaction).
pub(super) async fn delete_summary(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(CONTEXT_SUMMARIES)
        .map_err(idb_error)?
        .delete(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}
