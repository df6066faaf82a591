//! Books shipped prebuilt: a stored book out as one bundle
//! ([`crate::retrieval::formats::bundle`]), and a bundle checked and stored as it was exported.

use crate::domain::Book;
use crate::error::{Error, Result};
use crate::retrieval::formats::bundle::{decode_bundle, encode_bundle, BookBundle};
use crate::retrieval::index::VectorIndex;
use crate::retrieval::lexical::encode as lexical_bytes;
use crate::retrieval::lexical::LexicalIndex;
use crate::retrieval::library::Library;
use crate::storage::BookWrite;

impl Library {
    /// The stored book `id` as one bundle ([`crate::retrieval::formats::bundle`]): its record,
    /// chunks, vectors (if it has any), lexical index, ANN snapshot and pages;
    /// `NotFound` if there is none.
    pub async fn export_book(&self, id: &str) -> Result<Vec<u8>> {
        let book = self.book(id).await?;
        let (chunks, vectors) = self.store.book_content(id).await?;
        let lexical = lexical_bytes::encode(&self.load_lexical(id, &chunks).await?);
        let snapshot = self.store.index_snapshot(id).await?;
        let pages = self.store.book_pages(id).await?;
        Ok(encode_bundle(&BookBundle {
            book,
            chunks,
            vectors: (vectors.dims() > 0).then_some(vectors),
            lexical: Some(lexical),
            snapshot,
            pages,
        }))
    }

    /// Stores the book of an [`Library::export_book`] bundle under its own
    /// id, as it was exported. Checked first, nothing stored on failure: a
    /// malformed bundle, lexical index or ANN snapshot is a `ConfigError`, a
    /// book of another embedder an `EmbedderMismatch`, a book already here a
    /// `ConfigError`.
    pub async fn import_book(&self, bytes: &[u8]) -> Result<Book> {
        let bundle = decode_bundle(bytes)?;
        let book = bundle.book;
        if book.embedder != self.embedder_model() {
            return Err(Error::EmbedderMismatch {
                message: format!(
                    "the bundle's book was embedded with {:?}, but this Lectern embeds with {:?}",
                    book.embedder,
                    self.embedder_model()
                ),
            });
        }
        let vectors = bundle.vectors.unwrap_or_default();
        if let Some(snapshot) = &bundle.snapshot {
            VectorIndex::from_snapshot(snapshot, vectors.len())
                .map_err(|e| Error::config(format!("the bundle's index snapshot: {e}")))?;
        }
        let lexical = match bundle.lexical {
            Some(bytes) => lexical_bytes::decode(&bytes, bundle.chunks.len())
                .map(|_| bytes)
                .map_err(|e| Error::config(format!("the bundle's lexical index: {e}")))?,
            None => lexical_bytes::encode(&LexicalIndex::build(
                bundle.chunks.iter().map(|c| c.text.as_str()),
            )),
        };
        if self.store.book(&book.id).await?.is_some() {
            return Err(Error::config(format!(
                "book {} is already in the library (delete it first to replace it)",
                book.id
            )));
        }
        self.store
            .put_book(BookWrite {
                book: &book,
                chunks: &bundle.chunks,
                vectors: &vectors,
                index_snapshot: bundle.snapshot.as_deref(),
                lexical_index: Some(&lexical),
                pages: &bundle.pages,
            })
            .await?;
        Ok(book)
    }
}
