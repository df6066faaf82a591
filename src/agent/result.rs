//! What a finished turn resolves with.

use serde::Serialize;

use crate::domain::Usage;
use crate::error::Error;

/// Why a turn failed, with what it got done before.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnError {
    /// What went wrong.
    pub error: Error,
    /// Answer text streamed before the failure, if any (it was shown, not stored).
    pub partial_text: Option<String>,
    /// Model calls made before the failure.
    pub steps: u32,
    /// Tool calls completed before the failure (their steps are persisted).
    pub tool_calls: Vec<ToolCallRecord>,
}

impl From<Error> for TurnError {
    fn from(error: Error) -> Self {
        TurnError {
            error,
            partial_text: None,
            steps: 0,
            tool_calls: Vec::new(),
        }
    }
}

impl std::fmt::Display for TurnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

/// The outcome of `send`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnResult {
    /// The turn's id (events carry it too).
    pub turn_id: String,
    /// The assistant's final answer.
    pub text: String,
    /// Every tool call made during the turn, in order.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Tokens used over all model calls of the turn.
    pub usage: TurnUsage,
    /// How many model calls the turn made.
    pub steps: u32,
}

/// One tool call made during a turn and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    /// The provider's call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model sent them.
    pub arguments: String,
    /// The result handed back to the model, if the tool succeeded.
    pub result: Option<String>,
    /// What went wrong, if it failed.
    pub error: Option<String>,
    /// How long it ran.
    pub duration_ms: f64,
    /// Whether the result came from the cache.
    pub cached: bool,
}

/// Token usage summed over a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from cache.
    pub cached_input_tokens: u64,
    /// Cost in US dollars, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl From<Usage> for TurnUsage {
    fn from(usage: Usage) -> Self {
        TurnUsage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            cost_usd: None,
        }
    }
}
