//! What became of each tool call: the record every call leaves, stored with its step.

use serde::Serialize;

use super::ToolCall;
use crate::json::from_json::FromJson;

/// How a call came to run or not, as its record tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum Decision {
    /// Its policy let it run without asking (or it could not run at all: unknown tool, bad arguments, over the limit).
    Auto,
    /// A person approved it.
    Approved,
    /// A person rejected it.
    Rejected,
    /// A person changed its arguments, and it ran with them.
    Edited,
    /// Its policy refused it.
    Denied,
    /// Its turn was cancelled while it waited.
    Cancelled,
    /// Its approval expired.
    Expired,
    /// A person approved it with "always allow" (`approveAlways`): the tool runs
    /// without asking for the rest of the conversation.
    ApprovedAlways,
    /// The user sent a new message instead of deciding (`onNewMessage: 'reject'`).
    MovedOn,
}

/// One tool call made during a turn and what came of it (arguments redacted as configured).
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
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
    /// How many times the tool ran for it: more than 1 after retries
    /// (`registerTool({ retries })`), 0 when it did not run (refused, invalid
    /// arguments, a cached result). Records stored before it read 1.
    #[serde(default = "one")]
    pub attempts: u32,
    /// The cost in USD of the model step that asked for the call, where the
    /// price is known (a widget shows it on the call's card after a reload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_cost_usd: Option<f64>,
}

fn one() -> u32 {
    1
}

impl ToolCallRecord {
    /// The record of a call settled without running (denied, rejected, refused, cancelled).
    pub fn not_run(call: &ToolCall, arguments: String, decision: Decision, error: String, now: f64) -> Self {
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
            attempts: 0,
            step_cost_usd: None,
        }
    }
}
