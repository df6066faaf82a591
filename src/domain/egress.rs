//! The egress ledger: what each model request of a turn — and each request
//! a built-in tool made — sent off the device, so a page can show its
//! readers exactly what left it.

use serde::{Deserialize, Serialize};

use super::Mention;
use crate::json::from_json::FromJson;

/// Where a model's requests go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// `openai`, `anthropic`, or `custom` (a JS function: Lectern cannot see where it sends).
    pub provider: String,
    /// The host requests go to (lower-case, no port), when Lectern makes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The host declared the model local (`provider.local: true`): on the
    /// reader's device, so nothing left it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub local: bool,
}

impl Endpoint {
    /// A model reached through a host function Lectern cannot see into.
    pub fn custom() -> Self {
        Endpoint {
            provider: "custom".into(),
            host: None,
            local: false,
        }
    }
}

/// Why a model request was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum EgressPurpose {
    /// A step of the turn (an answer or tool calls).
    Answer,
    /// A summary of older history (`context: { strategy: 'summarize' }`).
    Summary,
    /// A second try at a structured answer that did not match `responseSchema`.
    Correction,
    /// A request a built-in tool made (`current_weather`), not a model's:
    /// its entry names the tool and the URL in [`EgressEntry::tool_request`].
    Tool,
}

/// Book passages a request carried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct PassageRef {
    /// The book.
    pub book_id: String,
    /// The passage's first page.
    pub start_page: u32,
    /// Its last page.
    pub end_page: u32,
    /// `alwaysRetrieve` (in the system message) or `search_book` (a tool result).
    pub via: String,
}

/// A tool result a request carried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultRef {
    /// The call it answers.
    pub call_id: String,
    /// The tool (empty if its call was not in the request).
    pub tool_name: String,
    /// Its length in characters.
    pub chars: usize,
}

/// A request a built-in tool sent (the `tool` entries of the ledger).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequest {
    /// The tool, e.g. `current_weather`.
    pub tool_name: String,
    /// The call it ran for.
    pub call_id: String,
    /// The service it went to, e.g. `open-meteo` (also the entry's `provider`).
    pub service: String,
    /// `GET`, `POST`, ...
    pub method: String,
    /// The whole URL, its query included: what the request carried.
    pub url: String,
}

// serde's derive reads it: FromJson does not flatten.
crate::from_json_via_serde!(EgressEntry);

/// One model request: where it went, how big it was, and which passages,
/// tool results and mentions were in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EgressEntry {
    /// The model call of the turn it belongs to (a summary call: the call it preceded).
    pub step: u32,
    /// Why it was made.
    pub purpose: EgressPurpose,
    /// The provider and host.
    #[serde(flatten)]
    pub endpoint: Endpoint,
    /// The model.
    pub model: String,
    /// Input tokens (reported by the provider, or estimated).
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Whether the counts are Lectern's estimate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// Characters of the system message (instructions, summary, passages, mentions).
    pub system_chars: usize,
    /// Messages sent besides the system message.
    pub messages: usize,
    /// Tool definitions offered, by name.
    pub tools: Vec<String>,
    /// Book passages included.
    pub passages: Vec<PassageRef>,
    /// Tool results included.
    pub tool_results: Vec<ToolResultRef>,
    /// Mentions resolved into the system message.
    pub mentions: Vec<Mention>,
    /// For a `tool` entry: the tool, its call and the URL it requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_request: Option<ToolRequest>,
}
