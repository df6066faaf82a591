//! [`BookStore`] for IndexedDB: chunks and vectors (`Float32Array`) in batches
//! of [`VECTOR_BATCH`] per record (none for a book without vectors), the
//! index snapshot and the lexical index each as one `Uint8Array`, and one
//! record per page (the reader reads one page at a time).

use futures::future::LocalBoxFuture;
use idb::{Query, Transaction, TransactionMode};
use js_sys::{Float32Array, Object, Reflect, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

use super::indexeddb::{
    all_records, commit, finish, from_js, get_record, idb_error, owned_records, owner_range, to_js,
    transaction, write_transaction, IndexedDbStore, BOOKS, CHUNKS, INDEX_SNAPSHOTS, LEXICAL_INDEXES, PAGES,
    VECTORS,
};
use super::{BookStore, BookWrite, VECTOR_BATCH};
use crate::domain::{Book, Chunk, Page, StoredVectors};
use crate::error::{Error, Result, StorageReason};

const ALL: [&str; 6] = [BOOKS, CHUNKS, VECTORS, INDEX_SNAPSHOTS, LEXICAL_INDEXES, PAGES];

/// Up to [`VECTOR_BATCH`] chunks of a book in one record: reading a book back
/// takes a few hundred requests, not one per chunk.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkBatch {
    book_id: String,
    batch: u32,
    chunks: Vec<Chunk>,
}

fn set(object: &Object, key: &str, value: &JsValue) -> Result<()> {
    Reflect::set(object, &key.into(), value)
        .map(|_| ())
        .map_err(|_| Error::storage(format!("cannot build the {key} field")))
}

async fn exists(tx: &Transaction, store: &str, key: &str) -> Result<bool> {
    let count = tx
        .object_store(store)
        .map_err(idb_error)?
        .count(Some(Query::Key(JsValue::from_str(key))))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    Ok(count > 0)
}

