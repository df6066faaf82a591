//! A page of a book, as stored with it and shown to the reader.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// One page of a book (as stored with it, and as `lectern.page` returns it).
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// 1-based page number.
    pub number: u32,
    /// The page's text.
    pub text: String,
    /// Its chapter, when the source says (EPUB navigation); else found from headings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chapter: Option<String>,
}
