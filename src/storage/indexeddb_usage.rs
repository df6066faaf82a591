//! Usage totals in IndexedDB: `usageTotals`, one record a conversation,
//! keyed by `conversationId` (schema version 6).

use idb::{Database, KeyPath, ObjectStoreParams, TransactionMode};
use wasm_bindgen::JsValue;

use super::indexeddb::{commit, conversation_exists, from_js, idb_error, to_js, transaction, CONVERSATIONS};
use crate::domain::{CallUsage, UsageTotals};
use crate::error::{Error, Result};

/// Usage totals, keyed by `conversationId` (schema version 6).
pub(super) const USAGE_TOTALS: &str = "usageTotals";

/// The usage totals store (part of schema step 6).
pub(super) fn usage_v6(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("conversationId")));
    db.create_object_store(USAGE_TOTALS, params)?;
    Ok(())
}

/// `Store::add_usage`: read, add and write in one transaction.
pub(super) async fn add_usage(db: &Database, conversation_id: &str, call: CallUsage) -> Result<()> {
    let tx = transaction(db, &[CONVERSATIONS, USAGE_TOTALS], TransactionMode::ReadWrite)?;
    let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    if !conversation_exists(&conversations, conversation_id).await? {
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
        Some(value) => from_js(value)?,
        None => UsageTotals::empty(conversation_id),
    };
    totals.add(&call.usage, call.cost_usd, call.first_of_turn);
    store
        .put(&to_js(&totals)?, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    commit(tx).await
}

/// `Store::usage_totals`.
pub(super) async fn usage_totals(db: &Database, conversation_id: &str) -> Result<UsageTotals> {
    let tx = transaction(db, &[CONVERSATIONS, USAGE_TOTALS], TransactionMode::ReadOnly)?;
    let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    if !conversation_exists(&conversations, conversation_id).await? {
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
        Some(value) => from_js(value),
        None => Ok(UsageTotals::empty(conversation_id)),
    }
}

/// Deletes a conversation's totals inside `tx` (its deletion's transaction).
pub(super) async fn delete_usage(tx: &idb::Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(USAGE_TOTALS)
        .map_err(idb_error)?
        .delete(JsValue::from_str(conversation_id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}
