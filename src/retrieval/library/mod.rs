//! The library: adding, listing and deleting books, and the one search path
//! that `lectern.search` and the `search_book` tool share.

mod bundle;
pub mod loaded_book;
pub mod page_bound;
mod pages;
pub mod search;
pub mod search_mode;
pub mod search_options;
mod vectors;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::domain::Chunk;
use crate::domain::{is_book_id, Book, NO_EMBEDDER};
use crate::error::{Error, Result};
use crate::retrieval::embed::Embedder;
use crate::retrieval::index::builder::{IndexBuilder, NoIndexBuilder};
use crate::retrieval::index::settings::IndexSettings;
use crate::retrieval::index::{BuiltIndex, VectorIndex};
pub use crate::retrieval::ingest::new_book::{BookSource, IngestProgress, NewBook};
use crate::retrieval::ingest::prepare::{prepare_book, Pace, PreparedBook, Unpaced};
use crate::retrieval::lexical::{encode as lexical_bytes, LexicalIndex};
use crate::retrieval::library::loaded_book::with_index;
pub use crate::retrieval::library::loaded_book::{
    search_book_lexical, search_book_vectors, IndexSource, LoadedBook, QUANTIZED_MIN_VECTORS,
};
use crate::retrieval::library::search_mode::SearchMode;
pub use crate::retrieval::library::search_options::{SearchOptions, SearchResult};
use crate::retrieval::text::chunk::ChunkSettings;
use crate::retrieval::vectors::vector::VectorSet;
use crate::runtime::cancel::CancelToken;
use crate::runtime::ids::new_id;
use crate::runtime::time::Clock;
use crate::storage::{BookStore, BookWrite};

