//! A passage of a book: the unit of retrieval, as stored.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// A passage of a book, the unit of retrieval.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// Position in the book (0, 1, 2, ...).
    pub ordinal: u32,
    /// The passage.
    pub text: String,
    /// The page it starts on.
    pub start_page: u32,
    /// The page it ends on.
    pub end_page: u32,
    /// The chapter it is in, if the book has chapters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chapter: Option<String>,
}
