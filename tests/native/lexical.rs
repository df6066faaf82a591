//! Lexical search natively: BM25 under a page bound with a full top-k (a
//! property over random books), the library without an embedder, the
//! default modes and their typed errors, hybrid search, and the stored
//! lexical index (rebuilt for a book stored before it, or when corrupt).

use crate::support::prop_config;

use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::domain::Chunk;
use lectern::domain::{Book, NO_EMBEDDER};
use lectern::error::Result;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::embed::Embedder;
use lectern::retrieval::lexical::bm25::{self, Eligible};
use lectern::retrieval::lexical::{encode, LexicalIndex};
use lectern::retrieval::library::search_mode::{SearchMode, LEXICAL_WEIGHT, RRF_K};
use lectern::retrieval::library::{
    search_book_lexical, BookSource, IndexSource, Library, LoadedBook, NewBook, SearchOptions, SearchResult,
};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::retrieval::vectors::vector::VectorSet;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::{BookStore, BookWrite, MemoryStore};
use proptest::collection::vec;
use proptest::prelude::*;

const WORDS: [&str; 12] = [
    "syme",
    "gregory",
    "anarchist",
    "poet",
    "sunday",
    "東京",
    "café",
    "policeman",
    "garden",
    "bomb",
    "lamp",
    "thursday",
];

/// A loaded book of these texts ending on these (ascending) pages, without vectors.
fn loaded(texts: &[String], ends: &[u32]) -> LoadedBook {
    let chunks: Vec<Chunk> = texts
        .iter()
        .zip(ends)
        .enumerate()
        .map(|(i, (text, &end))| Chunk {
            ordinal: i as u32,
            text: text.clone(),
            start_page: end,
            end_page: end,
            chapter: None,
        })
        .collect();
    let book = Book {
        id: "b".into(),
        title: "T".into(),
        author: None,
        page_count: ends.last().copied().unwrap_or(1),
        chunk_count: chunks.len() as u32,
        current_page: 1,
        embedder: NO_EMBEDDER.into(),
        dimensions: 0,
        chapters: Vec::new(),
        created_at: 0.0,
    };
    LoadedBook::new(book, chunks, VectorSet::new(0), None, IndexSource::None)
}

fn book_strategy() -> impl Strategy<Value = (Vec<String>, Vec<u32>)> {
    vec((vec(0..WORDS.len(), 0..12), 0u32..3), 1..40).prop_map(|rows| {
        let mut page = 1;
        rows.into_iter()
            .map(|(words, step)| {
                page += step;
                (
                    words.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" "),
                    page,
                )
            })
            .unzip()
    })
}

proptest! {
    #![proptest_config(prop_config::config(300))]

    /// Every result ends by the bound; there are exactly min(k, eligible
    /// chunks holding a query term) of them; and they are what the book cut
    /// at the bound gives, scores and all: nothing after it counts.
    #[test]
    fn bm25_under_a_page_bound_is_the_search_of_the_book_cut_there(
        (texts, ends) in book_strategy(),
        query in vec(0..WORDS.len(), 1..4),
        max_page in 0u32..60,
        k in 1usize..12,
    ) {
        let query = query.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ");
        let book = loaded(&texts, &ends);
        let hits = search_book_lexical(&book, &query, k, Some(max_page));
        let eligible: Vec<usize> = (0..texts.len()).filter(|&i| ends[i] <= max_page).collect();
        let query_terms = lectern::retrieval::lexical::tokenize::terms(&query);
        let matching = eligible
            .iter()
            .filter(|&&i| lectern::retrieval::lexical::tokenize::terms(&texts[i]).iter().any(|t| query_terms.contains(t)))
            .count();
        prop_assert_eq!(hits.len(), k.min(matching));
        prop_assert!(hits.iter().all(|h| ends[h.index] <= max_page && h.score > 0.0));
        let cut = loaded(&texts[..eligible.len()], &ends[..eligible.len()]);
        prop_assert_eq!(&hits, &search_book_lexical(&cut, &query, k, None));
        let filter = |i: usize| ends[i] <= max_page;
        let filtered = bm25::search(&book.lexical, &query, k, Eligible::Filter(&filter));
        prop_assert_eq!(&hits, &filtered, "the prefix and the filter agree");
        let mut scores: Vec<f32> = hits.iter().map(|h| h.score).collect();
        scores.dedup();
        prop_assert!(scores.windows(2).all(|w| w[0] > w[1]), "best first");
    }

    /// The stored form reads back to the same index, for any text.
    #[test]
    fn any_index_round_trips(texts in vec(".{0,60}", 0..12)) {
        let index = LexicalIndex::build(texts.iter().map(String::as_str));
        let bytes = encode::encode(&index);
        prop_assert_eq!(encode::decode(&bytes, texts.len()).unwrap(), index);
    }
}