/// Books, their vectors and lexical indexes, and the search over them.
pub struct Library {
    pub(super) store: Rc<dyn BookStore>,
    pub(super) embedder: Option<Rc<dyn Embedder>>,
    clock: Rc<dyn Clock>,
    chunking: ChunkSettings,
    indexing: IndexSettings,
    index_builder: RefCell<Rc<dyn IndexBuilder>>,
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
        Library::with_embedder(store, Some(embedder), clock, chunking)
    }

    /// A library over `store` without an embedder: its books get no
    /// vectors and are searched lexically (BM25).
    pub fn without_embedder(store: Rc<dyn BookStore>, clock: Rc<dyn Clock>, chunking: ChunkSettings) -> Self {
        Library::with_embedder(store, None, clock, chunking)
    }

    /// A library over `store`, embedding with `embedder` if there is one.
    pub fn with_embedder(
        store: Rc<dyn BookStore>,
        embedder: Option<Rc<dyn Embedder>>,
        clock: Rc<dyn Clock>,
        chunking: ChunkSettings,
    ) -> Self {
        Library {
            store,
            embedder,
            clock,
            chunking,
            indexing: IndexSettings::default(),
            index_builder: RefCell::new(Rc::new(NoIndexBuilder)),
            loaded: RefCell::new(HashMap::new()),
        }
    }

    /// Who builds missing indexes from now on ([`NoIndexBuilder`] at first).
    pub fn set_index_builder(&self, builder: Rc<dyn IndexBuilder>) {
        *self.index_builder.borrow_mut() = builder;
    }

    /// The library with `builder` building its missing indexes.
    pub fn with_index_builder(self, builder: Rc<dyn IndexBuilder>) -> Self {
        self.set_index_builder(builder);
        self
    }

    /// Uses these index settings for books built from now on.
    pub fn with_index_settings(mut self, settings: IndexSettings) -> Self {
        self.indexing = settings;
        self
    }

    /// The embedding model books are ingested and searched with
    /// ([`NO_EMBEDDER`] without one).
    pub fn embedder_model(&self) -> &str {
        self.embedder.as_deref().map_or(NO_EMBEDDER, |e| e.model())
    }

    /// How a search ranks without a `mode`: `hybrid` with a semantic
    /// embedder, `semantic` with the hashed one (as before lexical search),
    /// `lexical` without an embedder.
    pub fn default_mode(&self) -> SearchMode {
        match self.embedder.as_deref() {
            Some(e) if e.is_semantic() => SearchMode::Hybrid,
            Some(_) => SearchMode::Semantic,
            None => SearchMode::Lexical,
        }
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
            self.embedder.as_deref(),
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

    /// The id a new book is stored under: `chosen` when the host gave one
    /// (1 to 64 of `A-Z a-z 0-9 - _`, else a `Config` error: the same book
    /// added on two devices under one id is one book to sync), else a new one.
    pub fn book_id_for(&self, chosen: Option<&str>) -> Result<String> {
        let Some(id) = chosen else {
            return Ok(self.new_book_id());
        };
        if !is_book_id(id) {
            return Err(Error::config(format!(
                "a book id is 1 to 64 of A-Z a-z 0-9 - _, not {id:?}"
            )));
        }
        Ok(id.to_owned())
    }

    /// How chunks are cut.
    pub fn chunking(&self) -> &ChunkSettings {
        &self.chunking
    }

    /// How indexes are built, and for which books.
    pub fn indexing(&self) -> IndexSettings {
        self.indexing
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
            lexical,
            pages,
        } = prepared;
        let book = Book {
            id: id.clone(),
            title,
            author,
            page_count,
            chunk_count: chunks.len() as u32,
            current_page: 1,
            embedder: self.embedder_model().to_owned(),
            dimensions: vectors.dims() as u32,
            chapters: chapters_of(&chunks),
            created_at: self.clock.now_ms(),
        };
        let (index, snapshot) = index.unzip();
        let lexical_stored = lexical_bytes::encode(&lexical);
        self.store
            .put_book(BookWrite {
                book: &book,
                chunks: &chunks,
                vectors: vectors.rows(),
                index_snapshot: snapshot.as_deref(),
                lexical_index: Some(&lexical_stored),
                pages: &pages,
            })
            .await?;
        let index_source = match &index {
            Some(_) => IndexSource::Built,
            None => self.without_index(vectors.len()),
        };
        let loaded = LoadedBook::with_lexical(book.clone(), chunks, vectors, lexical, (index, index_source))
            .with_index_min(self.indexing.min_vectors);
        self.loaded.borrow_mut().insert(id, Rc::new(loaded));
        Ok(book)
    }

    /// The index of `vectors` and its snapshot, if the builder builds here
    /// and there are enough vectors.
    fn build_here(&self, vectors: &VectorSet) -> Option<BuiltIndex> {
        let builder = self.index_builder.borrow().clone();
        builder.build_now(vectors, self.indexing)
    }

    /// The source of a book of `count` vectors with no usable index: built
    /// elsewhere when it is big enough and someone can, else none.
    fn without_index(&self, count: usize) -> IndexSource {
        if count >= self.indexing.min_vectors && self.index_builder.borrow().builds_later() {
            IndexSource::Building
        } else {
            IndexSource::None
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

    /// Forgets the loaded copy of book `id`: the next use reads it from the store.
    pub(super) fn unload(&self, id: &str) {
        self.loaded.borrow_mut().remove(id);
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
        check_page_number(&book, page)?;
        book.current_page = page;
        self.store.update_book(&book).await?;
        Ok(book)
    }

    /// The book ready to search: from memory, else from the store with its
    /// lexical index (if missing or unreadable: built from its chunks and
    /// saved) and its index snapshot (if missing or unreadable: built and
    /// saved here, or left to be built elsewhere, per the [`IndexBuilder`]).
    pub async fn load(&self, id: &str) -> Result<Rc<LoadedBook>> {
        if let Some(loaded) = self.loaded.borrow().get(id) {
            return Ok(loaded.clone());
        }
        let book = self.book(id).await?;
        let (chunks, rows) = self.store.book_content(id).await?;
        let vectors = VectorSet::from(rows);
        if book.dimensions > 0 && vectors.len() != chunks.len() {
            return Err(Error::storage(format!(
                "book {id} has {} vectors for {} chunks",
                vectors.len(),
                chunks.len()
            )));
        }
        let lexical = self.load_lexical(id, &chunks).await?;
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
            LoadedBook::with_lexical(book, chunks, vectors, lexical, (index, index_source))
                .with_index_min(self.indexing.min_vectors),
        );
        self.loaded.borrow_mut().insert(id.to_owned(), loaded.clone());
        Ok(loaded)
    }

    /// A stored book's lexical index: read, or — none stored (a book from
    /// before lexical search), another version, or corrupt — built from its
    /// chunks (the truth; it takes milliseconds) and saved.
    pub(super) async fn load_lexical(&self, id: &str, chunks: &[Chunk]) -> Result<LexicalIndex> {
        let stored = self.store.lexical_index(id).await?;
        if let Some(Ok(index)) = stored.map(|bytes| lexical_bytes::decode(&bytes, chunks.len())) {
            return Ok(index);
        }
        let index = LexicalIndex::build(chunks.iter().map(|c| c.text.as_str()));
        self.store
            .put_lexical_index(id, &lexical_bytes::encode(&index))
            .await?;
        Ok(index)
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

/// A `ConfigError` unless `page` is within the book's `1..=page_count`.
pub(super) fn check_page_number(book: &Book, page: u32) -> Result<()> {
    if page == 0 || page > book.page_count {
        return Err(Error::config(format!(
            "page must be within 1..={}, got {page}",
            book.page_count
        )));
    }
    Ok(())
}
