//! A book prepared elsewhere (Lectern's ingestion worker) and stored in two
//! steps: chunks and vectors first, searched exactly while its index builds,
//! then the index's snapshot attached — or the snapshot dropped when the book
//! was deleted meanwhile.

#![cfg(not(target_arch = "wasm32"))]

use std::rc::Rc;

use futures::executor::block_on;
use lectern::cancel::CancelToken;
use lectern::retrieval::chunk::ChunkSettings;
use lectern::retrieval::hashed::HashedEmbedder;
use lectern::retrieval::index::{build_index, IndexSettings};
use lectern::retrieval::library::{BookSource, IndexSource, Library, NewBook, SearchOptions};
use lectern::retrieval::prepare::{prepare_book, Unpaced};
use lectern::storage::{BookStore, MemoryStore};
use lectern::time::ManualClock;

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

fn setup() -> (Rc<MemoryStore>, Library, ChunkSettings) {
    let store = Rc::new(MemoryStore::new());
    let chunking = ChunkSettings {
        chunk_chars: 100,
        overlap_chars: 0,
        page_chars: 2000,
    };
    let library = Library::new(
        store.clone(),
        Rc::new(HashedEmbedder::new(32)),
        Rc::new(ManualClock::new(1.0e12)),
        chunking,
    );
    (store, library, chunking)
}

fn prepared(
    library: &Library,
    chunking: &ChunkSettings,
    paragraphs: usize,
) -> lectern::retrieval::prepare::PreparedBook {
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
        &embedder,
        &|_| {},
        &CancelToken::new(),
        &Unpaced,
    ))
    .expect("prepares")
}

#[test]
fn a_book_is_searched_exactly_while_its_index_builds_then_with_it() {
    let (store, library, chunking) = setup();
    let book = prepared(&library, &chunking, 2300);
    assert!(book.vectors.len() >= 1024, "{} chunks", book.vectors.len());
    let (_, snapshot) = build_index(&book.vectors, IndexSettings::default()).expect("big enough");
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
    let book = prepared(&library, &chunking, 2300);
    let (_, snapshot) = build_index(&book.vectors, IndexSettings::default()).expect("big enough");
    let id = block_on(library.store_prepared(book, None, &CancelToken::new()))
        .unwrap()
        .id;
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
