//! Decisions: what a person says about a pending call, and what became of every call.

use serde_json::Value;

use crate::json::from_json::FromJson;

/// What a person decided about one pending call (`resolveApprovals`' input).
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalDecision {
    /// The call decided.
    pub call_id: String,
    /// Approve, reject or edit.
    pub decision: DecisionKind,
    /// For `edit`: the arguments to run with instead (an object, or its JSON text).
    #[serde(default)]
    pub arguments: Option<Value>,
    /// For `reject`: why, passed on to the model.
    #[serde(default)]
    pub reason: Option<String>,
}

/// The things a person can say about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum DecisionKind {
    /// Run it as the model wrote it.
    Approve,
    /// Do not run it; the model reads `User rejected this action`.
    Reject,
    /// Run it with other arguments.
    Edit,
    /// Run it, and let this tool run without asking for the rest of the
    /// conversation (until `resetApprovals`); a `deny` policy still refuses it.
    ApproveAlways,
}
