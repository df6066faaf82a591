//! "Always allow": a person's standing approval of one tool in one conversation.

use serde::Serialize;

use crate::json::from_json::FromJson;

/// A tool a person approved for the rest of a conversation (decision
/// `approveAlways`): its `ask` policy counts as `auto` there until
/// `resetApprovals`. It never lifts a `deny`.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// The conversation it holds in.
    pub conversation_id: String,
    /// The tool it allows.
    pub tool_name: String,
    /// When it was given (ms since the epoch).
    pub granted_at: f64,
    /// The paused turn whose resolve gave it.
    pub turn_id: String,
    /// The call whose decision gave it.
    pub call_id: String,
}
