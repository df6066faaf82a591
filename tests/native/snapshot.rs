//! Index snapshots natively: Lectern's own format (graph and ids, not the
//! vectors), read back with identical results, and an index rebuilt at load
//! (no snapshot, an unknown version, corrupt bytes) saved for the next open.

use std::rc::Rc;

use futures::executor::block_on;
use lectern::domain::Book;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::index::builder::BuildHere;
use lectern::retrieval::index::settings::IndexSettings;
use lectern::retrieval::library::{BookSource, IndexSource, Library, NewBook, SearchOptions, SearchResult};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::{BookStore, BookWrite, MemoryStore};

const WORDS: [&str; 24] = [
    "lantern",
    "harbour",
    "anarchist",
    "umbrella",
    "balloon",
    "cathedral",
    "garden",
    "poet",
    "detective",
    "sunrise",
    "policeman",
    "marquis",
    "duel",
    "carriage",
    "river",
    "fog",
    "bishop",
    "elephant",
    "telegram",
    "cellar",
    "riddle",
    "moon",
    "tavern",
    "philosopher",
];

fn library(store: Rc<MemoryStore>) -> Library {
    Library::new(
        store,
        Rc::new(HashedEmbedder::default()),
        Rc::new(ManualClock::new(1.0e12)),
        ChunkSettings {
            chunk_chars: 200,
            overlap_chars: 0,
            page_chars: 2000,
        },
    )
    // A smaller build effort keeps the several builds of these tests quick;
    // books of 1,024 chunks are indexed (the default is 8,192).
    .with_index_settings(IndexSettings {
        min_vectors: 1024,
        ef_construction: 10,
        ..IndexSettings::default()
    })
    .with_index_builder(Rc::new(BuildHere))
}

/// A generated book of about 1,300 chunks: big enough to be indexed.
fn big_book(store: Rc<MemoryStore>) -> Book {
    let mut state = 7u64;
    let mut word = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        WORDS[(state >> 33) as usize % WORDS.len()]
    };
    let pages: Vec<String> = (0..1_300)
        .map(|page| {
            let words: Vec<&str> = (0..24).map(|_| word()).collect();
            format!("Page {page} tells of the {}.", words.join(" "))
        })
        .collect();
    let new = NewBook {
        title: "Generated".into(),
        author: None,
        source: BookSource::Pages(pages),
    };
    let book = block_on(library(store).add_book(new, &|_| {}, &CancelToken::new())).unwrap();
    assert!(book.chunk_count >= 1024, "indexed: {} chunks", book.chunk_count);
    book
}

fn search(library: &Library, query: &str) -> Vec<SearchResult> {
    let options = SearchOptions {
        book_ids: None,
        k: Some(10),
        max_page: None,
        mode: None,
    };
    block_on(library.search(query, &options, &CancelToken::new())).unwrap()
}

/// A store holding `book` (its chunks and vectors from `from`) with `snapshot` as its index snapshot.
fn store_with_snapshot(from: &MemoryStore, book: &Book, snapshot: Option<&[u8]>) -> Rc<MemoryStore> {
    let (chunks, vectors) = block_on(from.book_content(&book.id)).unwrap();
    let store = Rc::new(MemoryStore::new());
    block_on(store.put_book(BookWrite {
        book,
        chunks: &chunks,
        vectors: &vectors,
        index_snapshot: snapshot,
        lexical_index: None,
        pages: &[],
    }))
    .unwrap();
    store
}

#[test]
fn the_snapshot_holds_the_graph_not_the_vectors_and_answers_identically() {
    let store = Rc::new(MemoryStore::new());
    let book = big_book(store.clone());
    let snapshot = block_on(store.index_snapshot(&book.id)).unwrap().unwrap();
    let (_, vectors) = block_on(store.book_content(&book.id)).unwrap();
    let vector_bytes = vectors.flat().len() * 4;
    assert!(
        snapshot.len() * 4 < vector_bytes,
        "the snapshot ({} bytes) must not carry the vectors ({vector_bytes} bytes)",
        snapshot.len()
    );
    assert!(snapshot.starts_with(b"LCTNHNSW"), "Lectern's own format");

    let built = library(store.clone());
    let reopened = library(store.clone());
    let loaded = block_on(reopened.load(&book.id)).unwrap();
    assert_eq!(loaded.index_source, IndexSource::Snapshot);
    for query in [
        "lantern harbour",
        "the bishop in the fog",
        "elephant telegram riddle",
    ] {
        assert_eq!(search(&reopened, query), search(&built, query), "{query}");
    }
}

#[test]
fn an_index_rebuilt_at_load_is_saved_for_the_next_open() {
    let first = Rc::new(MemoryStore::new());
    let book = big_book(first.clone());
    let good = block_on(first.index_snapshot(&book.id)).unwrap().unwrap();

    let mut unknown_version = good.clone();
    unknown_version[8..12].copy_from_slice(&99u32.to_le_bytes());
    let mut corrupt = good.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0x5a;
    let cases: [(&str, Option<&[u8]>); 4] = [
        ("no snapshot", None),
        ("an unknown version", Some(&unknown_version)),
        ("corrupt bytes", Some(&corrupt)),
        ("another format", Some(b"\x28\x80\x01not a snapshot at all")),
    ];
    for (case, snapshot) in cases {
        let store = store_with_snapshot(&first, &book, snapshot);
        let opened = library(store.clone());
        let loaded = block_on(opened.load(&book.id)).unwrap();
        assert_eq!(
            loaded.index_source,
            IndexSource::Built,
            "{case}: rebuilt, not failed"
        );
        let rebuilt = search(&opened, "moon over the cathedral");
        assert_eq!(rebuilt.len(), 10, "{case}");
        let saved = block_on(store.index_snapshot(&book.id)).unwrap();
        let saved = saved.unwrap_or_else(|| panic!("{case}: the rebuilt index is saved"));
        assert!(
            saved.starts_with(b"LCTNHNSW\x02\0\0\0") && Some(saved.as_slice()) != snapshot,
            "{case}: the rebuilt index is saved in the current format"
        );

        let next = library(store.clone());
        let loaded = block_on(next.load(&book.id)).unwrap();
        assert_eq!(
            loaded.index_source,
            IndexSource::Snapshot,
            "{case}: the next open reads it"
        );
        assert_eq!(search(&next, "moon over the cathedral"), rebuilt, "{case}");
    }
}
