//! The one search path that `lectern.search`, the `search_book` tool and
//! `alwaysRetrieve` share: lexical, semantic or hybrid, page-bounded.

use std::rc::Rc;

use crate::error::{Error, Result};
use crate::retrieval::embed::Embedder;
use crate::retrieval::library::loaded_book::LoadedBook;
use crate::retrieval::library::search_mode::{search_book, SearchMode};
use crate::retrieval::library::search_options::{SearchOptions, SearchResult};
use crate::retrieval::library::Library;
use crate::retrieval::vectors::vector::normalize;
use crate::runtime::cancel::CancelToken;

impl Library {
    /// The `k` passages that best match `query` among the chosen books, best
    /// first, ranked as `options.mode` says ([`Library::default_mode`]).
    ///
    /// With `max_page`, every result ends on or before it, and there are
    /// exactly `min(k, eligible chunks)` of them (lexically: of eligible
    /// chunks holding a query term). `semantic` and `hybrid` need an
    /// embedder (else a `ConfigError`) that embedded the books (else an
    /// `EmbedderMismatch`); `lexical` searches any book. While one of the
    /// books has no vectors (its embedder's are being computed, or it was
    /// stored without one), the search is lexical whatever the mode.
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
        let mode = options.mode.unwrap_or_else(|| self.default_mode());
        let embedder = match mode {
            SearchMode::Lexical => None,
            _ => Some(self.embedder.as_deref().ok_or_else(|| {
                Error::config(format!(
                    "mode '{}' needs vectors, but this Lectern has no embedder (option embedder); use mode 'lexical'",
                    mode.name()
                ))
            })?),
        };
        let books = self.books_to_search(options, embedder).await?;
        if books.is_empty() || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        // A book without vectors (yet) is searched lexically, and so are the
        // others beside it, so that every score is a BM25 score.
        let (mode, embedder) = match books.iter().any(|b| !b.book.has_vectors()) {
            true => (SearchMode::Lexical, None),
            false => (mode, embedder),
        };
        let vector = match embedder {
            Some(embedder) => Some(self.query_vector(embedder, query, &books, cancel).await?),
            None => None,
        };
        let mut results = Vec::new();
        for loaded in &books {
            let hits = search_book(loaded, query, vector.as_deref(), mode, k, options.max_page);
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

    /// The chosen books, loaded; with an `embedder`, each must have been embedded by it.
    async fn books_to_search(
        &self,
        options: &SearchOptions,
        embedder: Option<&dyn Embedder>,
    ) -> Result<Vec<Rc<LoadedBook>>> {
        let ids = match &options.book_ids {
            Some(ids) => ids.clone(),
            None => self.books().await?.into_iter().map(|b| b.id).collect(),
        };
        let mut books = Vec::with_capacity(ids.len());
        for id in &ids {
            let loaded = self.load(id).await?;
            let embedded_by_other =
                |e: &dyn Embedder| loaded.book.has_vectors() && loaded.book.embedder != e.model();
            if let Some(embedder) = embedder.filter(|e| embedded_by_other(*e)) {
                return Err(Error::EmbedderMismatch {
                    message: format!(
                        "book {id} was embedded with {:?}, but this Lectern embeds with {:?}",
                        loaded.book.embedder,
                        embedder.model()
                    ),
                });
            }
            books.push(loaded);
        }
        Ok(books)
    }

    /// `query`'s unit vector, of the books' dimension.
    async fn query_vector(
        &self,
        embedder: &dyn Embedder,
        query: &str,
        books: &[Rc<LoadedBook>],
        cancel: &CancelToken,
    ) -> Result<Vec<f32>> {
        let mut embedded = cancel.run(embedder.embed(&[query.to_owned()], cancel)).await?;
        let mut vector = embedded
            .pop()
            .ok_or_else(|| Error::protocol("the embedder returned no vector"))?;
        normalize(&mut vector);
        if let Some(book) = books.iter().find(|b| b.vectors.dims() != vector.len()) {
            return Err(Error::EmbedderMismatch {
                message: format!(
                    "the query vector has {} dimensions, book {} has {}",
                    vector.len(),
                    book.book.id,
                    book.vectors.dims()
                ),
            });
        }
        Ok(vector)
    }
}
