//! The library: adding, listing and deleting books, and the one search path
//! that `lectern.search` and the `search_book` tool share.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::book::Book;
use super::chunk::{Chunk, ChunkSettings};
use super::embed::Embedder;
use super::index::{build_index, BuiltIndex, IndexSettings, VectorIndex};
use super::page_bound::{eligible_prefix, ends_ascending};
use super::pages::Page;
use super::prepare::{prepare_book, Pace, PreparedBook, Unpaced};
use super::scan::{quantized_top_k, scan_top_k, RERANK_FACTOR};
use super::vector::{exact_top_k, normalize, Hit, VectorSet};
use crate::cancel::CancelToken;
use crate::error::{Error, Result};
use crate::ids::new_id;
use crate::storage::BookStore;
use crate::time::Clock;

/// Books smaller than this get no index, and searches with fewer eligible
/// chunks are exact (the default of [`IndexSettings::min_vectors`], option
/// `retrieval.indexMinChunks`). Measured (`npm run bench`, MiniLM vectors,
/// k = 10, p50, ef 128), exact against index in headless Chromium: 0.040 /
/// 0.100 ms at 1,024 vectors, 0.080 / 0.135 at 2,048, 0.150 / 0.175 at
/// 4,096, 0.320 / 0.220 at 8,192 (natively 0.043 / 0.070, 0.082 / 0.086,
/// 0.161 / 0.109, 0.327 / 0.148): in the page the index starts to win at
/// about 5,000 vectors, so smaller books are not worth its build and memory.
pub const INDEX_MIN_VECTORS: usize = 8192;

/// An exact search over at least this many vectors scans their int8 copy
/// and re-ranks its best candidates in f32; smaller ones scan f32 alone.
pub const QUANTIZED_MIN_VECTORS: usize = 256;

/// What a book is made from.
#[derive(Debug, Clone, PartialEq)]
pub enum BookSource {
    /// Plain text (pages from form feeds, `[[page N]]` markers, or made).
    Text(String),
    /// One string per page.
    Pages(Vec<String>),
    /// Pages already cut, possibly with chapter titles.
    Prepared(Vec<Page>),
    /// The bytes of an EPUB file.
    Epub(Vec<u8>),
}

/// A book to add.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBook {
    /// Title (required, non-empty).
    pub title: String,
    /// Author.
    pub author: Option<String>,
    /// The content.
    pub source: BookSource,
}

/// Where ingestion is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestProgress {
    /// The book being added.
    pub book_id: String,
    /// `chunking`, `embedding` or `indexing`.
    pub phase: &'static str,
    /// Units done.
    pub done: usize,
    /// Units in all.
    pub total: usize,
}

/// Options of a search.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchOptions {
    /// Only these books (default: all).
    #[serde(default)]
    pub book_ids: Option<Vec<String>>,
    /// How many results (default 5).
    #[serde(default)]
    pub k: Option<usize>,
    /// No result may end after this page.
    #[serde(default)]
    pub max_page: Option<u32>,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// The book.
    pub book_id: String,
    /// The chunk's position in the book.
    pub ordinal: u32,
    /// The passage.
    pub text: String,
    /// First page.
    pub start_page: u32,
    /// Last page.
    pub end_page: u32,
    /// Its chapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chapter: Option<String>,
    /// Cosine similarity to the query.
    pub score: f32,
}

