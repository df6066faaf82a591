//! [`BookStore`] for the in-memory store.

use futures::future::LocalBoxFuture;

use super::memory::{MemoryStore, StoredBook};
use super::{BookStore, BookWrite};
use crate::domain::{Book, Chunk, Page, StoredVectors};
use crate::error::{Error, Result, StorageReason};

impl BookStore for MemoryStore {
    fn put_book<'a>(&'a self, new: BookWrite<'a>) -> LocalBoxFuture<'a, Result<()>> {
        let BookWrite {
            book,
            chunks,
            vectors,
            index_snapshot,
            lexical_index,
            pages,
        } = new;
        let mut books = self.books.borrow_mut();
        let result = if books.contains_key(&book.id) {
            Err(Error::storage_because(
                StorageReason::Constraint,
                format!("book {} already exists", book.id),
            ))
        } else {
            books.insert(
                book.id.clone(),
                StoredBook {
                    book: book.clone(),
                    chunks: chunks.to_vec(),
                    vectors: vectors.clone(),
                    snapshot: index_snapshot.map(<[u8]>::to_vec),
                    lexical: lexical_index.map(<[u8]>::to_vec),
                    pages: pages.to_vec(),
                },
            );
            Ok(())
        };
        Box::pin(async move { result })
    }

    fn book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Book>>> {
        let found = self.books.borrow().get(id).map(|b| b.book.clone());
        Box::pin(async move { Ok(found) })
    }

    fn books(&self) -> LocalBoxFuture<'_, Result<Vec<Book>>> {
        let mut all: Vec<Book> = self.books.borrow().values().map(|b| b.book.clone()).collect();
        crate::domain::sort_by(&mut all, |a, b| {
            a.created_at
                .total_cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        Box::pin(async move { Ok(all) })
    }

    fn update_book<'a>(&'a self, book: &'a Book) -> LocalBoxFuture<'a, Result<()>> {
        let result = match self.books.borrow_mut().get_mut(&book.id) {
            Some(stored) => {
                stored.book = book.clone();
                Ok(())
            }
            None => Err(Error::not_found("book", &book.id)),
        };
        Box::pin(async move { result })
    }

    fn book_content<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(Vec<Chunk>, StoredVectors)>> {
        let result = self
            .books
            .borrow()
            .get(id)
            .map(|b| (b.chunks.clone(), b.vectors.clone()))
            .ok_or_else(|| Error::not_found("book", id));
        Box::pin(async move { result })
    }

    fn put_vectors<'a>(
        &'a self,
        id: &'a str,
        embedder: &'a str,
        vectors: &'a StoredVectors,
    ) -> LocalBoxFuture<'a, Result<Option<Book>>> {
        let result = match self.books.borrow_mut().get_mut(id) {
            Some(stored) if stored.book.dimensions > 0 => Ok(None),
            Some(stored) => {
                stored.vectors = vectors.clone();
                stored.book.record_vectors(embedder, vectors);
                Ok(Some(stored.book.clone()))
            }
            None => Err(Error::not_found("book", id)),
        };
        Box::pin(async move { result })
    }

    fn page<'a>(&'a self, id: &'a str, number: u32) -> LocalBoxFuture<'a, Result<Option<Page>>> {
        let result = match self.books.borrow().get(id) {
            Some(stored) => Ok(stored.pages.iter().find(|p| p.number == number).cloned()),
            None => Err(Error::not_found("book", id)),
        };
        Box::pin(async move { result })
    }

    fn book_pages<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Page>>> {
        let result = match self.books.borrow().get(id) {
            Some(stored) => Ok(stored.pages.clone()),
            None => Err(Error::not_found("book", id)),
        };
        Box::pin(async move { result })
    }

    fn index_snapshot<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>> {
        let found = self.books.borrow().get(id).and_then(|b| b.snapshot.clone());
        Box::pin(async move { Ok(found) })
    }

    fn put_index_snapshot<'a>(&'a self, id: &'a str, snapshot: &'a [u8]) -> LocalBoxFuture<'a, Result<()>> {
        let result = match self.books.borrow_mut().get_mut(id) {
            Some(stored) => {
                stored.snapshot = Some(snapshot.to_vec());
                Ok(())
            }
            None => Err(Error::not_found("book", id)),
        };
        Box::pin(async move { result })
    }

    fn lexical_index<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>>> {
        let found = self.books.borrow().get(id).and_then(|b| b.lexical.clone());
        Box::pin(async move { Ok(found) })
    }

    fn put_lexical_index<'a>(&'a self, id: &'a str, bytes: &'a [u8]) -> LocalBoxFuture<'a, Result<()>> {
        let result = match self.books.borrow_mut().get_mut(id) {
            Some(stored) => {
                stored.lexical = Some(bytes.to_vec());
                Ok(())
            }
            None => Err(Error::not_found("book", id)),
        };
        Box::pin(async move { result })
    }

    fn delete_book<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        let result = match self.books.borrow_mut().remove(id) {
            Some(_) => Ok(()),
            None => Err(Error::not_found("book", id)),
        };
        Box::pin(async move { result })
    }
}
