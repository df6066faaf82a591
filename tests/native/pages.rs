//! `Library::page`: the text a reader shows, page by page, stored with the
//! book; typed errors for an unknown book, a page out of range and a book
//! stored before pages were kept; pages travel in book bundles.

use std::rc::Rc;

use futures::executor::block_on;
use lectern::error::{Error, StorageReason};
use lectern::retrieval::library::{BookSource, Library, NewBook};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::{BookStore, BookWrite, MemoryStore};

fn library(store: Rc<MemoryStore>) -> Library {
    Library::without_embedder(store, Rc::new(ManualClock::new(1.0e12)), ChunkSettings::default())
}

fn add(library: &Library, source: BookSource) -> lectern::domain::Book {
    let new = NewBook {
        title: "Pages".into(),
        author: None,
        source,
    };
    block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("ingests")
}

#[test]
fn every_page_of_an_added_book_comes_back_as_it_was_cut() {
    let lib = library(Rc::new(MemoryStore::new()));
    let texts = [
        "CHAPTER I\n\nThe first — «ünïcode».",
        "Second page 日本語 🎉.",
        "Third.",
    ];
    let book = add(&lib, BookSource::Text(texts.join("\u{000C}")));
    assert_eq!(book.page_count, 3);
    for (i, text) in texts.iter().enumerate() {
        let page = block_on(lib.page(&book.id, i as u32 + 1)).expect("page");
        assert_eq!((page.number, page.text.as_str()), (i as u32 + 1, *text));
    }
    let first = block_on(lib.page(&book.id, 1)).unwrap();
    assert_eq!(
        first.chapter.as_deref(),
        Some("CHAPTER I"),
        "chapter from the heading"
    );
}

#[test]
fn synthetic_pages_cover_the_whole_text_in_order() {
    let lib = library(Rc::new(MemoryStore::new()));
    let text: String = (0..400)
        .map(|i| format!("Sentence number {i} of the book. "))
        .collect();
    let book = add(&lib, BookSource::Text(text.clone()));
    assert!(book.page_count > 3, "{} pages", book.page_count);
    let joined: String = (1..=book.page_count)
        .map(|n| block_on(lib.page(&book.id, n)).unwrap().text)
        .collect::<Vec<_>>()
        .join(" ");
    let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(words(&joined), words(&text));
}

#[test]
fn unknown_books_and_pages_out_of_range_are_typed_errors() {
    let lib = library(Rc::new(MemoryStore::new()));
    let book = add(&lib, BookSource::Pages(vec!["One.".into(), "Two.".into()]));
    assert!(matches!(
        block_on(lib.page("nope", 1)),
        Err(Error::NotFound { .. })
    ));
    for n in [0, 3, 99] {
        let error = block_on(lib.page(&book.id, n)).unwrap_err();
        assert!(
            matches!(&error, Error::Config { message } if message.contains("1..=2")),
            "{error}"
        );
    }
    block_on(lib.delete_book(&book.id)).unwrap();
    assert!(matches!(
        block_on(lib.page(&book.id, 1)),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn a_book_stored_before_pages_were_kept_asks_to_be_added_again() {
    let store = Rc::new(MemoryStore::new());
    let lib = library(store.clone());
    let book = add(&lib, BookSource::Pages(vec!["One.".into(), "Two.".into()]));
    let (chunks, vectors) = block_on(store.book_content(&book.id)).unwrap();
    let old = Rc::new(MemoryStore::new());
    block_on(old.put_book(BookWrite::new(&book, &chunks, &vectors))).unwrap();
    let error = block_on(library(old).page(&book.id, 1)).unwrap_err();
    assert_eq!(error.storage_reason(), Some(StorageReason::Data), "{error}");
    assert!(error.to_string().contains("add it again"), "{error}");
}

#[test]
fn pages_travel_in_a_bundle_and_v1_bundles_still_import() {
    let first_store = Rc::new(MemoryStore::new());
    let lib = library(first_store.clone());
    let book = add(
        &lib,
        BookSource::Pages(vec!["One «ü».".into(), "Two 日本.".into()]),
    );
    let bytes = block_on(lib.export_book(&book.id)).unwrap();
    assert_eq!(bytes[8], 2);
    let other = library(Rc::new(MemoryStore::new()));
    block_on(other.import_book(&bytes)).expect("imports");
    assert_eq!(block_on(other.page(&book.id, 2)).unwrap().text, "Two 日本.");

    // A book without pages exports as version 1, as earlier Lectern did; it imports.
    let (chunks, vectors) = block_on(first_store.book_content(&book.id)).unwrap();
    let old = Rc::new(MemoryStore::new());
    block_on(old.put_book(BookWrite::new(&book, &chunks, &vectors))).unwrap();
    let v1 = block_on(library(old).export_book(&book.id)).unwrap();
    assert_eq!(v1[8], 1);
    let third = library(Rc::new(MemoryStore::new()));
    block_on(third.import_book(&v1)).expect("a v1 bundle imports");
    assert_eq!(block_on(third.books()).unwrap().len(), 1);
}
