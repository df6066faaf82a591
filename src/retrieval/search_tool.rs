//! `search_book`: the tool a book conversation offers. It searches the
//! conversation's book up to the reader's current page — never past it.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::budget::within_budget;
use super::library::{Library, SearchOptions, SearchResult};
use super::reader_context::passage_header;
use crate::domain::ToolDefinition;
use crate::tool::{Tool, ToolContext, ToolResult};

/// The tool's name.
pub const SEARCH_BOOK: &str = "search_book";

/// Passages returned when the model gives no `top_k`.
pub const DEFAULT_TOP_K: usize = 5;

/// What the tool answers when nothing qualifies.
pub const NO_PASSAGES: &str = "No relevant passages found.";

/// Formats passages as the model reads them: `[Pages X-Y]` then the text, blank lines between.
pub fn format_passages(results: &[SearchResult]) -> String {
    if results.is_empty() {
        return NO_PASSAGES.to_owned();
    }
    results
        .iter()
        .map(|r| format!("{}\n{}", passage_header(r.start_page, r.end_page), r.text))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The page ranges of the passages in text [`format_passages`] wrote:
/// each line `[Pages X-Y]`, in order.
pub fn passage_pages(text: &str) -> Vec<(u32, u32)> {
    text.lines().filter_map(header_pages).collect()
}

/// The passages in text [`format_passages`] wrote: each `[Pages X-Y]`
/// header's page range and the text up to the next header (trimmed).
pub fn passages_in_text(text: &str) -> Vec<(u32, u32, String)> {
    let mut passages: Vec<(u32, u32, String)> = Vec::new();
    for line in text.lines() {
        match header_pages(line) {
            Some((start, end)) => passages.push((start, end, String::new())),
            None => {
                if let Some((_, _, body)) = passages.last_mut() {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    for (_, _, body) in &mut passages {
        *body = body.trim().to_owned();
    }
    passages
}

/// The page range of a `[Pages X-Y]` line.
fn header_pages(line: &str) -> Option<(u32, u32)> {
    let range = line.strip_prefix("[Pages ")?.strip_suffix(']')?;
    let (start, end) = range.split_once('-')?;
    Some((start.parse().ok()?, end.parse().ok()?))
}

/// The `search_book` tool over a library.
pub struct SearchBookTool {
    library: Rc<Library>,
    definition: ToolDefinition,
    max_context_tokens: Option<usize>,
}

impl SearchBookTool {
    /// The tool searching `library`.
    pub fn new(library: Rc<Library>) -> Self {
        SearchBookTool {
            library,
            definition: ToolDefinition {
                name: SEARCH_BOOK.to_owned(),
                description: "Search the book the reader is reading for passages relevant to a query. \
                              Only returns text up to the reader's current page."
                    .to_owned(),
                parameters: json!({
                    "type": "object",
                    "properties": {
                        "query": { "type": "string", "minLength": 1, "description": "What to look for" },
                        "top_k": { "type": "integer", "minimum": 1, "maximum": 20, "default": DEFAULT_TOP_K, "description": "How many passages (default 5)" }
                    },
                    "required": ["query"],
                    "additionalProperties": false
                }),
            },
            max_context_tokens: None,
        }
    }

    /// Caps each result at `max_context_tokens` of passages ([`within_budget`]).
    pub fn with_budget(mut self, max_context_tokens: Option<usize>) -> Self {
        self.max_context_tokens = max_context_tokens;
        self
    }
}

impl Tool for SearchBookTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn execute(&self, arguments: Value, context: ToolContext) -> LocalBoxFuture<'static, ToolResult> {
        let library = self.library.clone();
        let budget = self.max_context_tokens;
        Box::pin(async move {
            let book_id = context
                .book_id
                .clone()
                .ok_or_else(|| "This conversation is not about a book.".to_owned())?;
            let query = arguments["query"].as_str().unwrap_or_default().to_owned();
            let k = arguments["top_k"].as_u64().unwrap_or(DEFAULT_TOP_K as u64) as usize;
            let book = library.book(&book_id).await.map_err(|e| e.to_string())?;
            let options = SearchOptions {
                book_ids: Some(vec![book_id]),
                k: Some(k),
                max_page: Some(book.current_page),
                mode: None,
            };
            let results = library
                .search(&query, &options, &context.cancel)
                .await
                .map_err(|e| e.to_string())?;
            let results = within_budget(results, budget);
            Ok(json!({
                "text": format_passages(&results),
                "query": query,
                "resultCount": results.len(),
                "results": results,
            }))
        })
    }

    fn read_only(&self) -> bool {
        true
    }

    fn present(&self, result: Value) -> (String, Option<Value>) {
        let text = result["text"].as_str().unwrap_or(NO_PASSAGES).to_owned();
        let mut details = result;
        if let Some(map) = details.as_object_mut() {
            map.remove("text");
        }
        (text, Some(details))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(start_page: u32, end_page: u32, text: &str) -> SearchResult {
        SearchResult {
            book_id: "b".into(),
            ordinal: 0,
            text: text.into(),
            start_page,
            end_page,
            chapter: None,
            score: 1.0,
        }
    }

    #[test]
    fn passage_pages_reads_back_what_format_passages_wrote() {
        let text = format_passages(&[
            passage(3, 4, "Syme met Gregory.\n[Pages of a diary]"),
            passage(12, 12, "日本語"),
        ]);
        assert_eq!(passage_pages(&text), [(3, 4), (12, 12)]);
        assert!(passage_pages(NO_PASSAGES).is_empty());
        let passages = passages_in_text(&text);
        assert_eq!(
            passages[0],
            (3, 4, "Syme met Gregory.\n[Pages of a diary]".to_owned())
        );
        assert_eq!(passages[1], (12, 12, "日本語".to_owned()));
        assert!(passages_in_text(NO_PASSAGES).is_empty());
    }
}
