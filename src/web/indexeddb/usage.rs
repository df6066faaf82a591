//! Usage totals in IndexedDB: `usageTotals`, one record a conversation,
//! keyed by `conversationId` (schema version 6).

use idb::{Database, Transaction, TransactionMode};
use wasm_bindgen::JsValue;

use super::errors::idb_error;
use super::record::{from_record, put_record};
use super::schema::{CONVERSATIONS, USAGE_TOTALS};
use super::tx::{commit, exists, transaction};
use crate::domain::{CallUsage, UsageTotals};
use crate::error::{Error, Result};

/// `Store::add_usage`: read, add and write in one transaction.
pub(super) async fn add_usage(db: &Database, conversation_id: &str, call: CallUsage) -> Result<()> {
    let tx = transaction(db, &[CONVERSATIONS, USAGE_TOTALS], TransactionMode::ReadWrite)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        let _ = tx.abort();
        return Ok(());
    }
    let store = tx.object_store(USAGE_TOTALS).map_err(idb_error)?;
    let found = store
        .get(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let mut totals: UsageTotals = match found {
        Some(value) => from_record(value)?,
        None => UsageTotals::empty(conversation_id),
    };
    totals.add(&call.usage, call.cost_usd, call.first_of_turn);
    put_record(&store, &totals).await?;
    commit(tx).await
}

/// `Store::usage_totals`.
pub(super) async fn usage_totals(db: &Database, conversation_id: &str) -> Result<UsageTotals> {
    let tx = transaction(db, &[CONVERSATIONS, USAGE_TOTALS], TransactionMode::ReadOnly)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let found = tx
        .object_store(USAGE_TOTALS)
        .map_err(idb_error)?
        .get(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    match found {
        Some(value) => from_record(value),
        None => Ok(UsageTotals::empty(conversation_id)),
    }
}

/// Deletes a conversation's totals inside `tx` (its deletion's transaction).
pub(super) async fn delete_usage(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(USAGE_TOTALS)
        .map_err(idb_error)?
        .delete(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}
