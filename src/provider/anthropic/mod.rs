//! Anthropic's Messages API.

use super::http_model::{json_request, HttpModel, WireFormat};
use super::sse_body::decode_sse_body;
use super::{ModelRequest, PartStream, StreamPart};
use crate::domain::Endpoint;
use crate::domain::SortedMap;
use crate::error::Result;
use crate::http::{ByteStream, HttpRequest};
use crate::json::from_json::FromJson;

mod convert;
mod request;
mod response;
mod stream;
mod structured;

pub use request::request_body;
pub use response::parts_from_message;
pub use stream::EventDecoder as AnthropicDecoder;

/// An Anthropic endpoint and the model to ask (`provider: { kind: 'anthropic', ... }`).
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnthropicSettings {
    /// Base URL up to and including `/v1`; default `https://api.anthropic.com/v1`.
    #[serde(default = "default_base_url")]
    pub base_url: String,
    /// Model name, e.g. `claude-sonnet-4-5`.
    pub model: String,
    /// The `x-api-key`.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Ask for an SSE stream; default true.
    #[serde(default = "default_true")]
    pub stream: bool,
    /// Extra headers sent with every request.
    #[serde(default)]
    pub headers: SortedMap<String, String>,
    /// Sampling temperature (0–1).
    #[serde(default)]
    pub temperature: Option<f32>,
    /// `max_tokens`, which the API requires; default 4096.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// The `anthropic-version` header; default `2023-06-01`.
    #[serde(default = "default_version")]
    pub anthropic_version: String,
    /// Extended thinking: `{ budgetTokens }` (at least 1024, below `maxTokens`).
    /// With it, `temperature` is not sent, and the turn's signed thinking
    /// blocks go back with its tool calls, as the API requires.
    #[serde(default)]
    pub thinking: Option<ThinkingSettings>,
}

/// `thinking: { budgetTokens }` of an Anthropic provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThinkingSettings {
    /// Tokens the model may spend thinking (`budget_tokens`), part of `max_tokens`.
    pub budget_tokens: u32,
}

/// The smallest thinking budget the API accepts.
pub const MIN_THINKING_BUDGET: u32 = 1024;

impl AnthropicSettings {
    /// Why `thinking` cannot work with these settings, if it cannot.
    pub fn thinking_problem(&self) -> Option<String> {
        let budget = self.thinking?.budget_tokens;
        if budget < MIN_THINKING_BUDGET {
            Some(format!(
                "provider.thinking.budgetTokens must be at least {MIN_THINKING_BUDGET}, got {budget}"
            ))
        } else if budget >= self.max_tokens {
            Some(format!(
                "provider.thinking.budgetTokens ({budget}) must be below provider.maxTokens ({})",
                self.max_tokens
            ))
        } else {
            None
        }
    }
}

fn default_base_url() -> String {
    "https://api.anthropic.com/v1".into()
}
fn default_true() -> bool {
    true
}
fn default_max_tokens() -> u32 {
    4096
}
fn default_version() -> String {
    "2023-06-01".into()
}

/// A [`Model`](crate::provider::Model) served by the Anthropic Messages API.
pub type AnthropicProvider = HttpModel<AnthropicSettings>;

impl WireFormat for AnthropicSettings {
    fn model(&self) -> &str {
        &self.model
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint {
            provider: "anthropic".into(),
            host: Some(super::host_of(&self.base_url)),
            local: false,
        }
    }

    fn streams(&self) -> bool {
        self.stream
    }

    fn http_request(&self, request: &ModelRequest) -> HttpRequest {
        let url = format!("{}/messages", self.base_url.trim_end_matches('/'));
        let mut own = vec![
            ("anthropic-version".to_owned(), self.anthropic_version.clone()),
            // Anthropic refuses browser (CORS) calls without this opt-in.
            (
                "anthropic-dangerous-direct-browser-access".to_owned(),
                "true".to_owned(),
            ),
        ];
        if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty()) {
            own.push(("x-api-key".to_owned(), key.to_owned()));
        }
        let body = request_body(self, request).to_string();
        json_request(url, body, self.stream, own, &self.headers)
    }

    fn decode_stream(&self, body: ByteStream) -> PartStream {
        decode_sse_body(body, AnthropicDecoder::new())
    }

    fn decode_whole(&self, body: &str) -> Result<Vec<StreamPart>> {
        parts_from_message(body)
    }
}
