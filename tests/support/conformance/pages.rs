//! Conformance cases for pages: stored with their book in its one write,
//! read one at a time, deleted with it; a book stored without pages.

use lectern::domain::Page;
use lectern::error::Error;
use lectern::storage::{BookStore, BookWrite, Store};

use super::{book, content};

fn pages(count: u32) -> Vec<Page> {
    (1..=count)
        .map(|n| Page {
            number: n,
            text: format!("Page {n}: «ünïcode» 日本語 🎉\n\nA second paragraph."),
            chapter: (n > 1).then(|| "CHAPTER II".to_owned()),
        })
        .collect()
}

/// Each page comes back by number, with its chapter; pages of another book
/// do not leak; deleting the book deletes them.
pub async fn pages_are_stored_read_and_deleted_with_their_book(store: impl Store + BookStore) {
    let (chunks, vectors) = content(3);
    let written = pages(3);
    store
        .put_book(BookWrite {
            pages: &written,
            ..BookWrite::new(&book("b1"), &chunks, &vectors)
        })
        .await
        .expect("put b1");
    store
        .put_book(BookWrite {
            pages: &pages(2),
            ..BookWrite::new(&book("b2"), &chunks, &vectors)
        })
        .await
        .expect("put b2");
    for page in &written {
        assert_eq!(store.page("b1", page.number).await.unwrap().as_ref(), Some(page));
    }
    assert_eq!(store.page("b1", 4).await.unwrap(), None);
    assert_eq!(store.page("b1", 0).await.unwrap(), None);
    assert_eq!(
        store.book_pages("b1").await.unwrap(),
        written,
        "all of them, in order"
    );
    assert_eq!(store.book_pages("b2").await.unwrap(), pages(2));
    store.delete_book("b1").await.expect("delete");
    assert!(matches!(store.page("b1", 1).await, Err(Error::NotFound { .. })));
    assert!(matches!(
        store.book_pages("b1").await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(store.book_pages("b2").await.unwrap().len(), 2);
    store
        .put_book(BookWrite::new(&book("b1"), &chunks, &vectors))
        .await
        .expect("put b1 again, as a book stored before pages");
    assert_eq!(store.page("b1", 1).await.unwrap(), None, "none left behind");
    assert_eq!(store.book_pages("b1").await.unwrap(), vec![]);
}

/// A failed `put_book` (the book exists) writes none of its pages.
pub async fn a_refused_book_writes_no_pages(store: impl Store + BookStore) {
    let (chunks, vectors) = content(2);
    store
        .put_book(BookWrite::new(&book("b1"), &chunks, &vectors))
        .await
        .expect("put");
    let refused = store
        .put_book(BookWrite {
            pages: &pages(3),
            ..BookWrite::new(&book("b1"), &chunks, &vectors)
        })
        .await;
    assert!(refused.is_err());
    assert_eq!(store.book_pages("b1").await.unwrap(), vec![]);
}
