//! Books that open at once (`Library::add_book_lexical`): stored and
//! searched lexically before their vectors exist, then given them by
//! `Library::embed_pending` — after a reload too — and never a search that
//! fails in between.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use lectern::domain::Book;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::ingest::prepare::Unpaced;
use lectern::retrieval::library::{BookSource, Library, NewBook, SearchOptions, SearchResult};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::{BookStore, MemoryStore};

fn library(store: &Rc<MemoryStore>, embedder: bool) -> Library {
    let embedder = embedder.then(|| Rc::new(HashedEmbedder::new(64)) as Rc<_>);
    let clock = Rc::new(ManualClock::new(1.0e12));
    Library::with_embedder(store.clone(), embedder, clock, ChunkSettings::default())
}

/// Forty pages, each about one animal, so that a word finds its page.
fn text() -> String {
    let animals = ["heron", "otter", "badger", "falcon", "marten"];
    (0..40)
        .map(|i| {
            let animal = animals[i % animals.len()];
            format!(
                "[[page {}]]\nThe {animal} of page {i} walked by the river. {}\n",
                i + 1,
                "Reeds and water. ".repeat(20)
            )
        })
        .collect()
}

fn add(library: &Library) -> Book {
    let new = NewBook {
        title: "Animals".into(),
        author: None,
        source: BookSource::Text(text()),
    };
    block_on(library.add_book_lexical(new, &|_| {}, &CancelToken::new(), &Unpaced)).expect("added")
}

fn search(library: &Library, query: &str) -> Vec<SearchResult> {
    let options = SearchOptions {
        k: Some(3),
        max_page: Some(20),
        ..SearchOptions::default()
    };
    block_on(library.search(query, &options, &CancelToken::new())).expect("searches")
}

fn embed(library: &Library, id: &str) -> lectern::error::Result<bool> {
    block_on(library.embed_pending(id, &|_| {}, &CancelToken::new(), &Unpaced))
}

#[test]
fn a_book_is_searched_lexically_at_once_then_with_its_vectors() {
    let store = Rc::new(MemoryStore::new());
    let library = library(&store, true);
    let book = add(&library);
    assert!(book.awaits_vectors(), "{book:?}");
    assert_eq!(
        (book.dimensions, book.embedder.as_str()),
        (0, "lectern-hashed-v1/64")
    );
    let found = search(&library, "badger");
    assert_eq!(found.len(), 3, "a full top k, lexically: {found:?}");
    assert!(found
        .iter()
        .all(|r| r.text.contains("badger") && r.end_page <= 20));

    let progress = RefCell::new(Vec::new());
    let report = |p: lectern::retrieval::library::IngestProgress| {
        progress.borrow_mut().push((p.phase, p.done, p.total))
    };
    let done = block_on(library.embed_pending(&book.id, &report, &CancelToken::new(), &Unpaced));
    assert!(done.expect("embeds"));
    let total = book.chunk_count as usize;
    assert_eq!(progress.borrow().last(), Some(&("embedding", total, total)));
    let stored = block_on(library.book(&book.id)).unwrap();
    assert_eq!((stored.dimensions, stored.awaits_vectors()), (64, false));
    let found = search(&library, "badger");
    assert!(
        found.iter().all(|r| r.score <= 1.0 + 1e-5),
        "cosine scores now: {found:?}"
    );
    assert!(!embed(&library, &book.id).unwrap(), "nothing left to do");
}

#[test]
fn a_reload_finishes_the_vectors_and_keeps_the_readers_page() {
    let store = Rc::new(MemoryStore::new());
    let book = add(&library(&store, true));
    let reopened = library(&store, true);
    block_on(reopened.set_current_page(&book.id, 12)).unwrap();
    assert!(embed(&reopened, &book.id).unwrap());
    let stored = block_on(store.book(&book.id)).unwrap().unwrap();
    assert_eq!((stored.current_page, stored.dimensions), (12, 64));
    let (chunks, vectors) = block_on(store.book_content(&book.id)).unwrap();
    assert_eq!(vectors.len(), chunks.len());
    // A second tab that computed them too writes nothing.
    let other = library(&store, true);
    assert!(!embed(&other, &book.id).unwrap());
}