/// Where a book's missing index is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexBuilds {
    /// On the calling thread, when a book is added or loaded without a
    /// usable snapshot (the default natively; never in a browser, where one
    /// synchronous build would freeze the page).
    #[cfg(not(target_arch = "wasm32"))]
    #[default]
    Here,
    /// Elsewhere (the browser's ingestion worker): such a book is searched
    /// exactly, [`IndexSource::Building`], until [`Library::attach_snapshot`]
    /// gives it one or [`Library::forgo_index`] gives up.
    Elsewhere,
    /// Never: such a book is searched exactly ([`IndexSource::None`]); a
    /// page without a worker (the default in wasm).
    #[cfg_attr(target_arch = "wasm32", default)]
    Never,
}

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
    /// Their vectors, in chunk order.
    pub vectors: VectorSet,
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
    /// A book ready to search (`vectors` in chunk order).
    pub fn new(
        book: Book,
        chunks: Vec<Chunk>,
        vectors: VectorSet,
        index: Option<VectorIndex>,
        index_source: IndexSource,
    ) -> Self {
        LoadedBook {
            ends_ascending: ends_ascending(&chunks),
            book,
            chunks,
            vectors,
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

/// Books, their vectors and the search over them.
pub struct Library {
    store: Rc<dyn BookStore>,
    embedder: Rc<dyn Embedder>,
    clock: Rc<dyn Clock>,
    chunking: ChunkSettings,
    indexing: IndexSettings,
    index_builds: Cell<IndexBuilds>,
    loaded: RefCell<HashMap<String, Rc<LoadedBook>>>,
}

impl Library {
    /// A library over `store`, embedding with `embedder`.
    pub fn new(
        store: Rc<dyn BookStore>,
        embedder: Rc<dyn Embedder>,
        clock: Rc<dyn Clock>,
        chunking: ChunkSettings,
    ) -> Self {
        Library {
            store,
            embedder,
            clock,
            chunking,
            indexing: IndexSettings::default(),
            index_builds: Cell::new(IndexBuilds::default()),
            loaded: RefCell::new(HashMap::new()),
        }
    }

    /// Where missing indexes are built from now on ([`IndexBuilds::default`] at first).
    pub fn set_index_builds(&self, builds: IndexBuilds) {
        self.index_builds.set(builds);
    }

    /// Where missing indexes are built.
    pub fn index_builds(&self) -> IndexBuilds {
        self.index_builds.get()
    }

    /// Uses these index settings for books built from now on.
    pub fn with_index_settings(mut self, settings: IndexSettings) -> Self {
        self.indexing = settings;
        self
    }

    /// The embedding model books are ingested and searched with.
    pub fn embedder_model(&self) -> &str {
        self.embedder.model()
    }

    /// Adds a book: pages, chunks, embeddings, index, then one atomic write.
    /// Cancelling (or any failure) before that write leaves nothing behind.
    pub async fn add_book(
        &self,
        new: NewBook,
        progress: &dyn Fn(IngestProgress),
        cancel: &CancelToken,
    ) -> Result<Book> {
        self.add_book_paced(new, progress, cancel, &Unpaced).await
    }

    /// [`Library::add_book`], awaiting `pace` between units of work.
    pub async fn add_book_paced(
        &self,
        new: NewBook,
        progress: &dyn Fn(IngestProgress),
        cancel: &CancelToken,
        pace: &dyn Pace,
    ) -> Result<Book> {
        let id = self.new_book_id();
        let prepared = prepare_book(
            id,
            new,
            &self.chunking,
            self.embedder.as_ref(),
            progress,
            cancel,
            pace,
        )
        .await?;
        let report = |done| {
            progress(IngestProgress {
                book_id: prepared.id.clone(),
                phase: "indexing",
                done,
                total: 1,
            })
        };
        report(0);
        pace.pause().await;
        let index = self.build_here(&prepared.vectors);
        report(1);
        cancel.check()?;
        self.store_prepared(prepared, index, cancel).await
    }

    /// A new, time-ordered book id.
    pub fn new_book_id(&self) -> String {
        new_id(self.clock.now_ms())
    }

    /// How chunks are cut.
    pub fn chunking(&self) -> &ChunkSettings {
        &self.chunking
    }

    /// How indexes are built, and for which books.
    pub fn indexing(&self) -> IndexSettings {
        self.indexing
    }

    /// The HNSW index of `vectors` and its snapshot, if there are enough vectors for one.
    pub fn build_index(&self, vectors: &VectorSet) -> Option<BuiltIndex> {
        build_index(vectors, self.indexing)
    }

    /// Stores a prepared book with its index and the index's snapshot in one
    /// atomic write, then keeps it loaded. Nothing is written once `cancel` tripped.
    pub async fn store_prepared(
        &self,
        prepared: PreparedBook,
        index: Option<BuiltIndex>,
        cancel: &CancelToken,
    ) -> Result<Book> {
        cancel.check()?;
        let PreparedBook {
            id,
            title,
            author,
            page_count,
            chunks,
            vectors,
        } = prepared;
        let book = Book {
            id: id.clone(),
            title,
            author,
            page_count,
            chunk_count: chunks.len() as u32,
            current_page: 1,
            embedder: self.embedder.model().to_owned(),
            dimensions: vectors.dims() as u32,
            chapters: chapters_of(&chunks),
            created_at: self.clock.now_ms(),
        };
        let (index, snapshot) = index.unzip();
        self.store
            .put_book(&book, &chunks, &vectors, snapshot.as_deref())
            .await?;
        let index_source = match &index {
            Some(_) => IndexSource::Built,
            None => self.without_index(vectors.len()),
        };
        let loaded = LoadedBook::new(book.clone(), chunks, vectors, index, index_source)
            .with_index_min(self.indexing.min_vectors);
        self.loaded.borrow_mut().insert(id, Rc::new(loaded));
        Ok(book)
    }

    /// The index of `vectors` and its snapshot, if indexes are built here and
    /// there are enough vectors. (Not compiled into wasm, which never builds
    /// on the calling thread: the page's module leaves the builder out.)
    fn build_here(&self, vectors: &VectorSet) -> Option<BuiltIndex> {
        #[cfg(not(target_arch = "wasm32"))]
        if self.index_builds() == IndexBuilds::Here {
            return self.build_index(vectors);
        }
        let _ = vectors;
        None
    }

    /// The source of a book of `count` vectors with no usable index: built
    /// elsewhere when it is big enough and someone can, else none.
    fn without_index(&self, count: usize) -> IndexSource {
        match self.index_builds() {
            IndexBuilds::Elsewhere if count >= self.indexing.min_vectors => IndexSource::Building,
            _ => IndexSource::None,
        }
    }

    /// Gives up a loaded book's [`IndexSource::Building`] index (its builder
    /// cannot run): it is searched exactly, [`IndexSource::None`], until the
    /// next load. False if the book was not waiting for one.
    pub fn forgo_index(&self, id: &str) -> bool {
        let mut loaded = self.loaded.borrow_mut();
        if !loaded
            .get(id)
            .is_some_and(|b| b.index_source == IndexSource::Building)
        {
            return false;
        }
        if let Some(book) = loaded.remove(id) {
            loaded.insert(id.to_owned(), Rc::new(with_index(book, None, IndexSource::None)));
        }
        true
    }

    /// Gives a loaded book whose index was [`IndexSource::Building`] the
    /// index of `snapshot` (built elsewhere): saves it, then searches with it.
    /// False (and nothing kept) if the book is no longer loaded and waiting,
    /// i.e. it was deleted meanwhile; an error for a snapshot that is not its.
    pub async fn attach_snapshot(&self, id: &str, snapshot: &[u8]) -> Result<bool> {
        let waiting = self
            .loaded
            .borrow()
            .get(id)
            .filter(|b| b.index_source == IndexSource::Building)
            .map(|b| b.vectors.len());
        let Some(count) = waiting else {
            return Ok(false);
        };
        let index = VectorIndex::from_snapshot(snapshot, count)?;
        self.store.put_index_snapshot(id, snapshot).await?;
        let Some(book) = self.loaded.borrow_mut().remove(id) else {
            // Deleted while the snapshot was written: delete again, snapshot and all.
            self.store.delete_book(id).await?;
            return Ok(false);
        };
        let loaded = with_index(book, Some(index), IndexSource::Built);
        self.loaded.borrow_mut().insert(id.to_owned(), Rc::new(loaded));
        Ok(true)
    }

    /// Every book, oldest first.
    pub async fn books(&self) -> Result<Vec<Book>> {
        self.store.books().await
    }

    /// The book with this id; `NotFound` if there is none.
    pub async fn book(&self, id: &str) -> Result<Book> {
        self.store
            .book(id)
            .await?
            .ok_or_else(|| Error::not_found("book", id))
    }

    /// Deletes a book with its chunks, vectors and index.
    pub async fn delete_book(&self, id: &str) -> Result<()> {
        self.store.delete_book(id).await?;
        self.loaded.borrow_mut().remove(id);
        Ok(())
    }

    /// Moves the reader to `page` (1..=pageCount).
    pub async fn set_current_page(&self, id: &str, page: u32) -> Result<Book> {
        let mut book = self.book(id).await?;
        if page == 0 || page > book.page_count {
            return Err(Error::config(format!(
                "page must be within 1..={}, got {page}",
                book.page_count
            )));
        }
        book.current_page = page;
        self.store.update_book(&book).await?;
        Ok(book)
    }

    /// The book ready to search: from memory, else from the store with its
    /// index snapshot (if missing or unreadable: built and saved here, or
    /// left to be built elsewhere, per [`IndexBuilds`]).
    pub async fn load(&self, id: &str) -> Result<Rc<LoadedBook>> {
        if let Some(loaded) = self.loaded.borrow().get(id) {
            return Ok(loaded.clone());
        }
        let book = self.book(id).await?;
        let (chunks, vectors) = self.store.book_content(id).await?;
        let (index, index_source) = if vectors.len() < self.indexing.min_vectors {
            (None, IndexSource::None)
        } else {
            let stored = self.store.index_snapshot(id).await?;
            match stored.map(|bytes| VectorIndex::from_snapshot(&bytes, vectors.len())) {
                Some(Ok(index)) => (Some(index), IndexSource::Snapshot),
                // No snapshot, or one of another version, format or book, or
                // corrupt: rebuild (the stored vectors are the truth) and save
                // it, so the next open reads it — here, or elsewhere if so set.
                _ => match self.build_here(&vectors) {
                    Some((index, snapshot)) => {
                        self.store.put_index_snapshot(id, &snapshot).await?;
                        (Some(index), IndexSource::Built)
                    }
                    None => (None, self.without_index(vectors.len())),
                },
            }
        };
        let loaded = Rc::new(
            LoadedBook::new(book, chunks, vectors, index, index_source)
                .with_index_min(self.indexing.min_vectors),
        );
        self.loaded.borrow_mut().insert(id.to_owned(), loaded.clone());
        Ok(loaded)
    }

    /// The `k` passages most like `query` among the chosen books, best first.
    ///
    /// With `max_page`, every result ends on or before it, and there are
    /// exactly `min(k, eligible chunks)` of them: the index serves when it
    /// holds enough eligible candidates, exact search otherwise.
    pub async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
        cancel: &CancelToken,
    ) -> Result<Vec<SearchResult>> {
        let k = options.k.unwrap_or(5);
        if k == 0 || k > 100 {
            return Err(Error::config(format!("k must be within 1..=100, got {k}")));
        }
        let ids = match &options.book_ids {
            Some(ids) => ids.clone(),
            None => self.books().await?.into_iter().map(|b| b.id).collect(),
        };
        let mut books = Vec::with_capacity(ids.len());
        for id in &ids {
            let loaded = self.load(id).await?;
            if loaded.book.embedder != self.embedder.model() {
                return Err(Error::EmbedderMismatch {
                    message: format!(
                        "book {id} was embedded with {:?}, but this Lectern embeds with {:?}",
                        loaded.book.embedder,
                        self.embedder.model()
                    ),
                });
            }
            books.push(loaded);
        }
        if books.is_empty() || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut embedded = cancel
            .run(self.embedder.embed(&[query.to_owned()], cancel))
            .await?;
        let mut vector = embedded
            .pop()
            .ok_or_else(|| Error::protocol("the embedder returned no vector"))?;
        normalize(&mut vector);

        let mut results = Vec::new();
        for loaded in &books {
            if vector.len() != loaded.vectors.dims() {
                return Err(Error::EmbedderMismatch {
                    message: format!(
                        "the query vector has {} dimensions, book {} has {}",
                        vector.len(),
                        loaded.book.id,
                        loaded.vectors.dims()
                    ),
                });
            }
            let hits = search_book_vectors(loaded, &vector, k, options.max_page);
            results.extend(hits.into_iter().map(|hit| {
                let chunk = &loaded.chunks[hit.index];
                SearchResult {
                    book_id: loaded.book.id.clone(),
                    ordinal: chunk.ordinal,
                    text: chunk.text.clone(),
                    start_page: chunk.start_page,
                    end_page: chunk.end_page,
                    chapter: chunk.chapter.clone(),
                    score: hit.score,
                }
            }));
        }
        results.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.ordinal.cmp(&b.ordinal))
        });
        results.truncate(k);
        Ok(results)
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
fn with_index(book: Rc<LoadedBook>, index: Option<VectorIndex>, index_source: IndexSource) -> LoadedBook {
    let book = Rc::try_unwrap(book).unwrap_or_else(|shared| {
        let (book, chunks, vectors) = (shared.book.clone(), shared.chunks.clone(), shared.vectors.clone());
        LoadedBook::new(book, chunks, vectors, None, IndexSource::None).with_index_min(shared.index_min)
    });
    LoadedBook {
        index,
        index_source,
        ..book
    }
}

fn chapters_of(chunks: &[Chunk]) -> Vec<String> {
    let mut chapters: Vec<String> = Vec::new();
    for chapter in chunks.iter().filter_map(|c| c.chapter.as_ref()) {
        if chapters.last() != Some(chapter) {
            chapters.push(chapter.clone());
        }
    }
    chapters
}