#[test]
fn a_rarer_term_and_a_shorter_chunk_score_higher() {
    let texts: Vec<String> = [
        "the poet and the poet",
        "the anarchist",
        "the poet spoke to the anarchist at length today",
    ]
    .map(str::to_owned)
    .into();
    let book = loaded(&texts, &[1, 2, 3]);
    let hits = search_book_lexical(&book, "anarchist", 5, None);
    assert_eq!(
        hits.iter().map(|h| h.index).collect::<Vec<_>>(),
        [1, 2],
        "the shorter chunk first"
    );
    let hits = search_book_lexical(&book, "poet anarchist", 5, None);
    assert_eq!(hits.len(), 3);
    assert!(search_book_lexical(&book, "bicycle", 5, None).is_empty());
    assert!(search_book_lexical(&book, "anarchist", 5, Some(0)).is_empty());
}

/// A semantic stand-in: the hashed embedder's vectors under another name.
struct Semantic(HashedEmbedder);

impl Embedder for Semantic {
    fn model(&self) -> &str {
        "semantic-stand-in"
    }
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>> {
        self.0.embed(texts, cancel)
    }
}

fn clock() -> Rc<ManualClock> {
    Rc::new(ManualClock::new(1.0e12))
}

/// A library over `store` with the hashed embedder (searched semantically by default).
fn hashed_library(store: &Rc<MemoryStore>) -> Library {
    Library::new(
        store.clone(),
        Rc::new(HashedEmbedder::default()),
        clock(),
        small_chunks(),
    )
}

/// A library over `store` whose embedder counts as semantic (hybrid by default).
fn semantic_library(store: &Rc<MemoryStore>) -> Library {
    Library::new(
        store.clone(),
        Rc::new(Semantic(HashedEmbedder::default())),
        clock(),
        small_chunks(),
    )
}

fn small_chunks() -> ChunkSettings {
    ChunkSettings {
        chunk_chars: 200,
        overlap_chars: 20,
        page_chars: 400,
    }
}

/// Twelve pages, one topic each, one of them later in the book.
fn pages() -> Vec<String> {
    (1..=12)
        .map(|p| match p {
            3 => "Gregory the poet walked in the red garden of Saffron Park at sunset.".to_owned(),
            9 => "The garden party ended when Gregory revealed the bomb in his cloak.".to_owned(),
            _ => format!("Page {p} tells of lamps, streets and the grey morning fog of London town."),
        })
        .collect()
}

fn add(library: &Library) -> Book {
    let new = NewBook {
        title: "Thursday".into(),
        author: None,
        source: BookSource::Pages(pages()),
    };
    block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("ingests")
}

fn search(
    library: &Library,
    query: &str,
    k: usize,
    max_page: Option<u32>,
    mode: Option<SearchMode>,
) -> Result<Vec<SearchResult>> {
    let options = SearchOptions {
        book_ids: None,
        k: Some(k),
        max_page,
        mode,
    };
    block_on(library.search(query, &options, &CancelToken::new()))
}

/// A book's chunks, as the library loaded them.
fn chunks_of(library: &Library, id: &str) -> Vec<Chunk> {
    block_on(library.load(id)).unwrap().chunks.clone()
}

#[test]
fn without_an_embedder_books_have_no_vectors_and_search_lexically() {
    let store = Rc::new(MemoryStore::new());
    let library = Library::without_embedder(store.clone(), clock(), small_chunks());
    assert_eq!(library.default_mode(), SearchMode::Lexical);
    let book = add(&library);
    assert_eq!((book.embedder.as_str(), book.dimensions), (NO_EMBEDDER, 0));
    let (chunks, vectors) = block_on(store.book_content(&book.id)).unwrap();
    assert_eq!((vectors.len(), chunks.len()), (0, book.chunk_count as usize));
    let stored = block_on(store.lexical_index(&book.id))
        .unwrap()
        .expect("stored with the book");
    assert_eq!(encode::decode(&stored, chunks.len()).unwrap().len(), chunks.len());

    let holding = |max: u32| {
        chunks
            .iter()
            .filter(|c| c.end_page <= max && c.text.contains("Gregory"))
            .count()
    };
    let hits = search(&library, "Gregory", 5, Some(8), None).unwrap();
    assert_eq!(hits.len(), holding(8), "{hits:?}");
    assert!(hits
        .iter()
        .all(|h| h.end_page <= 8 && h.text.contains("Gregory") && !h.text.contains("bomb")));
    let hits = search(&library, "Gregory", 5, None, Some(SearchMode::Lexical)).unwrap();
    assert_eq!(hits.len(), holding(u32::MAX));
    assert!(hits.iter().any(|h| h.text.contains("bomb")));
    for mode in [SearchMode::Semantic, SearchMode::Hybrid] {
        let err = search(&library, "Gregory", 5, None, Some(mode)).unwrap_err();
        assert_eq!(err.name(), "ConfigError", "{mode:?}: {err}");
        assert!(err.to_string().contains(mode.name()), "{err}");
    }
}

