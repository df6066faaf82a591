//! Books shipped prebuilt: `export_book` → one bundle → `import_book` in
//! another library gives the same book (the bundle re-exported byte for
//! byte, the same search results, its index read from the snapshot, not
//! rebuilt), and a bundle that is malformed, of another embedder or already
//! imported is a typed error that stores nothing.

use std::rc::Rc;

use futures::executor::block_on;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::embed::Embedder;
use lectern::retrieval::index::builder::BuildHere;
use lectern::retrieval::index::settings::IndexSettings;
use lectern::retrieval::library::{BookSource, IndexSource, Library, NewBook, SearchOptions};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::MemoryStore;

/// A library of the hashed embedder of `dims` (none for 0: lexical search
/// only), indexing books of 256 chunks or more.
fn library(dims: usize) -> (Library, Rc<MemoryStore>) {
    let store = Rc::new(MemoryStore::new());
    let embedder = (dims > 0).then(|| Rc::new(HashedEmbedder::new(dims)) as Rc<dyn Embedder>);
    let library = Library::with_embedder(
        store.clone(),
        embedder,
        Rc::new(ManualClock::new(1.0e12)),
        ChunkSettings {
            chunk_chars: 100,
            overlap_chars: 0,
            page_chars: 600,
        },
    )
    .with_index_settings(IndexSettings::with_min_vectors(256))
    .with_index_builder(Rc::new(BuildHere));
    (library, store)
}

fn text() -> String {
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
    (0..700)
        .map(|p| {
            format!(
                "The {} met the {} by paragraph {p}.",
                words[p % 8],
                words[(p * 3) % 8]
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn search(library: &Library, id: &str) -> Vec<(u32, f32)> {
    let options = SearchOptions {
        book_ids: Some(vec![id.to_owned()]),
        k: Some(8),
        max_page: Some(30),
        ..SearchOptions::default()
    };
    block_on(library.search("anarchist harbour", &options, &CancelToken::new()))
        .unwrap()
        .into_iter()
        .map(|r| (r.ordinal, r.score))
        .collect()
}

fn exported(dims: usize) -> (Vec<u8>, String, Vec<(u32, f32)>) {
    let (library, _) = library(dims);
    let new = NewBook {
        title: "Bundled".into(),
        author: Some("A. Writer".into()),
        source: BookSource::Text(text()),
    };
    let book = block_on(library.add_book(new, &|_| {}, &CancelToken::new())).unwrap();
    block_on(library.set_current_page(&book.id, 7)).unwrap();
    let bundle = block_on(library.export_book(&book.id)).unwrap();
    (bundle, book.id.clone(), search(&library, &book.id))
}

#[test]
fn a_book_exported_and_imported_elsewhere_is_the_same_book() {
    let (bundle, id, results) = exported(64);
    let (other, _) = library(64);
    let book = block_on(other.import_book(&bundle)).unwrap();
    assert_eq!(book.id, id);
    assert_eq!(book.current_page, 7, "the reader's page travels with it");
    assert!(
        book.chunk_count >= 256,
        "big enough for an index: {}",
        book.chunk_count
    );
    assert_eq!(search(&other, &id), results, "the same results and scores");
    let loaded = block_on(other.load(&id)).unwrap();
    assert_eq!(
        loaded.index_source,
        IndexSource::Snapshot,
        "the shipped index, not rebuilt"
    );
    assert_eq!(block_on(other.export_book(&id)).unwrap(), bundle, "byte for byte");
}

#[test]
fn a_bundle_that_cannot_be_imported_stores_nothing() {
    let (bundle, id, _) = exported(64);
    let (other, store) = library(32);
    let error = block_on(other.import_book(&bundle)).unwrap_err();
    assert_eq!(error.name(), "EmbedderMismatchError", "{error}");
    let cut = &bundle[..bundle.len() / 2];
    let (same, _) = library(64);
    assert_eq!(block_on(same.import_book(cut)).unwrap_err().name(), "ConfigError");
    assert!(block_on(other.books()).unwrap().is_empty());
    assert!(block_on(same.books()).unwrap().is_empty());
    block_on(same.import_book(&bundle)).unwrap();
    let again = block_on(same.import_book(&bundle)).unwrap_err();
    assert!(again.to_string().contains("already in the library"), "{again}");
    assert_eq!(block_on(same.books()).unwrap().len(), 1);
    let _ = (id, store);
}

#[test]
fn a_book_without_vectors_travels_with_its_lexical_index() {
    let (bundle, id, results) = exported(0);
    let (other, _) = library(0);
    let book = block_on(other.import_book(&bundle)).unwrap();
    assert_eq!((book.embedder.as_str(), book.dimensions), ("none", 0));
    assert_eq!(
        search(&other, &id),
        results,
        "the same lexical results and scores"
    );
    assert_eq!(block_on(other.export_book(&id)).unwrap(), bundle, "byte for byte");
    let (semantic, _) = library(64);
    let error = block_on(semantic.import_book(&bundle)).unwrap_err();
    assert_eq!(error.name(), "EmbedderMismatchError", "{error}");
}
