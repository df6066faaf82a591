//! What a library search is asked (books, k, the page bound, the ranking)
//! and what each of its results holds.

use serde::Serialize;

use crate::json::from_json::FromJson;
use crate::retrieval::library::search_mode::SearchMode;

/// Options of a search.
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchOptions {
    /// Only these books (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_ids: Option<Vec<String>>,
    /// How many results (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// No result may end after this page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_page: Option<u32>,
    /// How to rank (default [`Library::default_mode`](crate::retrieval::library::Library::default_mode)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SearchMode>,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// The book.
    pub book_id: String,
    /// The chunk's position in the book.
    pub ordinal: u32,
    /// The passage.
    pub text: String,
    /// First page.
    pub start_page: u32,
    /// Last page.
    pub end_page: u32,
    /// Its chapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chapter: Option<String>,
    /// Higher is better; what it is depends on the mode ([`SearchMode`]):
    /// BM25 score (lexical), cosine similarity (semantic), reciprocal-rank
    /// fusion score (hybrid).
    pub score: f32,
}
