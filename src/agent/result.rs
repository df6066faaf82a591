//! What a finished turn resolves with.

use serde::{Deserialize, Serialize};

use crate::approval::{Decision, PendingCall};
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
    /// Tool calls settled before the failure — for a step cut off by the time
    /// limit, its running calls answered interrupted and the others not run
    /// (their steps are persisted).
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

/// Whether a turn answered or paused for approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TurnStatus {
    /// The model answered; `text` is the answer.
    Completed,
    /// Calls wait for a person's decision (`pending`); resume with `resolveApprovals`.
    AwaitingApproval,
}

/// The outcome of `send` and `resolveApprovals`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnResult {
    /// Completed, or paused for approval.
    pub status: TurnStatus,
    /// The turn's id (events carry it too).
    pub turn_id: String,
    /// The assistant's final answer (empty while the turn awaits approval).
    pub text: String,
    /// The calls waiting for a decision, when the turn is paused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingCall>,
    /// Every tool call made during the turn, in order.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Tokens used over all model calls of the turn.
    pub usage: TurnUsage,
    /// How many model calls the turn made.
    pub steps: u32,
}

/// One tool call made during a turn and what came of it (arguments redacted as configured).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    /// The provider's call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The conversation of the turn.
    pub conversation_id: String,
    /// The turn that made the call.
    pub turn_id: String,
    /// Position among the turn's calls (0, 1, ...).
    pub position: u32,
    /// How it came to run or not.
    pub decision: Decision,
    /// The arguments as the model wrote them.
    pub original_arguments: String,
    /// The arguments it ran with (differs from `original_arguments` when edited).
    pub arguments: String,
    /// Why a person rejected it, if they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The result handed back to the model, if the tool succeeded.
    pub result: Option<String>,
    /// What went wrong, if it failed.
    pub error: Option<String>,
    /// How long it ran.
    pub duration_ms: f64,
    /// Whether the result came from the cache.
    pub cached: bool,
    /// When it started (or was settled without running), ms since the epoch.
    pub started_at: f64,
    /// When it finished.
    pub finished_at: f64,
}

impl ToolCallRecord {
    /// The record of a call settled without running (denied, rejected, refused, cancelled).
    pub fn not_run(
        call: &crate::domain::ToolCall,
        arguments: String,
        decision: Decision,
        error: String,
        now: f64,
    ) -> Self {
        ToolCallRecord {
            id: call.id.clone(),
            name: call.name.clone(),
            conversation_id: String::new(),
            turn_id: String::new(),
            position: 0,
            decision,
            original_arguments: arguments.clone(),
            arguments,
            reason: None,
            result: None,
            error: Some(error),
            duration_ms: 0.0,
            cached: false,
            started_at: now,
            finished_at: now,
        }
    }
}

/// Token usage summed over a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
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
