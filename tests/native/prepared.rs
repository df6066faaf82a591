//! A book prepared elsewhere (Lectern's ingestion worker) and stored in two
//! steps: chunks and vectors first, searched exactly while its index builds,
//! then the index's snapshot attached — or the snapshot dropped when the book
//! was deleted meanwhile. And where a missing index is built: here, elsewhere
//! (the book waits, searched exactly) or never (a page without a worker).

use std::rc::Rc;

use futures::executor::block_on;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::index::build_index;
use lectern::retrieval::index::builder::{BuildHere, IndexBuilder, NoIndexBuilder};
use lectern::retrieval::index::settings::IndexSettings;
use lectern::retrieval::index::BuiltIndex;
use lectern::retrieval::ingest::prepare::{prepare_book, Unpaced};
use lectern::retrieval::library::{BookSource, IndexSource, Library, NewBook, SearchOptions};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::retrieval::vectors::vector::VectorSet;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::{BookStore, MemoryStore};

fn text(paragraphs: usize) -> String {
    let words = [
        "lantern",
        "harbour",
        "anarchist",
        "poet",
        "sunday",
        "council",
        "garden",
        "balloon",
    ];
    (0..paragraphs)
        .map(|p| {
            format!(
                "The {} met the {} near paragraph {p}.",
                words[p % 8],
                words[(p * 3) % 8]
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

const CHUNKING: ChunkSettings = ChunkSettings {
    chunk_chars: 100,
    overlap_chars: 0,
    page_chars: 2000,
};

/// Books of 1,024 chunks or more are indexed (the default is 8,192).
fn indexing() -> IndexSettings {
    IndexSettings::with_min_vectors(1024)
}

/// Builds every missing index elsewhere, later (as the page's worker does).
struct BuildsLater;

impl IndexBuilder for BuildsLater {
    fn build_now(&self, _: &VectorSet, _: IndexSettings) -> Option<BuiltIndex> {
        None
    }

    fn builds_later(&self) -> bool {
        true
    }
}

/// A library over `store` whose missing indexes `builder` builds.
fn library_over(store: &Rc<MemoryStore>, builder: impl IndexBuilder + 'static) -> Library {
    Library::new(
        store.clone(),
        Rc::new(HashedEmbedder::new(32)),
        Rc::new(ManualClock::new(1.0e12)),
        CHUNKING,
    )
    .with_index_settings(indexing())
    .with_index_builder(Rc::new(builder))
}

fn setup() -> (Rc<MemoryStore>, Library, ChunkSettings) {
    let store = Rc::new(MemoryStore::new());
    let library = library_over(&store, BuildsLater);
    (store, library, CHUNKING)
}

fn options(id: &str) -> SearchOptions {
    SearchOptions {
        book_ids: Some(vec![id.to_owned()]),
        k: Some(3),
        max_page: None,
        mode: None,
    }
}

fn prepared(
    library: &Library,
    chunking: &ChunkSettings,
    paragraphs: usize,
) -> lectern::retrieval::ingest::prepare::PreparedBook {
    let new = NewBook {
        title: "Two steps".into(),
        author: None,
        source: BookSource::Text(text(paragraphs)),
    };
    let embedder = HashedEmbedder::new(32);
    let id = library.new_book_id();
    block_on(prepare_book(
        id,
        new,
        chunking,
        Some(&embedder),
        &|_| {},
        &CancelToken::new(),
        &Unpaced,
    ))
    .expect("prepares")
}

/// A big book stored without its index (as the worker's first message leaves
/// it), and the snapshot of the index the worker would send.
fn stored_without_index(library: &Library, chunking: &ChunkSettings) -> (String, Vec<u8>) {
    let book = prepared(library, chunking, 2300);
    let (_, snapshot) = build_index(&book.vectors, indexing()).expect("big enough");
    let stored = block_on(library.store_prepared(book, None, &CancelToken::new())).expect("stores");
    (stored.id, snapshot)
}

#[test]
fn a_book_is_searched_exactly_while_its_index_builds_then_with_it() {
    let (store, library, chunking) = setup();
    let book = prepared(&library, &chunking, 2300);
    assert!(book.vectors.len() >= 1024, "{} chunks", book.vectors.len());
    let (_, snapshot) = build_index(&book.vectors, indexing()).expect("big enough");
    let stored = block_on(library.store_prepared(book, None, &CancelToken::new())).expect("stores");
    let id = stored.id.clone();
    assert_eq!(
        block_on(library.load(&id)).unwrap().index_source,
        IndexSource::Building
    );
    let options = SearchOptions {
        book_ids: Some(vec![id.clone()]),
        k: Some(3),
        max_page: None,
        mode: None,
    };
    let before = block_on(library.search("anarchist poet", &options, &CancelToken::new())).unwrap();
    assert_eq!(before.len(), 3);
    assert!(block_on(store.index_snapshot(&id)).unwrap().is_none());

    assert!(block_on(library.attach_snapshot(&id, &snapshot)).unwrap());
    let loaded = block_on(library.load(&id)).unwrap();
    assert_eq!(loaded.index_source, IndexSource::Built);
    assert!(loaded.index.is_some());
    assert_eq!(
        block_on(store.index_snapshot(&id)).unwrap().as_deref(),
        Some(&snapshot[..])
    );
    let after = block_on(library.search("anarchist poet", &options, &CancelToken::new())).unwrap();
    assert_eq!(after.len(), 3);
    // Attached once: a second snapshot is not taken.
    assert!(!block_on(library.attach_snapshot(&id, &snapshot)).unwrap());
}

#[test]
fn a_snapshot_for_a_deleted_or_small_book_is_not_kept() {
    let (store, library, chunking) = setup();
    let (id, snapshot) = stored_without_index(&library, &chunking);
    block_on(library.delete_book(&id)).unwrap();
    assert!(!block_on(library.attach_snapshot(&id, &snapshot)).unwrap());
    assert!(block_on(store.index_snapshot(&id)).unwrap().is_none());

    let small = prepared(&library, &chunking, 20);
    let id = block_on(library.store_prepared(small, None, &CancelToken::new()))
        .unwrap()
        .id;
    assert_eq!(
        block_on(library.load(&id)).unwrap().index_source,
        IndexSource::None
    );
    assert!(!block_on(library.attach_snapshot(&id, &snapshot)).unwrap());
}

#[test]
fn a_book_loaded_without_its_snapshot_waits_for_one_built_elsewhere() {
    let (store, library, chunking) = setup();
    let (id, snapshot) = stored_without_index(&library, &chunking);

    // Reopened before the index came: not built on load, searched exactly, waiting.
    let reopened = library_over(&store, BuildsLater);
    let loaded = block_on(reopened.load(&id)).unwrap();
    assert_eq!(loaded.index_source, IndexSource::Building);
    assert!(loaded.index.is_none());
    assert!(block_on(store.index_snapshot(&id)).unwrap().is_none());
    let hits = block_on(reopened.search("anarchist poet", &options(&id), &CancelToken::new())).unwrap();
    assert_eq!(hits.len(), 3);
    drop(loaded);
    assert!(block_on(reopened.attach_snapshot(&id, &snapshot)).unwrap());
    assert_eq!(
        block_on(reopened.load(&id)).unwrap().index_source,
        IndexSource::Built
    );

    // Built on the calling thread when so set (the default).
    block_on(store.put_index_snapshot(&id, b"not a snapshot")).unwrap();
    let here = library_over(&store, BuildHere);
    assert_eq!(block_on(here.load(&id)).unwrap().index_source, IndexSource::Built);
}

#[test]
fn a_waiting_book_whose_builder_cannot_run_is_searched_exactly() {
    let (_, library, chunking) = setup();
    let book = prepared(&library, &chunking, 2300);
    let id = block_on(library.store_prepared(book, None, &CancelToken::new()))
        .unwrap()
        .id;
    let held = block_on(library.load(&id)).unwrap();
    assert!(library.forgo_index(&id));
    assert!(!library.forgo_index(&id), "once");
    let loaded = block_on(library.load(&id)).unwrap();
    assert_eq!(loaded.index_source, IndexSource::None);
    assert_eq!(
        held.index_source,
        IndexSource::Building,
        "a search in flight keeps its copy"
    );
    let hits = block_on(library.search("anarchist poet", &options(&id), &CancelToken::new())).unwrap();
    assert_eq!(hits.len(), 3);
}

#[test]
fn a_library_that_never_builds_searches_big_books_exactly() {
    let store = Rc::new(MemoryStore::new());
    let library = library_over(&store, NoIndexBuilder);
    let phases = std::cell::RefCell::new(Vec::new());
    let new = NewBook {
        title: "Never indexed".into(),
        author: None,
        source: BookSource::Text(text(2300)),
    };
    let book = block_on(library.add_book(new, &|p| phases.borrow_mut().push(p.phase), &CancelToken::new()))
        .expect("adds");
    assert!(book.chunk_count >= 1024, "{} chunks", book.chunk_count);
    assert_eq!(
        phases.borrow().last(),
        Some(&"indexing"),
        "the phase is reported, nothing is built"
    );
    let loaded = block_on(library.load(&book.id)).unwrap();
    assert_eq!(loaded.index_source, IndexSource::None);
    assert!(loaded.index.is_none());
    assert!(block_on(store.index_snapshot(&book.id)).unwrap().is_none());

    let reopened = library_over(&store, NoIndexBuilder);
    assert_eq!(
        block_on(reopened.load(&book.id)).unwrap().index_source,
        IndexSource::None
    );
    let hits = block_on(reopened.search("anarchist poet", &options(&book.id), &CancelToken::new())).unwrap();
    assert_eq!(hits.len(), 3);
}
