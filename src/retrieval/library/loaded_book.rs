//! A book in memory, ready to search, and the one page-bounded search over
//! it: through its HNSW index when enough chunks are eligible, else exact.

use std::rc::Rc;

use crate::domain::Book;
use crate::domain::Chunk;
use crate::retrieval::index::settings::INDEX_MIN_VECTORS;
use crate::retrieval::index::VectorIndex;
use crate::retrieval::lexical::bm25::{self, Eligible};
use crate::retrieval::lexical::LexicalIndex;
use crate::retrieval::library::page_bound::{eligible_prefix, ends_ascending};
use crate::retrieval::vectors::scan::{quantized_top_k, scan_top_k, RERANK_FACTOR};
use crate::retrieval::vectors::vector::{exact_top_k, Hit, VectorSet};

/// An exact search over at least this many vectors scans their int8 copy
/// and re-ranks its best candidates in f32; smaller ones scan f32 alone.
pub const QUANTIZED_MIN_VECTORS: usize = 256;

/// How a loaded book's index came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexSource {
    /// None: searched exactly (too small for one, or none can be built).
    None,
    /// Built now.
    Built,
    /// Being built (in the ingestion worker): searched exactly until it is ready.
    Building,
    /// Read from the stored snapshot.
    Snapshot,
}

/// A book in memory, ready to search.
pub struct LoadedBook {
    /// The record.
    pub book: Book,
    /// Its chunks.
    pub chunks: Vec<Chunk>,
    /// Their vectors, in chunk order (none for a book searched lexically only).
    pub vectors: VectorSet,
    /// The inverted index of its chunks, for BM25.
    pub lexical: LexicalIndex,
    /// The HNSW index, if the book is big enough.
    pub index: Option<VectorIndex>,
    /// Where the index came from.
    pub index_source: IndexSource,
    /// Whether the chunks' end pages never decrease (a page bound is then a prefix).
    ends_ascending: bool,
    /// Searches with at least this many eligible chunks use the index.
    index_min: usize,
}

impl LoadedBook {
    /// A book ready to search (`vectors` in chunk order), its lexical index
    /// built from its chunks.
    pub fn new(
        book: Book,
        chunks: Vec<Chunk>,
        vectors: VectorSet,
        index: Option<VectorIndex>,
        index_source: IndexSource,
    ) -> Self {
        let lexical = LexicalIndex::build(chunks.iter().map(|c| c.text.as_str()));
        LoadedBook::with_lexical(book, chunks, vectors, lexical, (index, index_source))
    }

    /// A book ready to search with this lexical index (of `chunks`).
    pub fn with_lexical(
        book: Book,
        chunks: Vec<Chunk>,
        vectors: VectorSet,
        lexical: LexicalIndex,
        (index, index_source): (Option<VectorIndex>, IndexSource),
    ) -> Self {
        LoadedBook {
            ends_ascending: ends_ascending(&chunks),
            book,
            chunks,
            vectors,
            lexical,
            index,
            index_source,
            index_min: INDEX_MIN_VECTORS,
        }
    }

    /// Uses the index for searches with at least `min` eligible chunks
    /// (default [`INDEX_MIN_VECTORS`]).
    pub fn with_index_min(self, min: usize) -> Self {
        LoadedBook {
            index_min: min,
            ..self
        }
    }
}

/// Top `k` of one book under a page bound: the index when it has enough
/// eligible candidates, else an exact scan of the eligible chunks. These
/// are a prefix of the chunks (found by binary search) unless the chunks'
/// pages are out of order, when each is checked.
pub fn search_book_vectors(loaded: &LoadedBook, query: &[f32], k: usize, max_page: Option<u32>) -> Vec<Hit> {
    let Some(count) = eligible_prefix(&loaded.chunks, loaded.ends_ascending, max_page) else {
        return search_filtered(loaded, query, k, max_page);
    };
    if let Some(index) = loaded.index.as_ref().filter(|_| count >= loaded.index_min) {
        if let Some(hits) = index.search(&loaded.vectors, query, k, |i| i < count) {
            return hits;
        }
    }
    if count >= QUANTIZED_MIN_VECTORS {
        quantized_top_k(&loaded.vectors, query, k, count, RERANK_FACTOR)
    } else {
        scan_top_k(&loaded.vectors, query, k, count)
    }
}

/// The top `k` chunks of one book by BM25 under a page bound: every eligible
/// chunk holding a query term, up to `k`, ranked with the statistics of the
/// eligible chunks alone (see [`bm25`]).
pub fn search_book_lexical(loaded: &LoadedBook, query: &str, k: usize, max_page: Option<u32>) -> Vec<Hit> {
    match eligible_prefix(&loaded.chunks, loaded.ends_ascending, max_page) {
        Some(count) => bm25::search(&loaded.lexical, query, k, Eligible::Prefix(count)),
        None => {
            let eligible = |i: usize| max_page.is_none_or(|max| loaded.chunks[i].end_page <= max);
            bm25::search(&loaded.lexical, query, k, Eligible::Filter(&eligible))
        }
    }
}

/// [`search_book_vectors`] for chunks whose pages are out of order.
fn search_filtered(loaded: &LoadedBook, query: &[f32], k: usize, max_page: Option<u32>) -> Vec<Hit> {
    let eligible = |i: usize| max_page.is_none_or(|max| loaded.chunks[i].end_page <= max);
    let eligible_count = (0..loaded.chunks.len()).filter(|&i| eligible(i)).count();
    if let Some(index) = loaded
        .index
        .as_ref()
        .filter(|_| eligible_count >= loaded.index_min)
    {
        if let Some(hits) = index.search(&loaded.vectors, query, k, eligible) {
            return hits;
        }
    }
    exact_top_k(&loaded.vectors, query, k, eligible)
}

/// `book` with this index: its content moved, or copied while a search still holds it.
pub(in crate::retrieval) fn with_index(
    book: Rc<LoadedBook>,
    index: Option<VectorIndex>,
    index_source: IndexSource,
) -> LoadedBook {
    let book = Rc::try_unwrap(book).unwrap_or_else(|shared| {
        let (book, chunks, vectors) = (shared.book.clone(), shared.chunks.clone(), shared.vectors.clone());
        let lexical = shared.lexical.clone();
        LoadedBook::with_lexical(book, chunks, vectors, lexical, (None, IndexSource::None))
            .with_index_min(shared.index_min)
    });
    LoadedBook {
        index,
        index_source,
        ..book
    }
}
