//! The ingestion job: what the page asks the ingestion module (in its
//! worker, or in the page without one) to prepare. One typed record, written
//! by the page and read by the module as JSON text; an EPUB's bytes travel
//! beside it (transferred, not copied into the text).

use serde::{Deserialize, Serialize};

use super::chunk::ChunkSettings;
use super::new_book::{BookSource, NewBook};
use crate::error::{Error, Result};

/// One book to cut into pages, chunks and a lexical index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestJob {
    /// The id the page gave the book.
    pub book_id: String,
    /// Title.
    pub title: String,
    /// Author.
    #[serde(default)]
    pub author: Option<String>,
    /// The content (an EPUB's bytes travel beside the job).
    pub content: JobContent,
    /// How chunks are cut.
    pub chunking: ChunkSettings,
}

/// What a job's book is made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum JobContent {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// One string per page.
    Pages {
        /// The pages.
        pages: Vec<String>,
    },
    /// An EPUB file, whose bytes come with the job.
    Epub,
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

    /// The book to prepare, with `epub` (the bytes that came beside the job)
    /// for an EPUB job; a `Protocol` error when bytes are missing or stray.
    pub fn into_new_book(self, epub: Option<Vec<u8>>) -> Result<NewBook> {
        let source = match (self.content, epub) {
            (JobContent::Text { text }, None) => BookSource::Text(text),
            (JobContent::Pages { pages }, None) => BookSource::Pages(pages),
            (JobContent::Epub, Some(bytes)) => BookSource::Epub(bytes),
            (JobContent::Epub, None) => {
                return Err(Error::protocol("an EPUB ingestion job came without its bytes"))
            }
            (_, Some(_)) => {
                return Err(Error::protocol(
                    "bytes came with an ingestion job that is not an EPUB",
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
