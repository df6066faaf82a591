//! A stored book's pages, one at a time, for a reader.

use crate::domain::Page;
use crate::error::{Error, Result, StorageReason};
use crate::retrieval::library::{check_page_number, Library};

impl Library {
    /// Page `number` of book `id`: `NotFound` for an unknown book, a
    /// `ConfigError` for a number outside `1..=page_count` (or one the book's
    /// page markers skipped), a `StorageError` (reason `data`) asking to add
    /// the book again if it was stored before Lectern kept pages.
    pub async fn page(&self, id: &str, number: u32) -> Result<Page> {
        // The page first: a reader's turn costs one read; the book only explains a miss.
        if number > 0 {
            if let Some(page) = self.store.page(id, number).await? {
                return Ok(page);
            }
        }
        let book = self.book(id).await?;
        check_page_number(&book, number)?;
        if self.store.book_pages(id).await?.is_empty() {
            return Err(Error::storage_because(
                StorageReason::Data,
                format!(
                    "book {id} ({:?}) was stored before Lectern kept its pages, so they cannot be shown: \
                     delete it and add it again to read it page by page (search still works)",
                    book.title
                ),
            ));
        }
        Err(Error::config(format!(
            "book {id} has no page {number} (its page markers skip it)"
        )))
    }
}