#[test]
fn default_modes_follow_the_embedder() {
    let store = Rc::new(MemoryStore::new());
    let hashed = hashed_library(&store);
    assert_eq!(hashed.default_mode(), SearchMode::Semantic);
    let semantic = semantic_library(&store);
    assert_eq!(semantic.default_mode(), SearchMode::Hybrid);
}

#[test]
fn hybrid_is_page_bounded_with_a_full_top_k_and_fuses_by_rank() {
    let store = Rc::new(MemoryStore::new());
    let library = semantic_library(&store);
    let book = add(&library);
    let chunks = chunks_of(&library, &book.id);
    let eligible = chunks.iter().filter(|c| c.end_page <= 8).count();
    for k in [1, 3, 7, 20] {
        let hits = search(&library, "Gregory garden bomb", k, Some(8), None).unwrap();
        assert_eq!(
            hits.len(),
            k.min(eligible),
            "k {k}: every eligible chunk may come, fused"
        );
        assert!(hits.iter().all(|h| h.end_page <= 8));
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(
            hits.iter()
                .all(|h| h.score > 0.0 && h.score <= (LEXICAL_WEIGHT + 1.0) / (RRF_K + 1.0) + 1e-6),
            "weighted RRF scores"
        );
    }
    let hybrid = search(&library, "Saffron Park sunset", 1, Some(8), None).unwrap();
    assert!(hybrid[0].text.contains("Saffron"), "first in both lists");
    let lexical = search(&library, "Saffron Park", 20, Some(8), Some(SearchMode::Lexical)).unwrap();
    let holding = chunks
        .iter()
        .filter(|c| c.end_page <= 8 && c.text.contains("Saffron"))
        .count();
    assert_eq!(
        lexical.len(),
        holding,
        "lexically only the chunks holding the words"
    );
}

#[test]
fn lexical_mode_searches_a_book_of_another_embedder() {
    let store = Rc::new(MemoryStore::new());
    let hashed = hashed_library(&store);
    add(&hashed);
    let none = Library::without_embedder(store.clone(), clock(), small_chunks());
    let found = search(&none, "bomb", 5, None, None).unwrap();
    assert!(!found.is_empty() && found.iter().all(|h| h.text.contains("bomb")));
    let other = semantic_library(&store);
    let err = search(&other, "bomb", 5, None, None).unwrap_err();
    assert_eq!(err.name(), "EmbedderMismatchError", "{err}");
    assert_eq!(
        search(&other, "bomb", 5, None, Some(SearchMode::Lexical)).unwrap(),
        found
    );
}

#[test]
fn a_book_stored_without_a_lexical_index_gets_one_built_and_saved() {
    let store = Rc::new(MemoryStore::new());
    let library = hashed_library(&store);
    let book = add(&library);
    let (chunks, vectors) = block_on(store.book_content(&book.id)).unwrap();
    // The same book as a store from before lexical search holds it: no lexical index.
    let old = Rc::new(MemoryStore::new());
    block_on(old.put_book(BookWrite::new(&book, &chunks, &vectors))).unwrap();
    let reopened = Library::without_embedder(old.clone(), clock(), small_chunks());
    let hits = search(&reopened, "bomb cloak", 5, None, None).unwrap();
    assert_eq!(
        hits.len(),
        chunks.iter().filter(|c| c.text.contains("bomb")).count()
    );
    assert!(hits.iter().all(|h| h.text.contains("bomb")));
    let saved = block_on(old.lexical_index(&book.id))
        .unwrap()
        .expect("built and saved");
    assert_eq!(
        saved,
        block_on(store.lexical_index(&book.id)).unwrap().unwrap(),
        "the same bytes as at ingestion"
    );

    // A corrupt one (or one of another version) is rebuilt the same way.
    let mut corrupt = saved.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0xff;
    block_on(old.put_lexical_index(&book.id, &corrupt)).unwrap();
    let again = Library::without_embedder(old.clone(), clock(), small_chunks());
    assert_eq!(search(&again, "bomb cloak", 5, None, None).unwrap(), hits);
    assert_eq!(block_on(old.lexical_index(&book.id)).unwrap(), Some(saved));
}
