//! OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio, vLLM, llama.cpp, ...).

use super::http_model::{json_request, HttpModel, WireFormat};
use super::{ModelRequest, PartStream, StreamPart};
use crate::domain::Endpoint;
use crate::domain::SortedMap;
use crate::error::Result;
use crate::http::{ByteStream, HttpRequest};
use crate::json::from_json::FromJson;

mod request;
mod response;
mod stream;

pub use request::{message_json, request_body};
pub use response::parts_from_response;
pub use stream::{decode_openai_body, ChunkDecoder};

/// Where an `openai` provider without a `baseUrl` sends its requests: OpenAI's own API.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

fn default_base_url() -> String {
    OPENAI_BASE_URL.to_owned()
}

/// A chat-completions endpoint and the model to ask (`provider: { kind: 'openai', ... }`).
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenAiSettings {
    /// Base URL up to and including `/v1` (default [`OPENAI_BASE_URL`]).
    #[serde(default = "default_base_url")]
    pub base_url: String,
    /// Model name sent with each request.
    pub model: String,
    /// Bearer token; omitted for servers that need none.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Ask for an SSE stream (otherwise one JSON answer); default true.
    #[serde(default = "default_true")]
    pub stream: bool,
    /// Extra headers sent with every request.
    #[serde(default)]
    pub headers: SortedMap<String, String>,
    /// Default sampling temperature.
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Default token limit.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// `tool_choice`, sent when tools are offered: `"auto"`, `"none"`, `"required"` or a function
    /// (one that forces a call is sent as `"auto"` once the turn called tools).
    #[serde(default)]
    pub tool_choice: Option<serde_json::Value>,
    /// Send an assistant tool-call message's reasoning back as `reasoning_content`
    /// (DeepSeek's thinking mode requires it); default: only for `api.deepseek.com`.
    #[serde(default)]
    pub replay_reasoning: Option<bool>,
    /// The name of the token-limit field; default `max_completion_tokens` for
    /// `api.openai.com` (its newer models refuse `max_tokens`), else `max_tokens`.
    #[serde(default)]
    pub max_tokens_param: Option<MaxTokensParam>,
}

/// `maxTokensParam`: which field carries the token limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromJson)]
pub enum MaxTokensParam {
    /// `max_tokens`, which local servers and most compatible APIs take.
    #[serde(rename = "max_tokens")]
    MaxTokens,
    /// `max_completion_tokens`, OpenAI's current name.
    #[serde(rename = "max_completion_tokens")]
    MaxCompletionTokens,
}

impl OpenAiSettings {
    /// The host of `base_url`, lower-cased (no scheme, port or path).
    fn host(&self) -> String {
        super::host_of(&self.base_url)
    }

    /// Whether tool-call messages carry their reasoning back (`replayReasoning`).
    pub fn replays_reasoning(&self) -> bool {
        self.replay_reasoning
            .unwrap_or_else(|| self.host() == "api.deepseek.com")
    }

    /// The token-limit field's name (`maxTokensParam`).
    pub fn max_tokens_field(&self) -> &'static str {
        let param = self
            .max_tokens_param
            .unwrap_or(if self.host() == "api.openai.com" {
                MaxTokensParam::MaxCompletionTokens
            } else {
                MaxTokensParam::MaxTokens
            });
        match param {
            MaxTokensParam::MaxTokens => "max_tokens",
            MaxTokensParam::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

fn default_true() -> bool {
    true
}

/// A [`Model`](crate::provider::Model) served by an OpenAI-compatible server.
pub type OpenAiProvider = HttpModel<OpenAiSettings>;

impl WireFormat for OpenAiSettings {
    fn model(&self) -> &str {
        &self.model
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint {
            provider: "openai".into(),
            host: Some(self.host()),
            local: false,
        }
    }

    fn streams(&self) -> bool {
        self.stream
    }

    fn http_request(&self, request: &ModelRequest) -> HttpRequest {
        let url = format!("{}/chat/completions", self.base_url.trim_end_matches('/'));
        let auth = self
            .api_key
            .as_deref()
            .filter(|k| !k.is_empty())
            .map(|key| ("authorization".to_owned(), format!("Bearer {key}")));
        let body = request_body(self, request).to_string();
        json_request(url, body, self.stream, auth.into_iter().collect(), &self.headers)
    }

    fn decode_stream(&self, body: ByteStream) -> PartStream {
        decode_openai_body(body)
    }

    fn decode_whole(&self, body: &str) -> Result<Vec<StreamPart>> {
        parts_from_response(body)
    }
}
