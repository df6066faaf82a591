//! IndexedDB transactions and their failures: opening one on a possibly
//! closed connection, committing one and *checking* that it committed, and
//! every `DOMException` turned into an [`Error::Storage`] with its reason.

use idb::{Database, Transaction, TransactionMode, TransactionResult};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DomException, IdbTransaction};

use crate::error::{Error, Result, StorageReason};

/// Why a call on a closed connection fails.
pub(super) const CLOSED: &str = "the IndexedDB connection is closed (by close(), or because another tab \
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

/// The error of a transaction that aborted, for the cause `error` names.
fn aborted(error: Option<DomException>) -> Error {
    match error {
        Some(e) => {
            let reason = match StorageReason::from_dom_exception(&e.name()) {
                StorageReason::Unknown => StorageReason::Aborted,
                reason => reason,
            };
            Error::storage_because(
                reason,
                format!(
                    "the write was aborted and nothing of it was stored: {}: {}",
                    e.name(),
                    e.message()
                ),
            )
        }
        None => Error::storage_because(
            StorageReason::Aborted,
            "the write was aborted and nothing of it was stored",
        ),
    }
}

/// An IndexedDB failure as a storage error, its reason read from the `DOMException`.
pub(super) fn idb_error(error: idb::Error) -> Error {
    idb_error_while("IndexedDB", error)
}

/// [`idb_error`], its message starting with what was being done.
pub(super) fn idb_error_while(doing: &str, error: idb::Error) -> Error {
    let reason = exception_of(&error).map_or(StorageReason::Unknown, |e| {
        StorageReason::from_dom_exception(&e.name())
    });
    Error::storage_because(reason, format!("{doing}: {error}"))
}

/// The `DOMException` an IndexedDB failure carries, if it carries one.
pub(super) fn exception_of(error: &idb::Error) -> Option<DomException> {
    use idb::Error as E;
    let value: &JsValue = match error {
        E::DomException(e) => return Some(e.clone()),
        E::AddFailed(v)
        | E::ClearFailed(v)
        | E::CountFailed(v)
        | E::DeleteFailed(v)
        | E::GetAllFailed(v)
        | E::GetAllKeysFailed(v)
        | E::GetFailed(v)
        | E::GetKeyFailed(v)
        | E::UpdateFailed(v)
        | E::OpenCursorFailed(v)
        | E::OpenKeyCursorFailed(v)
        | E::CursorAdvanceFailed(v)
        | E::CursorContinueFailed(v)
        | E::CursorKeyNotFound(v)
        | E::ObjectStoreNotFound(v)
        | E::IndexNotFound(v)
        | E::ObjectStoreCreateFailed(v)
        | E::IndexCreateFailed(v)
        | E::KeyRangeCreateFailed(v)
        | E::TransactionOpenFailed(v)
        | E::TransactionCommitError(v)
        | E::TransactionAbortError(v)
        | E::IndexedDbOpenFailed(v)
        | E::IndexedDbDeleteFailed(v) => v,
        _ => return None,
    };
    value.dyn_ref::<DomException>().cloned()
}
