//! Books that open at once: stored with their pages, chunks and lexical
//! index first (searched with BM25 from then on), their vectors computed
//! afterwards and attached in one write. How the browser adds books, so a
//! reader never waits for an embedder.

use crate::domain::Book;
use crate::error::Result;
use crate::retrieval::ingest::prepare::{embed_all, prepare_book, Pace};
use crate::retrieval::library::{IngestProgress, Library, NewBook};
use crate::runtime::cancel::CancelToken;

impl Library {
    /// Adds a book searchable at once: pages, chunks and lexical index in
    /// one atomic write, no vectors. With an embedder, the stored book
    /// [`Book::awaits_vectors`] until [`Library::embed_pending`] computes
    /// them; every search treats it as lexical meanwhile.
    pub async fn add_book_lexical(
        &self,
        new: NewBook,
        progress: &dyn Fn(IngestProgress),
        cancel: &CancelToken,
        pace: &dyn Pace,
    ) -> Result<Book> {
        self.add_book_lexical_as(self.new_book_id(), new, progress, cancel, pace)
            .await
    }

    /// [`Library::add_book_lexical`] under `id` (from [`Library::book_id_for`]);
    /// an id already stored is a `Storage` error (reason `constraint`) and nothing is written.
    pub async fn add_book_lexical_as(
        &self,
        id: String,
        new: NewBook,
        progress: &dyn Fn(IngestProgress),
        cancel: &CancelToken,
        pace: &dyn Pace,
    ) -> Result<Book> {
        let prepared = prepare_book(id, new, self.chunking(), None, progress, cancel, pace).await?;
        self.store_prepared(prepared, None, cancel).await
    }

    /// Computes the vectors of book `id` if it has none — it
    /// [awaits them](Book::awaits_vectors), or was stored without an
    /// embedder — with this library's embedder, reporting `embedding`
    /// progress, and stores them with the book in one write; the next load
    /// searches with them (and builds its index as
    /// the library's [`IndexBuilder`](crate::retrieval::index::builder::IndexBuilder) says). `Ok(false)` if there is
    /// nothing to do: the book has vectors (perhaps another tab's, computed
    /// meanwhile) or this library has no embedder.
    pub async fn embed_pending(
        &self,
        id: &str,
        progress: &dyn Fn(IngestProgress),
        cancel: &CancelToken,
        pace: &dyn Pace,
    ) -> Result<bool> {
        let Some(embedder) = self.embedder.clone() else {
            return Ok(false);
        };
        let loaded = self.load(id).await?;
        if loaded.book.has_vectors() {
            return Ok(false);
        }
        let texts: Vec<String> = loaded.chunks.iter().map(|c| c.text.clone()).collect();
        drop(loaded);
        let report = |phase, done, total| {
            progress(IngestProgress {
                book_id: id.to_owned(),
                phase,
                done,
                total,
            })
        };
        let vectors = embed_all(embedder.as_ref(), &texts, &report, cancel, pace).await?;
        cancel.check()?;
        let stored = self
            .store
            .put_vectors(id, embedder.model(), vectors.rows())
            .await?;
        // Loaded again from the store: the vectors, and the index built or awaited.
        self.unload(id);
        report("embedding", texts.len(), texts.len());
        Ok(stored.is_some())
    }
}
