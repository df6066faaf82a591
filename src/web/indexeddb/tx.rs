//! IndexedDB transactions: opening one on a possibly closed connection,
//! committing one and *checking* that it committed, aborting a write given up
//! halfway; and the reads every store shares (one record, all of a store, all
//! of one owner, whether a key exists).

use idb::{Database, Query, Transaction, TransactionMode, TransactionResult};
use wasm_bindgen::JsValue;
use web_sys::IdbTransaction;

use super::errors::{aborted, exception_of, idb_error};
use super::keys::owner_range;
use super::record::from_record;
use crate::error::{Error, Result, StorageReason};
use crate::json::from_json::FromJson;

/// Why a call on a closed connection fails.
const CLOSED: &str = "the IndexedDB connection is closed (by close(), or because another tab \
                                 opened a newer version of the database or deleted it)";

/// A transaction over `stores`; on a closed connection, a `closed` error.
pub(super) fn transaction(db: &Database, stores: &[&str], mode: TransactionMode) -> Result<Transaction> {
    db.transaction(stores, mode)
        .map_err(|error| match exception_of(&error) {
            Some(e) if e.name() == "InvalidStateError" => {
                Error::storage_because(StorageReason::Closed, CLOSED)
            }
            _ => idb_error(error),
        })
}

/// Commits `tx` and waits for the outcome: a transaction that aborts instead
/// (quota exceeded, a constraint, an abort during commit) is an error whose
/// reason is the abort's cause, and none of its writes were kept.
pub(super) async fn commit(tx: Transaction) -> Result<()> {
    // Keep a handle on the transaction to read its `error` once it is over.
    let raw: IdbTransaction = tx.into();
    let committing = match Transaction::from(raw.clone()).commit() {
        Ok(committing) => committing,
        // It is over already: committed by itself, or aborted (then `error` says why).
        Err(error) => return Err(raw.error().map_or_else(|| idb_error(error), |e| aborted(Some(e)))),
    };
    match committing.await {
        Ok(TransactionResult::Committed) => Ok(()),
        Ok(TransactionResult::Aborted) => Err(aborted(raw.error())),
        Err(error) => Err(raw.error().map_or_else(|| idb_error(error), |e| aborted(Some(e)))),
    }
}

/// A read-write transaction over `stores`, and the guard that aborts it if
/// its work is dropped before [`finish`] (a turn cut off by its time limit
/// while its step is written): nothing of a dropped write is kept.
pub(super) fn write_transaction(db: &Database, stores: &[&str]) -> Result<(Transaction, AbortOnDrop)> {
    let raw: IdbTransaction = transaction(db, stores, TransactionMode::ReadWrite)?.into();
    Ok((Transaction::from(raw.clone()), AbortOnDrop(Some(raw))))
}

/// Aborts its transaction when dropped, unless [`finish`] settled it first.
/// (IndexedDB commits a transaction by itself once no request is pending, so
/// a write given up halfway would otherwise keep the requests already made.)
pub(super) struct AbortOnDrop(Option<IdbTransaction>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            // Throws if it is already committing or finished; then there is nothing to undo.
            let _ = tx.abort();
        }
    }
}

/// Commits `tx` if its work succeeded; aborts it otherwise, so nothing of it
/// is written. Either way `guard` has nothing left to do.
pub(super) async fn finish<T>(tx: Transaction, mut guard: AbortOnDrop, outcome: Result<T>) -> Result<T> {
    guard.0 = None;
    match outcome {
        Ok(value) => {
            commit(tx).await?;
            Ok(value)
        }
        Err(e) => {
            let _ = tx.abort();
            Err(e)
        }
    }
}

/// One record by key, read in a short transaction of its own.
pub(super) async fn get_record<T: FromJson>(db: &Database, store: &str, key: &str) -> Result<Option<T>> {
    let tx = transaction(db, &[store], TransactionMode::ReadOnly)?;
    let found = tx
        .object_store(store)
        .map_err(idb_error)?
        .get(JsValue::from_str(key))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    found.map(from_record).transpose()
}

/// Every record of a store, read in a short transaction of its own.
pub(super) async fn all_records<T: FromJson>(db: &Database, store: &str) -> Result<Vec<T>> {
    let tx = transaction(db, &[store], TransactionMode::ReadOnly)?;
    let values = tx
        .object_store(store)
        .map_err(idb_error)?
        .get_all(None, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    values.into_iter().map(from_record).collect()
}

/// Every record of `store` keyed `[owner_id, n]` (a conversation's messages, a book's chunks), in key order, within `tx`.
pub(super) async fn owned_records(tx: &Transaction, store: &str, owner_id: &str) -> Result<Vec<JsValue>> {
    tx.object_store(store)
        .map_err(idb_error)?
        .get_all(Some(owner_range(owner_id)?), None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}

/// Whether `store` holds a record keyed `key` (a conversation, a book), within `tx`.
pub(super) async fn exists(tx: &Transaction, store: &str, key: &str) -> Result<bool> {
    let count = tx
        .object_store(store)
        .map_err(idb_error)?
        .count(Some(Query::Key(JsValue::from_str(key))))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    Ok(count > 0)
}

/// Whether `store` (or its `index`) holds any record `query` matches (all of them with `None`),
/// counted in a short read-only transaction of its own: no record is read.
pub(super) async fn any_record(
    db: &Database,
    store: &str,
    index: Option<&str>,
    query: Option<Query>,
) -> Result<bool> {
    let tx = transaction(db, &[store], TransactionMode::ReadOnly)?;
    let records = tx.object_store(store).map_err(idb_error)?;
    let counted = match index {
        Some(index) => records.index(index).map_err(idb_error)?.count(query),
        None => records.count(query),
    };
    Ok(counted.map_err(idb_error)?.await.map_err(idb_error)? > 0)
}
