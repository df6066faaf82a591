//! The book half of storage: books, their chunks, their vectors (compact,
//! batched), their index snapshots, their lexical indexes and their pages.

use futures::future::LocalBoxFuture;

use crate::domain::{Book, Chunk, Page, StoredVectors};
use crate::error::Result;

/// Vectors per stored batch.
pub const VECTOR_BATCH: usize = 256;

/// A book with everything stored with it, for [`BookStore::put_book`].
#[derive(Debug, Clone, Copy)]
pub struct BookWrite<'a> {
    /// The book's record.
    pub book: &'a Book,
    /// Its passages, in order.
    pub chunks: &'a [Chunk],
    /// One vector per chunk, or none (dimension 0) for a book searched lexically.
    pub vectors: &'a StoredVectors,
    /// Its vector index, if one was built.
    pub index_snapshot: Option<&'a [u8]>,
    /// Its lexical index (bytes of `retrieval::lexical::encode`), if built.
    pub lexical_index: Option<&'a [u8]>,
    /// The text the reader shows (`Library::page`).
    pub pages: &'a [Page],
}

impl<'a> BookWrite<'a> {
    /// A book with its chunks and vectors and nothing else stored with it (no
    /// index snapshot, lexical index or pages); set those with `..`.
    pub fn new(book: &'a Book, chunks: &'a [Chunk], vectors: &'a StoredVectors) -> Self {
        BookWrite {
            book,
            chunks,
            vectors,
            index_snapshot: None,
            lexical_index: None,
            pages: &[],
        }
    }
}

/// Persistent books.
pub trait BookStore {
    /// Saves a book with all its content in one atomic step: after a crash
    /// either the whole book is there or none of it.
    fn put_book<'a>(&'a self, new: BookWrite<'a>) -> LocalBoxFuture<'a, Result<()>>;

    /// Page `number` of book `id`, if stored; `NotFound` if the book does not exist.
    fn page<'a>(&'a self, id: &'a str, number: u32) -> LocalBoxFuture<'a, Result<Option<Page>>>;

    /// Every stored page of book `id`, in order (none for a book stored
    /// before pages were kept); `NotFound` if the book does not exist.
    fn book_pages<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Page>>>;

    /// The book with this id, if any.
    fn book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Book>>>;

    /// Every book, oldest first.
    fn books(&self) -> LocalBoxFuture<'_, Result<Vec<Book>>>;

    /// Replaces a book's record (its current page); `NotFound` if it does not exist.
    fn update_book<'a>(&'a self, book: &'a Book) -> LocalBoxFuture<'a, Result<()>>;

    /// A book's chunks in order and its vectors; `NotFound` if it does not exist.
    fn book_content<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(Vec<Chunk>, StoredVectors)>>;

    /// Gives book `id`, stored without vectors (`dimensions` 0), its
    /// `vectors` (one per chunk, by `embedder`) and records both on its
    /// record, in one atomic step: the updated book. `None`, nothing
    /// written, if it has vectors already (another tab was first);
    /// `NotFound` if it does not exist.
    fn put_vectors<'a>(
        &'a self,
        id: &'a str,
        embedder: &'a str,
        vectors: &'a StoredVectors,
    ) -> LocalBoxFuture<'a, Result<Option<Book>>>;

    /// A book's index snapshot, if the book exists and one was saved.
    fn index_snapshot<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>>;

    /// Saves (or replaces) a book's index snapshot; `NotFound` if the book does not exist.
    fn put_index_snapshot<'a>(&'a self, id: &'a str, snapshot: &'a [u8]) -> LocalBoxFuture<'a, Result<()>>;

    /// A book's stored lexical index (bytes of `retrieval::lexical::encode`),
    /// if the book exists and one was saved (books stored before lexical
    /// search have none).
    fn lexical_index<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>>;

    /// Saves (or replaces) a book's lexical index; `NotFound` if the book does not exist.
    fn put_lexical_index<'a>(&'a self, id: &'a str, bytes: &'a [u8]) -> LocalBoxFuture<'a, Result<()>>;

    /// Deletes a book with its chunks, vectors, indexes and pages; `NotFound` if it does not exist.
    fn delete_book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>>;
}
