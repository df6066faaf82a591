//! The ingestion job: what the page asks the ingestion module (in its
//! worker, or in the page without one) to prepare. One typed record, written
//! by the page and read by the module as JSON text; an EPUB's bytes travel
//! beside it (transferred, not copied into the text).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::retrieval::ingest::new_book::{BookSource, NewBook};
use crate::retrieval::text::chunk::ChunkSettings;

/// One book to cut into pages, chunks and a lexical index.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestJob {
    /// The id the page gave the book.
    pub book_id: String,
    /// Title.
    pub title: String,
    /// Author.
    #[serde(default)]
    pub author: Option<String>,
    /// Plain text, for a text book.
    #[serde(default)]
    pub text: Option<String>,
    /// One string per page, for a book given by pages.
    #[serde(default)]
    pub pages: Option<Vec<String>>,
    /// How chunks are cut.
    pub chunking: ChunkSettings,
}

impl IngestJob {
    /// The job as the JSON text that crosses to the ingestion module.
    pub fn to_text(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::protocol(format!("cannot write an ingestion job: {e}")))
    }

    /// A job read back from its JSON text.
    pub fn from_text(text: &str) -> Result<IngestJob> {
        serde_json::from_str(text).map_err(|e| Error::protocol(format!("malformed ingestion job: {e}")))
    }

    /// The book to prepare from its text, its pages or `epub` (an EPUB's
    /// bytes, which came beside the job): exactly one, else a `Protocol` error.
    /// (Plain optional fields rather than an enum: serde's tagged enums cost
    /// the ingestion module several KB.)
    pub fn into_new_book(self, epub: Option<Vec<u8>>) -> Result<NewBook> {
        let source = match (self.text, self.pages, epub) {
            (Some(text), None, None) => BookSource::Text(text),
            (None, Some(pages), None) => BookSource::Pages(pages),
            (None, None, Some(bytes)) => BookSource::Epub(bytes),
            _ => {
                return Err(Error::protocol(
                    "an ingestion job needs exactly one of text, pages or an EPUB's bytes",
                ))
            }
        };
        Ok(NewBook {
            title: self.title,
            author: self.author,
            source,
        })
    }
}
