//! Language-model providers: the [`Model`] seam and its implementations.
//!
//! A provider turns a [`ModelRequest`] into a stream of [`StreamPart`]s. A
//! non-streamed answer is delivered as the same parts, so callers have one
//! code path; [`accumulate`] folds parts into a [`ModelResponse`].

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;

use crate::domain::{Endpoint, Message, ReasoningBlock, ResponseFormat, ToolCall, ToolDefinition, Usage};
use crate::error::Result;
use crate::runtime::cancel::CancelToken;

mod accumulate;
pub mod answer_defaults;
pub mod anthropic;
mod config;
pub mod event_parts;
mod factory;
mod guarded;
mod http_error;
pub mod http_model;
pub mod local;
pub mod openai;
mod policy;
mod pricing;
mod quotes;
mod rate_limit;
mod retry;
mod retry_after;
pub mod scripted;
pub mod sse;
pub mod sse_body;
mod temperature;
mod timeouts;

pub use accumulate::{accumulate, Accumulator};
pub use config::{CustomSettings, ProviderConfig, ProviderKind};
pub use factory::{missing_custom_call, provider_for, with_policy};
pub use guarded::GuardedModel;
pub use http_error::{error_for, error_for_status};
pub use policy::{CallPolicy, RateLimit, RetryTuning, Timeouts};
pub use pricing::{Price, PriceTable};
pub use quotes::{nothing_to_quote, QuotesModel, QuotesSettings};
pub use rate_limit::RateLimiter;
pub use retry::{backoff_ms, is_retryable, with_retries};
pub use retry_after::{http_date_ms, retry_after_ms};
pub(crate) use temperature::temperature_json;

/// What the model is asked.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelRequest {
    /// The system prompt, sent first.
    pub system: Option<String>,
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// Tools the model may call.
    pub tools: Vec<ToolDefinition>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Upper bound on generated tokens.
    pub max_tokens: Option<u32>,
    /// The JSON Schema the answer must match (structured output), if any.
    pub response_format: Option<ResponseFormat>,
    /// The model to ask instead of the configured one (`send`'s `model`);
    /// OpenAI-compatible and Anthropic providers send it, a custom function
    /// reads it, local models ignore it.
    pub model: Option<String>,
    /// Whether an earlier step of this turn called tools: a `toolChoice`
    /// that forces a call (`required`, or one function) is then sent as
    /// `auto`, so that the model can answer instead of calling again until a
    /// limit stops the turn (as the OpenAI Agents SDK's `reset_tool_choice`).
    pub tools_called: bool,
}

impl ModelRequest {
    /// The model this request asks: its own, or `configured`.
    pub fn model_or<'a>(&'a self, configured: &'a str) -> &'a str {
        self.model.as_deref().unwrap_or(configured)
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// It finished its answer.
    Stop,
    /// It wants tools run.
    ToolCalls,
    /// It hit the token limit.
    Length,
    /// The provider's content filter stopped it.
    ContentFilter,
    /// Anything else the provider reported.
    Other(String),
}

/// One piece of a model's answer, as the provider streams it.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamPart {
    /// More answer text.
    TextDelta(String),
    /// A tool call begins; `index` identifies it among this answer's calls.
    ToolCallStart {
        /// Position of the call in this answer.
        index: usize,
        /// Provider-assigned call id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a tool call's JSON arguments.
    ToolCallDelta {
        /// Which call.
        index: usize,
        /// The next fragment of the arguments text.
        arguments: String,
    },
    /// A tool call's arguments are complete.
    ToolCallEnd {
        /// Which call.
        index: usize,
    },
    /// More reasoning ("thinking") text, before the answer.
    ReasoningDelta(String),
    /// The signature of the reasoning block just streamed (Anthropic); it ends that block.
    ReasoningSignature(String),
    /// A whole redacted reasoning block: opaque data, sent back unchanged.
    RedactedReasoning(String),
    /// Token usage for this call.
    Usage(Usage),
    /// The model stopped, for this reason.
    Finish(FinishReason),
}

impl StreamPart {
    /// A `TextDelta` from the string field `key` of `object`, unless it is missing or empty.
    pub fn text_field(object: &serde_json::Value, key: &str) -> Option<StreamPart> {
        object
            .get(key)
            .and_then(serde_json::Value::as_str)
            .filter(|t| !t.is_empty())
            .map(|t| StreamPart::TextDelta(t.to_owned()))
    }
}

/// A whole answer, folded from its parts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelResponse {
    /// The answer text.
    pub text: String,
    /// Tool calls, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// The model's reasoning, block by block.
    pub reasoning: Vec<ReasoningBlock>,
    /// Token usage, if the provider reported it.
    pub usage: Option<Usage>,
    /// Why it stopped, if the provider said.
    pub finish_reason: Option<FinishReason>,
}

/// The parts of one answer, as they arrive.
pub type PartStream = LocalBoxStream<'static, Result<StreamPart>>;

/// A language model reachable through some provider.
pub trait Model {
    /// Sends `request`; resolves once the provider accepted it, with the
    /// answer's parts to follow. Tripping `cancel` ends both with `Aborted`.
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>>;

    /// The model's name, for usage records and prices.
    fn model_name(&self) -> &str;

    /// Where requests go, for the egress ledger (default: a `custom` model).
    fn endpoint(&self) -> Endpoint {
        Endpoint::custom()
    }
}

/// The host of a URL, lower-cased (no scheme, credentials, port or path).
pub fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    host.split(':').next().unwrap_or_default().to_ascii_lowercase()
}
