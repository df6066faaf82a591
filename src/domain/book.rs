//! A book as Lectern keeps it.

use serde::Serialize;

use super::StoredVectors;
use crate::json::from_json::FromJson;

/// [`Book::embedder`] of a book ingested without an embedder: it has no
/// vectors and is searched lexically (BM25) only.
pub const NO_EMBEDDER: &str = "none";

/// Whether `id` can be a host's book id: 1 to 64 of `A-Z a-z 0-9 - _` (the
/// same book added on two devices under one id is one book to sync).
pub fn is_book_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A stored book.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Book {
    /// Unique, time-ordered id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Author, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Number of pages.
    pub page_count: u32,
    /// Number of chunks (retrieval passages).
    pub chunk_count: u32,
    /// The reader's page: `search_book` never returns text past it.
    pub current_page: u32,
    /// The embedding model its vectors came from, or [`NO_EMBEDDER`] for a
    /// book searched lexically only.
    pub embedder: String,
    /// The vectors' dimension (0 without vectors).
    pub dimensions: u32,
    /// Chapter titles in order, if the book has chapters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chapters: Vec<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: f64,
}

impl Book {
    /// Whether the book has vectors (`dimensions` > 0). One without is
    /// searched lexically whatever the mode, and a library with an embedder
    /// computes them ([`crate::retrieval::library::Library::embed_pending`]).
    pub fn has_vectors(&self) -> bool {
        self.dimensions > 0
    }

    /// Whether the book was stored to be searched lexically at once while
    /// its vectors are computed: an embedder is named but there are no
    /// vectors yet.
    pub fn awaits_vectors(&self) -> bool {
        !self.has_vectors() && self.embedder != NO_EMBEDDER
    }

    /// Records that `vectors`, by `embedder`, are now the book's.
    pub fn record_vectors(&mut self, embedder: &str, vectors: &StoredVectors) {
        self.embedder = embedder.to_owned();
        self.dimensions = vectors.dims() as u32;
    }
}
