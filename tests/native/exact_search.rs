//! Exact search without a per-vector filter: a page bound as a prefix of the
//! chunks gives what the filter gave, index or not, and the int8 scan with
//! f32 re-rank gives the f32 top-k on real MiniLM embeddings.

use crate::support::shared_fixtures;

use lectern::domain::Book;
use lectern::domain::Chunk;
use lectern::retrieval::index::settings::INDEX_MIN_VECTORS;
use lectern::retrieval::index::{settings::IndexSettings, VectorIndex};
use lectern::retrieval::library::page_bound::ends_ascending;
use lectern::retrieval::library::{search_book_vectors, IndexSource, LoadedBook};
use lectern::retrieval::text::chunk::{chunk_pages, ChunkSettings};
use lectern::retrieval::text::pages::pages_from_text;
use lectern::retrieval::vectors::scan::{quantized_top_k, scan_top_k, RERANK_FACTOR};
use lectern::retrieval::vectors::test_vectors::random_set;
use lectern::retrieval::vectors::vector::{exact_top_k, Hit, VectorSet};
use shared_fixtures::{minilm, thursday};

/// A book of `vectors.len()` chunks; chunk `i` ends on page `end_page(i)`.
fn book(vectors: VectorSet, end_page: impl Fn(usize) -> u32, indexed: bool) -> LoadedBook {
    let chunks: Vec<Chunk> = (0..vectors.len())
        .map(|i| Chunk {
            ordinal: i as u32,
            text: format!("chunk {i}"),
            start_page: end_page(i).saturating_sub(1).max(1),
            end_page: end_page(i),
            chapter: None,
        })
        .collect();
    let record = Book {
        id: "b".into(),
        title: "B".into(),
        author: None,
        page_count: chunks.iter().map(|c| c.end_page).max().unwrap_or(0),
        chunk_count: chunks.len() as u32,
        current_page: 1,
        embedder: "test".into(),
        dimensions: vectors.dims() as u32,
        chapters: Vec::new(),
        created_at: 0.0,
    };
    let index = indexed.then(|| VectorIndex::build(&vectors, IndexSettings::default()));
    let source = if indexed {
        IndexSource::Built
    } else {
        IndexSource::None
    };
    LoadedBook::new(record, chunks, vectors, index, source)
}

/// What the search did before the prefix: count the eligible chunks, try
/// the index with a per-chunk filter, else scan them all with the filter.
fn filtered(loaded: &LoadedBook, query: &[f32], k: usize, max_page: Option<u32>) -> Vec<Hit> {
    let eligible = |i: usize| max_page.is_none_or(|max| loaded.chunks[i].end_page <= max);
    let count = (0..loaded.chunks.len()).filter(|&i| eligible(i)).count();
    if let Some(index) = loaded.index.as_ref().filter(|_| count >= INDEX_MIN_VECTORS) {
        if let Some(hits) = index.search(&loaded.vectors, query, k, eligible) {
            return hits;
        }
    }
    exact_top_k(&loaded.vectors, query, k, eligible)
}

#[test]
fn a_page_bound_as_a_prefix_gives_what_the_filter_gave() {
    let queries = random_set(8, 384, 77);
    for indexed in [false, true] {
        let loaded = book(random_set(2500, 384, 11), |i| i as u32 / 7 + 1, indexed);
        let last = loaded.chunks.last().unwrap().end_page;
        let bounds = [0, 1, 2, 20, 37, 146, 147, 200, 300, last - 1, last, last + 5];
        for q in 0..queries.len() {
            let query = queries.get(q);
            for max_page in bounds.iter().copied().map(Some).chain([None]) {
                for k in [1, 10, 100] {
                    let hits = search_book_vectors(&loaded, query, k, max_page);
                    let before = filtered(&loaded, query, k, max_page);
                    assert_eq!(
                        hits, before,
                        "indexed {indexed}, bound {max_page:?}, k {k}, query {q}"
                    );
                }
            }
        }
    }
}

#[test]
fn chunks_out_of_page_order_are_checked_one_by_one() {
    // Page numbers that go back (as no ingestion makes them): not a prefix.
    let loaded = book(random_set(600, 40, 5), |i| (i % 13) as u32 + 1, false);
    let query = random_set(1, 40, 6);
    for max_page in [1, 4, 12, 13] {
        let hits = search_book_vectors(&loaded, query.get(0), 10, Some(max_page));
        assert_eq!(hits, filtered(&loaded, query.get(0), 10, Some(max_page)));
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|h| loaded.chunks[h.index].end_page <= max_page));
    }
}

#[test]
fn chunks_of_a_real_book_end_on_ascending_pages() {
    let Some(text) = thursday() else { return };
    for chunk_chars in [120, 250, 800] {
        let settings = ChunkSettings {
            chunk_chars,
            overlap_chars: chunk_chars / 4,
            page_chars: 1500,
        };
        let chunks = chunk_pages(&pages_from_text(&text, settings.page_chars), &settings);
        assert!(chunks.len() > 100);
        assert!(ends_ascending(&chunks), "chunk size {chunk_chars}");
    }
}

#[test]
fn int8_with_re_rank_gives_the_f32_top_k_on_real_embeddings() {
    let Some(all) = minilm(20_000) else { return };
    let mut corpus = VectorSet::new(384);
    let mut queries = VectorSet::new(384);
    for i in 0..all.len() {
        if i % 100 == 0 {
            queries.push(all.get(i));
        } else {
            corpus.push(all.get(i));
        }
    }
    let mut same = 0;
    for q in 0..queries.len() {
        let query = queries.get(q);
        for (k, count) in [(10, corpus.len()), (5, 3000), (20, 700)] {
            let exact = scan_top_k(&corpus, query, k, count);
            let quantized = quantized_top_k(&corpus, query, k, count, RERANK_FACTOR);
            same += usize::from(quantized == exact);
        }
    }
    let total = queries.len() * 3;
    eprintln!("int8 + re-rank equals f32 exact in {same} of {total} searches");
    assert!(same * 100 >= total * 99, "{same} of {total} identical");
}