async fn write_book(tx: &Transaction, new: BookWrite<'_>) -> Result<()> {
    let BookWrite {
        book,
        chunks,
        vectors,
        index_snapshot: snapshot,
        lexical_index: lexical,
        pages,
    } = new;
    if exists(tx, BOOKS, &book.id).await? {
        return Err(Error::storage_because(
            StorageReason::Constraint,
            format!("book {} already exists", book.id),
        ));
    }
    let books = tx.object_store(BOOKS).map_err(idb_error)?;
    books
        .add(&to_js(book)?, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let chunk_store = tx.object_store(CHUNKS).map_err(idb_error)?;
    for (batch, slice) in chunks.chunks(VECTOR_BATCH).enumerate() {
        let record = ChunkBatch {
            book_id: book.id.clone(),
            batch: batch as u32,
            chunks: slice.to_vec(),
        };
        chunk_store
            .add(&to_js(&record)?, None)
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
    }
    add_vectors(tx, &book.id, vectors).await?;
    if let Some(bytes) = snapshot {
        put_bytes(tx, INDEX_SNAPSHOTS, &book.id, bytes).await?;
    }
    if let Some(bytes) = lexical {
        put_bytes(tx, LEXICAL_INDEXES, &book.id, bytes).await?;
    }
    let page_store = tx.object_store(PAGES).map_err(idb_error)?;
    for page in pages {
        page_store
            .add(&page_record(&book.id, page)?, None)
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
    }
    Ok(())
}

/// Adds `vectors` to book `book_id` in records of [`VECTOR_BATCH`] rows.
async fn add_vectors(tx: &Transaction, book_id: &str, vectors: &StoredVectors) -> Result<()> {
    let vector_store = tx.object_store(VECTORS).map_err(idb_error)?;
    let per_batch = VECTOR_BATCH * vectors.dims().max(1);
    for (batch, data) in vectors.flat().chunks(per_batch).enumerate() {
        let record = Object::new();
        set(&record, "bookId", &book_id.into())?;
        set(&record, "batch", &JsValue::from(batch as u32))?;
        set(&record, "dims", &JsValue::from(vectors.dims() as u32))?;
        set(&record, "data", &Float32Array::from(data).into())?;
        vector_store
            .add(&record, None)
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
    }
    Ok(())
}

/// Gives the stored book `id`, still without vectors, its `vectors` (by
/// `embedder`): the updated record, or `None` if it has vectors already.
async fn write_vectors(
    tx: &Transaction,
    id: &str,
    embedder: &str,
    vectors: &StoredVectors,
) -> Result<Option<Book>> {
    let books = tx.object_store(BOOKS).map_err(idb_error)?;
    let stored = books
        .get(JsValue::from_str(id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let Some(stored) = stored else {
        return Err(Error::not_found("book", id));
    };
    let mut book: Book = from_js(stored)?;
    if book.dimensions > 0 {
        return Ok(None);
    }
    book.record_vectors(embedder, vectors);
    add_vectors(tx, id, vectors).await?;
    books
        .put(&to_js(&book)?, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    Ok(Some(book))
}

/// A page's record `{ bookId, number, text, chapter? }`, built field by field
/// (a serde round trip through JSON text costs the page's module kilobytes).
fn page_record(book_id: &str, page: &Page) -> Result<JsValue> {
    let record = Object::new();
    set(&record, "bookId", &book_id.into())?;
    set(&record, "number", &JsValue::from(page.number))?;
    set(&record, "text", &page.text.as_str().into())?;
    if let Some(chapter) = &page.chapter {
        set(&record, "chapter", &chapter.as_str().into())?;
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

/// Writes (or replaces) the record `{ bookId, bytes: Uint8Array }` of `store`.
async fn put_bytes(tx: &Transaction, store: &str, book_id: &str, bytes: &[u8]) -> Result<()> {
    let record = Object::new();
    set(&record, "bookId", &book_id.into())?;
    set(&record, "bytes", &Uint8Array::from(bytes).into())?;
    tx.object_store(store)
        .map_err(idb_error)?
        .put(&record, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    Ok(())
}

impl BookStore for IndexedDbStore {
    fn put_book<'a>(&'a self, new: BookWrite<'a>) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let (tx, guard) = write_transaction(&self.db, &ALL)?;
            let outcome = write_book(&tx, new).await;
            finish(tx, guard, outcome).await
        })
    }

    fn book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Book>>> {
        Box::pin(get_record(&self.db, BOOKS, id))
    }

    fn books(&self) -> LocalBoxFuture<'_, Result<Vec<Book>>> {
        Box::pin(async move {
            let mut all: Vec<Book> = all_records(&self.db, BOOKS).await?;
            all.sort_by(|a, b| {
                a.created_at
                    .total_cmp(&b.created_at)
                    .then_with(|| a.id.cmp(&b.id))
            });
            Ok(all)
        })
    }

    fn update_book<'a>(&'a self, book: &'a Book) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let tx = transaction(&self.db, &[BOOKS], TransactionMode::ReadWrite)?;
            if !exists(&tx, BOOKS, &book.id).await? {
                let _ = tx.abort();
                return Err(Error::not_found("book", &book.id));
            }
            let store = tx.object_store(BOOKS).map_err(idb_error)?;
            store
                .put(&to_js(book)?, None)
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            commit(tx).await?;
            Ok(())
        })
    }

    fn book_content<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(Vec<Chunk>, StoredVectors)>> {
        Box::pin(async move {
            let tx = transaction(&self.db, &[BOOKS, CHUNKS, VECTORS], TransactionMode::ReadOnly)?;
            if !exists(&tx, BOOKS, id).await? {
                return Err(Error::not_found("book", id));
            }
            let records = owned_records(&tx, CHUNKS, id).await?;
            let mut chunks: Vec<Chunk> = Vec::new();
            for record in records {
                chunks.extend(from_js::<ChunkBatch>(record)?.chunks);
            }
            let batches = owned_records(&tx, VECTORS, id).await?;
            let mut dims = 0usize;
            let mut flat = Vec::new();
            for batch in batches {
                dims = Reflect::get(&batch, &"dims".into())
                    .ok()
                    .and_then(|d| d.as_f64())
                    .unwrap_or(0.0) as usize;
                let data: Float32Array = Reflect::get(&batch, &"data".into())
                    .ok()
                    .and_then(|d| d.dyn_into().ok())
                    .ok_or_else(|| {
                        Error::storage(format!("a vector batch of book {id} is not a Float32Array"))
                    })?;
                flat.extend(data.to_vec());
            }
            if dims == 0 && flat.is_empty() {
                // A book searched lexically only: no vectors.
                return Ok((chunks, StoredVectors::empty(0)));
            }
            if dims == 0 || flat.len() != dims * chunks.len() {
                return Err(Error::storage(format!(
                    "book {id} has {} vector values for {} chunks of dimension {dims}",
                    flat.len(),
                    chunks.len()
                )));
            }
            Ok((chunks, StoredVectors::from_flat(dims, flat)))
        })
    }

    fn put_vectors<'a>(
        &'a self,
        id: &'a str,
        embedder: &'a str,
        vectors: &'a StoredVectors,
    ) -> LocalBoxFuture<'a, Result<Option<Book>>> {
        Box::pin(async move {
            let (tx, guard) = write_transaction(&self.db, &[BOOKS, VECTORS])?;
            let outcome = write_vectors(&tx, id, embedder, vectors).await;
            finish(tx, guard, outcome).await
        })
    }

    fn page<'a>(&'a self, id: &'a str, number: u32) -> LocalBoxFuture<'a, Result<Option<Page>>> {
        Box::pin(async move {
            let tx = transaction(&self.db, &[BOOKS, PAGES], TransactionMode::ReadOnly)?;
            if !exists(&tx, BOOKS, id).await? {
                return Err(Error::not_found("book", id));
            }
            let key = js_sys::Array::of2(&JsValue::from_str(id), &JsValue::from(number));
            let found = tx
                .object_store(PAGES)
                .map_err(idb_error)?
                .get(JsValue::from(key))
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            found.map(|record| page_of(&record)).transpose()
        })
    }

    fn book_pages<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Page>>> {
        Box::pin(async move {
            let tx = transaction(&self.db, &[BOOKS, PAGES], TransactionMode::ReadOnly)?;
            if !exists(&tx, BOOKS, id).await? {
                return Err(Error::not_found("book", id));
            }
            let records = owned_records(&tx, PAGES, id).await?;
            records.into_iter().map(|record| page_of(&record)).collect()
        })
    }

    fn index_snapshot<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>> {
        Box::pin(read_bytes(self, INDEX_SNAPSHOTS, id, "index snapshot"))
    }

    fn lexical_index<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>> {
        Box::pin(read_bytes(self, LEXICAL_INDEXES, id, "lexical index"))
    }

    fn put_lexical_index<'a>(&'a self, id: &'a str, bytes: &'a [u8]) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(write_bytes(self, LEXICAL_INDEXES, id, bytes))
    }

    fn put_index_snapshot<'a>(&'a self, id: &'a str, snapshot: &'a [u8]) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(write_bytes(self, INDEX_SNAPSHOTS, id, snapshot))
    }

    fn delete_book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let tx = transaction(&self.db, &ALL, TransactionMode::ReadWrite)?;
            if !exists(&tx, BOOKS, id).await? {
                let _ = tx.abort();
                return Err(Error::not_found("book", id));
            }
            let key = JsValue::from_str(id);
            tx.object_store(BOOKS)
                .map_err(idb_error)?
                .delete(key.clone())
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            for store in [CHUNKS, VECTORS, PAGES] {
                tx.object_store(store)
                    .map_err(idb_error)?
                    .delete(owner_range(id)?)
                    .map_err(idb_error)?
                    .await
                    .map_err(idb_error)?;
            }
            for store in [INDEX_SNAPSHOTS, LEXICAL_INDEXES] {
                tx.object_store(store)
                    .map_err(idb_error)?
                    .delete(key.clone())
                    .map_err(idb_error)?
                    .await
                    .map_err(idb_error)?;
            }
            commit(tx).await?;
            Ok(())
        })
    }
}

/// The bytes of a book's record in `store` (`what` names it in errors), if any.
async fn read_bytes(db: &IndexedDbStore, store: &str, id: &str, what: &str) -> Result<Option<Vec<u8>>> {
    let tx = transaction(&db.db, &[store], TransactionMode::ReadOnly)?;
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
async fn write_bytes(db: &IndexedDbStore, store: &str, id: &str, bytes: &[u8]) -> Result<()> {
    let (tx, guard) = write_transaction(&db.db, &[BOOKS, store])?;
    let outcome = async {
        if !exists(&tx, BOOKS, id).await? {
            return Err(Error::not_found("book", id));
        }
        put_bytes(&tx, store, id, bytes).await
    }
    .await;
    finish(tx, guard, outcome).await
}
