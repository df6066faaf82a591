//! Books (`books`, keyed by `id`) and their chunks (`chunks`, keyed
//! `[bookId, batch]`, [`VECTOR_BATCH`] chunks a record): a book written
//! whole in one transaction with its vectors, byte records and pages, read
//! back with its content, given vectors later, deleted with all of it.

use idb::{Database, Transaction, TransactionMode};
use serde::Serialize;
use wasm_bindgen::JsValue;

use super::book_bytes::put_bytes;
use super::errors::idb_error;
use super::keys::owner_range;
use super::pages::add_pages;
use super::record::{from_record, put_record, to_record};
use super::schema::{stores_of, Owner, BOOKS, CHUNKS, INDEX_SNAPSHOTS, LEXICAL_INDEXES, PAGES, VECTORS};
use super::tx::{
    all_records, commit, exists, finish, get_record, owned_records, transaction, write_transaction,
};
use super::vectors::{add_vectors, read_vectors};
use crate::domain::{Book, Chunk, StoredVectors};
use crate::error::{Error, Result, StorageReason};
use crate::json::from_json::FromJson;
use crate::storage::{BookWrite, VECTOR_BATCH};

/// Up to [`VECTOR_BATCH`] chunks of a book in one record: reading a book back
/// takes a few hundred requests, not one per chunk.
#[derive(Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
struct ChunkBatch {
    book_id: String,
    batch: u32,
    chunks: Vec<Chunk>,
}

/// `BookStore::put_book`: one read-write transaction over every book store.
pub(super) async fn put_book(db: &Database, new: BookWrite<'_>) -> Result<()> {
    let (tx, guard) = write_transaction(db, &stores_of(&[Owner::Book]))?;
    let outcome = write_book(&tx, new).await;
    finish(tx, guard, outcome).await
}

/// The body of `put_book`, inside its transaction; a taken id is reason `constraint`.
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
        .add(&to_record(book)?, None)
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
            .add(&to_record(&record)?, None)
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
    add_pages(tx, &book.id, pages).await
}

/// `BookStore::book`.
pub(super) async fn book(db: &Database, id: &str) -> Result<Option<Book>> {
    get_record(db, BOOKS, id).await
}

/// `BookStore::books`: oldest first (ties by id).
pub(super) async fn books(db: &Database) -> Result<Vec<Book>> {
    let mut all: Vec<Book> = all_records(db, BOOKS).await?;
    crate::domain::sort_by(&mut all, |a, b| {
        a.created_at
            .total_cmp(&b.created_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    Ok(all)
}

/// `BookStore::update_book`: replaces the record if it exists.
pub(super) async fn update_book(db: &Database, book: &Book) -> Result<()> {
    let tx = transaction(db, &[BOOKS], TransactionMode::ReadWrite)?;
    if !exists(&tx, BOOKS, &book.id).await? {
        let _ = tx.abort();
        return Err(Error::not_found("book", &book.id));
    }
    let store = tx.object_store(BOOKS).map_err(idb_error)?;
    put_record(&store, book).await?;
    commit(tx).await?;
    Ok(())
}

/// `BookStore::book_content`: its chunks and vectors, checked against each other.
pub(super) async fn book_content(db: &Database, id: &str) -> Result<(Vec<Chunk>, StoredVectors)> {
    let tx = transaction(db, &[BOOKS, CHUNKS, VECTORS], TransactionMode::ReadOnly)?;
    if !exists(&tx, BOOKS, id).await? {
        return Err(Error::not_found("book", id));
    }
    let records = owned_records(&tx, CHUNKS, id).await?;
    let mut chunks: Vec<Chunk> = Vec::new();
    for record in records {
        chunks.extend(from_record::<ChunkBatch>(record)?.chunks);
    }
    let (dims, flat) = read_vectors(&tx, id).await?;
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
}

/// `BookStore::put_vectors`: one read-write transaction over books and vectors.
pub(super) async fn put_vectors(
    db: &Database,
    id: &str,
    embedder: &str,
    vectors: &StoredVectors,
) -> Result<Option<Book>> {
    let (tx, guard) = write_transaction(db, &[BOOKS, VECTORS])?;
    let outcome = write_vectors(&tx, id, embedder, vectors).await;
    finish(tx, guard, outcome).await
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
    let mut book: Book = from_record(stored)?;
    if book.dimensions > 0 {
        return Ok(None);
    }
    book.record_vectors(embedder, vectors);
    add_vectors(tx, id, vectors).await?;
    put_record(&books, &book).await?;
    Ok(Some(book))
}

/// `BookStore::delete_book`: the book and its records in every book store, in one transaction.
pub(super) async fn delete_book(db: &Database, id: &str) -> Result<()> {
    let tx = transaction(db, &stores_of(&[Owner::Book]), TransactionMode::ReadWrite)?;
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
}
