//! `search_book`: the tool a book conversation offers. It searches the
//! conversation's book up to the reader's current page — never past it.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use crate::domain::ToolDefinition;
use crate::retrieval::library::search_options::SearchOptions;
use crate::retrieval::reader::book_access::BookAccess;
use crate::retrieval::reader::budget::within_budget;
use crate::retrieval::reader::passages::{format_passages, NO_PASSAGES};
use crate::tool::{Tool, ToolContext, ToolResult};

/// The tool's name.
pub const SEARCH_BOOK: &str = "search_book";

/// Passages returned when the model gives no `top_k`.
pub const DEFAULT_TOP_K: usize = 5;

/// The `search_book` tool over a library.
pub struct SearchBookTool {
    library: Rc<dyn BookAccess>,
    definition: ToolDefinition,
    max_context_tokens: Option<usize>,
}

impl SearchBookTool {
    /// The tool searching `library`.
    pub fn new(library: Rc<dyn BookAccess>) -> Self {
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
        let budget = context.max_context_tokens.or(self.max_context_tokens);
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
