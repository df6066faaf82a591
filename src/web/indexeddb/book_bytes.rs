//! A book's two byte records, each one `Uint8Array` keyed by `bookId`: its
//! index snapshot (`indexSnapshots`) and its lexical index (`lexicalIndexes`).

use idb::{Database, Transaction, TransactionMode};
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

use super::errors::idb_error;
use super::record::set_field;
use super::schema::{BOOKS, INDEX_SNAPSHOTS, LEXICAL_INDEXES};
use super::tx::{exists, finish, transaction, write_transaction};
use crate::error::{Error, Result};

/// `BookStore::index_snapshot`.
pub(super) async fn index_snapshot(db: &Database, id: &str) -> Result<Option<Vec<u8>>> {
    read_bytes(db, INDEX_SNAPSHOTS, id, "index snapshot").await
}

/// `BookStore::lexical_index`.
pub(super) async fn lexical_index(db: &Database, id: &str) -> Result<Option<Vec<u8>>> {
    read_bytes(db, LEXICAL_INDEXES, id, "lexical index").await
}

/// `BookStore::put_index_snapshot`.
pub(super) async fn put_index_snapshot(db: &Database, id: &str, snapshot: &[u8]) -> Result<()> {
    write_bytes(db, INDEX_SNAPSHOTS, id, snapshot).await
}

/// `BookStore::put_lexical_index`.
pub(super) async fn put_lexical_index(db: &Database, id: &str, bytes: &[u8]) -> Result<()> {
    write_bytes(db, LEXICAL_INDEXES, id, bytes).await
}

/// Writes (or replaces) the record `{ bookId, bytes: Uint8Array }` of `store`, within `tx`.
pub(super) async fn put_bytes(tx: &Transaction, store: &str, book_id: &str, bytes: &[u8]) -> Result<()> {
    let record = Object::new();
    set_field(&record, "bookId", &book_id.into())?;
    set_field(&record, "bytes", &Uint8Array::from(bytes).into())?;
    tx.object_store(store)
        .map_err(idb_error)?
        .put(&record, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    Ok(())
}

/// The bytes of a book's record in `store` (`what` names it in errors), if any.
async fn read_bytes(db: &Database, store: &str, id: &str, what: &str) -> Result<Option<Vec<u8>>> {
    let tx = transaction(db, &[store], TransactionMode::ReadOnly)?;
    let found = tx
        .object_store(store)
        .map_err(idb_error)?
        .get(JsValue::from_str(id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let Some(record) = found else { return Ok(None) };
    let bytes: Uint8Array = Reflect::get(&record, &"bytes".into())
        .ok()
        .and_then(|b| b.dyn_into().ok())
        .ok_or_else(|| Error::storage(format!("the {what} of book {id} is not a Uint8Array")))?;
    Ok(Some(bytes.to_vec()))
}

/// Saves (or replaces) a book's record in `store`; `NotFound` without the book.
async fn write_bytes(db: &Database, store: &str, id: &str, bytes: &[u8]) -> Result<()> {
    let (tx, guard) = write_transaction(db, &[BOOKS, store])?;
    let outcome = async {
        if !exists(&tx, BOOKS, id).await? {
            return Err(Error::not_found("book", id));
        }
        put_bytes(&tx, store, id, bytes).await
    }
    .await;
    finish(tx, guard, outcome).await
}
