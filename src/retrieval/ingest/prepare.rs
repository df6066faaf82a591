//! Making a book ready to store, without touching storage: pages, chunks,
//! their lexical index and vectors. The same code runs in the page, natively, and in Lectern's
//! ingestion Web Worker; a [`Pace`] lets it hand the thread back now and then.

use futures::future::{ready, LocalBoxFuture};

use crate::retrieval::text::chunk::{ChunkSettings, Chunker};

use crate::domain::Chunk;
use crate::domain::Page;
use crate::error::{Error, Result};
use crate::retrieval::embed::Embedder;
use crate::retrieval::ingest::new_book::{BookSource, IngestProgress, NewBook};
use crate::retrieval::lexical::LexicalIndex;
use crate::retrieval::text::pages::{pages_from_list, pages_from_text};
use crate::retrieval::vectors::vector::{normalize, VectorSet};
use crate::runtime::cancel::CancelToken;

/// Pages chunked between two calls of [`Pace::pause`].
const PAGES_PER_STEP: usize = 4;

/// Chunks added to the lexical index between two calls of [`Pace::pause`].
const CHUNKS_PER_STEP: usize = 64;

/// Lets long work yield: `pause` is awaited between units of work and
/// decides itself whether to give the thread back.
pub trait Pace {
    /// Yields to the event loop if the work has run long enough.
    fn pause(&self) -> LocalBoxFuture<'_, ()>;
    /// The most texts a local (synchronous) embedder gets in one call, so
    /// that one call stays short; `None`: its own batch size.
    fn local_batch(&self) -> Option<usize> {
        None
    }
}

/// Never yields: native code and the worker, where nothing else waits.
pub struct Unpaced;

impl Pace for Unpaced {
    fn pause(&self) -> LocalBoxFuture<'_, ()> {
        Box::pin(ready(()))
    }
}

/// A book cut and embedded, not yet stored.
pub struct PreparedBook {
    /// Its id, chosen before the work began (progress reports carry it).
    pub id: String,
    /// Title, trimmed and non-empty.
    pub title: String,
    /// Author, if one was given.
    pub author: Option<String>,
    /// The number of its last page.
    pub page_count: u32,
    /// Its chunks, in order.
    pub chunks: Vec<Chunk>,
    /// Their unit vectors, in chunk order (none, dimension 0, without an embedder).
    pub vectors: VectorSet,
    /// The inverted index of their text, for BM25.
    pub lexical: LexicalIndex,
    /// Its pages, each with its chapter (from the source, else from its chunks).
    pub pages: Vec<Page>,
}

/// The pages of `source`.
fn pages_of(source: BookSource, page_chars: usize) -> Result<Vec<Page>> {
    Ok(match source {
        BookSource::Text(text) => pages_from_text(&text, page_chars),
        BookSource::Pages(pages) => pages_from_list(pages),
        BookSource::Prepared(pages) => pages,
        BookSource::Epub(bytes) => crate::retrieval::formats::epub::pages_from_epub(&bytes, page_chars)?,
    })
}

/// Pages, chunks, lexical index and vectors (with an embedder) of `new`,
/// reporting `chunking` and `embedding` progress under `id`; `Aborted` once
/// `cancel` trips.
pub async fn prepare_book(
    id: String,
    new: NewBook,
    chunking: &ChunkSettings,
    embedder: Option<&dyn Embedder>,
    progress: &dyn Fn(IngestProgress),
    cancel: &CancelToken,
    pace: &dyn Pace,
) -> Result<PreparedBook> {
    let title = new.title.trim().to_owned();
    if title.is_empty() {
        return Err(Error::config("a book needs a title"));
    }
    let pages = pages_of(new.source, chunking.page_chars)?;
    if pages.iter().all(|p| p.text.trim().is_empty()) {
        return Err(Error::config("the book has no text"));
    }
    let report = |phase, done, total| {
        progress(IngestProgress {
            book_id: id.clone(),
            phase,
            done,
            total,
        })
    };
    let mut chunker = Chunker::new(chunking);
    for (i, step) in pages.chunks(PAGES_PER_STEP).enumerate() {
        report("chunking", i * PAGES_PER_STEP, pages.len());
        step.iter().for_each(|page| chunker.push_page(page));
        pace.pause().await;
        cancel.check()?;
    }
    let chunks = chunker.finish();
    report("chunking", pages.len(), pages.len());

    if chunks.is_empty() {
        return Err(Error::config("the book has no text"));
    }
    let mut lexical = LexicalIndex::default();
    for step in chunks.chunks(CHUNKS_PER_STEP) {
        step.iter().for_each(|chunk| lexical.push(&chunk.text));
        pace.pause().await;
        cancel.check()?;
    }
    let vectors = match embedder {
        Some(embedder) => {
            let texts: Vec<String> = chunks.iter().map(|c| c.text.clone()).collect();
            let vectors = embed_all(embedder, &texts, &report, cancel, pace).await?;
            report("embedding", texts.len(), texts.len());
            vectors
        }
        None => VectorSet::new(0),
    };
    cancel.check()?;
    Ok(PreparedBook {
        id,
        title,
        author: new.author.filter(|a| !a.trim().is_empty()),
        page_count: pages.last().map_or(0, |p| p.number),
        pages: with_chapters(pages, &chunks),
        chunks,
        vectors,
        lexical,
    })
}

/// `pages`, each without a chapter of its own given the chapter of the first
/// chunk that covers it (the chapter a heading on or before it opened).
pub fn with_chapters(mut pages: Vec<Page>, chunks: &[Chunk]) -> Vec<Page> {
    let mut at = 0;
    for page in pages.iter_mut().filter(|p| p.chapter.is_none()) {
        while at < chunks.len() && chunks[at].end_page < page.number {
            at += 1;
        }
        page.chapter = chunks
            .get(at)
            .filter(|c| c.start_page <= page.number)
            .and_then(|c| c.chapter.clone());
    }
    pages
}

/// Embeds `texts` in the embedder's batches (smaller for a local embedder
/// when `pace` asks), normalised, reporting each batch; a wrong count or a
/// dimension change is an error.
pub(in crate::retrieval) async fn embed_all(
    embedder: &dyn Embedder,
    texts: &[String],
    report: &dyn Fn(&'static str, usize, usize),
    cancel: &CancelToken,
    pace: &dyn Pace,
) -> Result<VectorSet> {
    let mut vectors: Option<VectorSet> = None;
    let mut batch = embedder.batch_size().max(1);
    if embedder.is_local() {
        batch = pace.local_batch().map_or(batch, |most| batch.min(most.max(1)));
    }
    for (i, slice) in texts.chunks(batch).enumerate() {
        cancel.check()?;
        report("embedding", i * batch, texts.len());
        let embedded = cancel.run(embedder.embed(slice, cancel)).await?;
        if embedded.len() != slice.len() {
            return Err(Error::protocol(format!(
                "the embedder returned {} vectors for {} texts",
                embedded.len(),
                slice.len()
            )));
        }
        for mut vector in embedded {
            let set = vectors.get_or_insert_with(|| VectorSet::new(vector.len()));
            if vector.len() != set.dims() || vector.is_empty() {
                return Err(Error::EmbedderMismatch {
                    message: format!(
                        "the embedder changed dimension from {} to {}",
                        set.dims(),
                        vector.len()
                    ),
                });
            }
            normalize(&mut vector);
            set.push(&vector);
        }
        pace.pause().await;
    }
    vectors.ok_or_else(|| Error::config("the book has no text"))
}