#[test]
fn a_cancelled_embedding_leaves_the_book_searchable_and_waiting() {
    let store = Rc::new(MemoryStore::new());
    let library = library(&store, true);
    let book = add(&library);
    let cancel = CancelToken::new();
    cancel.cancel();
    let err = block_on(library.embed_pending(&book.id, &|_| {}, &cancel, &Unpaced)).unwrap_err();
    assert_eq!(err.name(), "AbortError");
    assert!(block_on(library.book(&book.id)).unwrap().awaits_vectors());
    assert_eq!(search(&library, "heron").len(), 3);
    assert!(embed(&library, &book.id).unwrap(), "and finishes later");
}

#[test]
fn without_an_embedder_a_book_awaits_nothing() {
    let store = Rc::new(MemoryStore::new());
    let library = library(&store, false);
    let book = add(&library);
    assert!(!book.awaits_vectors());
    assert!(!embed(&library, &book.id).unwrap());
    assert_eq!(search(&library, "otter").len(), 3);
    let err = embed(&library, "ghost");
    assert!(!err.unwrap(), "no embedder: nothing is even read");
    let err = embed(&self::library(&store, true), "ghost").unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
}

#[test]
fn a_book_stored_without_an_embedder_is_searched_then_embedded_by_a_library_with_one() {
    let store = Rc::new(MemoryStore::new());
    let book = add(&library(&store, false));
    assert_eq!(book.embedder, "none");
    let with_embedder = library(&store, true);
    // Before: an EmbedderMismatch for every default (semantic) search of it.
    assert_eq!(search(&with_embedder, "falcon").len(), 3, "found lexically");
    assert!(embed(&with_embedder, &book.id).unwrap());
    let stored = block_on(store.book(&book.id)).unwrap().unwrap();
    assert_eq!(
        (stored.embedder.as_str(), stored.dimensions),
        ("lectern-hashed-v1/64", 64)
    );
}

/// A book added under the host's id (a hash of its file, say) is stored
/// and found under it; the same id again is a `Storage` error (constraint)
/// that stores nothing; an id that is not 1 to 64 of `A-Z a-z 0-9 - _` is a
/// `Config` error.
#[test]
fn a_book_added_under_the_hosts_id_keeps_it_and_the_id_is_its_alone() {
    use lectern::error::{Error, StorageReason};
    let store = Rc::new(MemoryStore::new());
    let library = library(&store, false);
    let add_as = |id: &str| {
        let new = NewBook {
            title: "Animals".into(),
            author: None,
            source: BookSource::Text(text()),
        };
        let id = library.book_id_for(Some(id))?;
        block_on(library.add_book_lexical_as(id, new, &|_| {}, &CancelToken::new(), &Unpaced))
    };
    let book = add_as("sha256-1f2e3d_4c").expect("added");
    assert_eq!(book.id, "sha256-1f2e3d_4c");
    assert_eq!(block_on(store.books()).unwrap().len(), 1);
    let again = add_as("sha256-1f2e3d_4c").unwrap_err();
    assert!(
        matches!(
            again,
            Error::Storage {
                reason: StorageReason::Constraint,
                ..
            }
        ),
        "{again:?}"
    );
    assert_eq!(block_on(store.books()).unwrap().len(), 1, "nothing more stored");
    for bad in ["", "a b", "ünïcode", &"x".repeat(65), "../etc"] {
        assert!(matches!(add_as(bad), Err(Error::Config { .. })), "{bad:?}");
    }
    assert_ne!(library.book_id_for(None).unwrap(), book.id);
}
