//! A book's pages (`pages`, keyed `[bookId, number]`): one record a page
//! `{ bookId, number, text, chapter? }`, built field by field, so the reader
//! reads one page at a time.

use idb::{Database, Transaction, TransactionMode};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

use super::errors::idb_error;
use super::record::set_field;
use super::schema::{BOOKS, PAGES};
use super::tx::{exists, owned_records, transaction};
use crate::domain::Page;
use crate::error::{Error, Result, StorageReason};

/// Adds book `book_id`'s `pages` within `tx` (the book's own transaction).
pub(super) async fn add_pages(tx: &Transaction, book_id: &str, pages: &[Page]) -> Result<()> {
    let page_store = tx.object_store(PAGES).map_err(idb_error)?;
    for page in pages {
        page_store
            .add(&page_record(book_id, page)?, None)
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
    }
    Ok(())
}

/// `BookStore::page`: `NotFound` without the book, `None` without the page.
pub(super) async fn page(db: &Database, id: &str, number: u32) -> Result<Option<Page>> {
    let tx = transaction(db, &[BOOKS, PAGES], TransactionMode::ReadOnly)?;
    if !exists(&tx, BOOKS, id).await? {
        return Err(Error::not_found("book", id));
    }
    let key = Array::of2(&JsValue::from_str(id), &JsValue::from(number));
    let found = tx
        .object_store(PAGES)
        .map_err(idb_error)?
        .get(JsValue::from(key))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    found.map(|record| page_of(&record)).transpose()
}

/// `BookStore::book_pages`: the book's key range, in page order.
pub(super) async fn book_pages(db: &Database, id: &str) -> Result<Vec<Page>> {
    let tx = transaction(db, &[BOOKS, PAGES], TransactionMode::ReadOnly)?;
    if !exists(&tx, BOOKS, id).await? {
        return Err(Error::not_found("book", id));
    }
    let records = owned_records(&tx, PAGES, id).await?;
    records.into_iter().map(|record| page_of(&record)).collect()
}

/// A page's record `{ bookId, number, text, chapter? }`, built field by field
/// (a serde round trip through JSON text costs the page's module kilobytes).
fn page_record(book_id: &str, page: &Page) -> Result<JsValue> {
    let record = Object::new();
    set_field(&record, "bookId", &book_id.into())?;
    set_field(&record, "number", &JsValue::from(page.number))?;
    set_field(&record, "text", &page.text.as_str().into())?;
    if let Some(chapter) = &page.chapter {
        set_field(&record, "chapter", &chapter.as_str().into())?;
    }
    Ok(record.into())
}

/// The page a record of [`page_record`] holds; a `StorageError` (data) if it is no such record.
fn page_of(record: &JsValue) -> Result<Page> {
    let field = |name: &str| Reflect::get(record, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let number = field("number").as_f64().filter(|n| *n >= 1.0 && n.fract() == 0.0);
    match (number, field("text").as_string()) {
        (Some(number), Some(text)) => Ok(Page {
            number: number as u32,
            text,
            chapter: field("chapter").as_string(),
        }),
        _ => Err(Error::storage_because(
            StorageReason::Data,
            "a stored page is malformed",
        )),
    }
}
