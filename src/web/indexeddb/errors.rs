//! IndexedDB failures as storage errors: every `DOMException` turned into an
//! [`Error::Storage`] whose reason it names, and the error of a transaction
//! that aborted.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::DomException;

use crate::error::{Error, StorageReason};

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

/// The error of a transaction that aborted, for the cause `error` names.
pub(super) fn aborted(error: Option<DomException>) -> Error {
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
