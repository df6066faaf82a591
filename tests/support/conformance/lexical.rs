//! Conformance cases for lexical indexes: stored with their book, replaced,
//! deleted with it; a book without vectors, and one given them later.

use lectern::domain::StoredVectors;
use lectern::storage::{BookStore, BookWrite, Store};

use super::{book, content};

/// A book searched lexically only: no vectors, its lexical index stored with it.
pub async fn a_book_without_vectors_round_trips_with_its_lexical_index(store: impl Store + BookStore) {
    let (chunks, _) = content(lectern::storage::VECTOR_BATCH + 3);
    let mut b = book("b1");
    (b.embedder, b.dimensions, b.chunk_count) = ("none".into(), 0, chunks.len() as u32);
    let lexical: Vec<u8> = (0..=255).chain(0..40).collect();
    store
        .put_book(BookWrite {
            lexical_index: Some(&lexical),
            ..BookWrite::new(&b, &chunks, &StoredVectors::empty(0))
        })
        .await
        .expect("put");
    let (got_chunks, got_vectors) = store.book_content("b1").await.expect("content");
    assert_eq!(got_chunks, chunks);
    assert_eq!((got_vectors.dims(), got_vectors.len()), (0, 0));
    assert_eq!(store.lexical_index("b1").await.unwrap(), Some(lexical));
    assert_eq!(store.index_snapshot("b1").await.unwrap(), None);
}

/// Saved apart (a book stored before lexical search gets one), replaced,
/// refused for a missing book, deleted with its book.
pub async fn a_lexical_index_is_saved_replaced_and_deleted(store: impl Store + BookStore) {
    let (chunks, vectors) = content(3);
    store
        .put_book(BookWrite {
            index_snapshot: Some(&[5]),
            ..BookWrite::new(&book("b1"), &chunks, &vectors)
        })
        .await
        .unwrap();
    assert_eq!(
        store.lexical_index("b1").await.unwrap(),
        None,
        "an old book has none"
    );
    store.put_lexical_index("b1", &[1, 2]).await.expect("save");
    assert_eq!(store.lexical_index("b1").await.unwrap(), Some(vec![1, 2]));
    store.put_lexical_index("b1", &[8; 500]).await.expect("replace");
    assert_eq!(store.lexical_index("b1").await.unwrap(), Some(vec![8; 500]));
    assert_eq!(
        store.index_snapshot("b1").await.unwrap(),
        Some(vec![5]),
        "the snapshot stays"
    );
    let err = store.put_lexical_index("ghost", &[1]).await.unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
    assert_eq!(
        store.lexical_index("ghost").await.unwrap(),
        None,
        "nothing written"
    );
    store.delete_book("b1").await.unwrap();
    assert_eq!(store.lexical_index("b1").await.unwrap(), None);
}

/// Stored lexical-first (an embedder named, no vectors), then given its
/// vectors in one write that updates the record's dimension and keeps its
/// reader's page; a second writer (another tab) writes nothing.
pub async fn a_book_stored_before_its_vectors_gets_them_once(store: impl Store + BookStore) {
    let (chunks, vectors) = content(lectern::storage::VECTOR_BATCH + 3);
    let mut b = book("b1");
    (b.dimensions, b.chunk_count) = (0, chunks.len() as u32);
    store
        .put_book(BookWrite {
            lexical_index: Some(&[7]),
            ..BookWrite::new(&b, &chunks, &StoredVectors::empty(0))
        })
        .await
        .expect("put");
    assert!(store.book("b1").await.unwrap().unwrap().awaits_vectors());
    b.current_page = 3;
    store.update_book(&b).await.expect("the reader moves meanwhile");
    let stored = store
        .put_vectors("b1", "model-b/4", &vectors)
        .await
        .expect("vectors");
    let stored = stored.expect("written");
    assert_eq!(
        (stored.embedder.as_str(), stored.dimensions, stored.current_page),
        ("model-b/4", 4, 3)
    );
    assert_eq!(store.book("b1").await.unwrap(), Some(stored.clone()));
    let (got_chunks, got_vectors) = store.book_content("b1").await.unwrap();
    assert_eq!(got_chunks, chunks);
    assert_eq!(got_vectors.flat(), vectors.flat());
    let mut other = StoredVectors::empty(4);
    (0..chunks.len()).for_each(|_| other.push(&[1.0, 0.0, 0.0, 0.0]));
    assert_eq!(store.put_vectors("b1", "model-c/4", &other).await.unwrap(), None);
    assert_eq!(
        store.book_content("b1").await.unwrap().1.flat(),
        vectors.flat(),
        "kept"
    );
    assert_eq!(store.book("b1").await.unwrap(), Some(stored));
    let err = store
        .put_vectors("ghost", "model-b/4", &vectors)
        .await
        .unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
}
