//! What adding a book takes (its title, author and content) and the
//! progress ingestion reports while it prepares one.

use serde::Serialize;

use crate::domain::Page;

/// What a book is made from.
#[derive(Debug, Clone, PartialEq)]
pub enum BookSource {
    /// Plain text (pages from form feeds, `[[page N]]` markers, or made).
    Text(String),
    /// One string per page.
    Pages(Vec<String>),
    /// Pages already cut, possibly with chapter titles.
    Prepared(Vec<Page>),
    /// The bytes of an EPUB file.
    Epub(Vec<u8>),
}

/// A book to add.
#[derive(Debug, Clone, PartialEq)]
pub struct NewBook {
    /// Title (required, non-empty).
    pub title: String,
    /// Author.
    pub author: Option<String>,
    /// The content.
    pub source: BookSource,
}

/// Where ingestion is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestProgress {
    /// The book being added.
    pub book_id: String,
    /// `chunking`, `embedding` or `indexing`.
    pub phase: &'static str,
    /// Units done.
    pub done: usize,
    /// Units in all.
    pub total: usize,
}
