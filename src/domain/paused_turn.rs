//! A turn paused for approval, as stored.

use serde::Serialize;
use serde_json::Value;

use super::{Decision, ReasoningBlock, ToolCall, TurnState};
use crate::json::from_json::FromJson;

/// A call waiting for a person's decision.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct PendingCall {
    /// The provider's call id.
    pub call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The arguments the model wrote (already valid against the tool's schema).
    pub arguments: Value,
}

/// Where a paused turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum PendingStatus {
    /// Waiting for decisions.
    Awaiting,
    /// Decided calls are running (claimed by one `resolveApprovals`).
    Resolving,
    /// Every call was decided and the turn went on.
    Resolved,
    /// Cancelled with `cancelPending`.
    Cancelled,
    /// Its time ran out before it was decided.
    Expired,
    /// A new message closed it undecided (`onNewMessage: 'reject'`).
    MovedOn,
}

impl PendingStatus {
    /// The word used in errors and records.
    pub fn as_str(self) -> &'static str {
        match self {
            PendingStatus::Awaiting => "awaiting",
            PendingStatus::Resolving => "resolving",
            PendingStatus::Resolved => "resolved",
            PendingStatus::Cancelled => "cancelled",
            PendingStatus::Expired => "expired",
            PendingStatus::MovedOn => "movedOn",
        }
    }

    /// Whether the turn is still open (its conversation cannot take a new message).
    pub fn is_open(self) -> bool {
        matches!(self, PendingStatus::Awaiting | PendingStatus::Resolving)
    }
}

impl PendingTurn {
    /// The turn as it is kept once settled (resolved, cancelled or expired):
    /// a tombstone with its ids, times, status and revision — enough to refuse
    /// a second resolve with its state — without the step state it no longer
    /// needs. The messages and tool-call records keep what happened. An open
    /// turn is returned as it is.
    pub fn pruned(mut self) -> PendingTurn {
        if !self.status.is_open() {
            self.calls = Vec::new();
            self.step = PausedStep::default();
        }
        self
    }

    /// Whether it is claimed by a `resolveApprovals` that can no longer finish (the page closed).
    pub fn is_abandoned(&self, now: f64) -> bool {
        self.status == PendingStatus::Resolving && self.step.claim_expires_at.is_some_and(|at| at <= now)
    }
}

/// A call of the paused response that is settled: what the model will read for it.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct SettledCall {
    /// The call.
    pub call_id: String,
    /// The result text the model reads.
    pub content: String,
}

/// A call a `resolveApprovals` claimed and was running, with what the person decided.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ClaimedCall {
    /// The call.
    pub call_id: String,
    /// `approved` or `edited`.
    pub decision: Decision,
}

/// The model response a turn paused in, and what is needed to go on from it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct PausedStep {
    /// The text the model wrote alongside its calls.
    pub text: String,
    /// The model's reasoning in that response (sent back with the step where the provider needs it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning: Vec<ReasoningBlock>,
    /// Every call of the response, in order, with the arguments that run (edits applied).
    pub calls: Vec<ToolCall>,
    /// Calls already settled (run, denied, rejected), in the order they settled.
    pub settled: Vec<SettledCall>,
    /// Calls claimed by a `resolveApprovals` that had not finished when it was last written.
    #[serde(default)]
    pub running: Vec<ClaimedCall>,
    /// When a claim by `resolveApprovals` is past any chance of finishing (its
    /// turn time limit, plus a grace period): a page that closed mid-resolve
    /// leaves a claim that others may then close.
    #[serde(default)]
    pub claim_expires_at: Option<f64>,
    /// Tools offered in this step (calls to others are refused).
    pub offered: Vec<String>,
    /// Whether the response asked for more calls than the turn allows (the turn
    /// ends with `MaxToolCallsError` once the step is settled).
    pub over_limit: bool,
    /// The turn's state when it paused (counters, usage, records, context inputs).
    pub state: TurnState,
}

/// A turn paused for approval, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct PendingTurn {
    /// The turn.
    pub turn_id: String,
    /// Its conversation.
    pub conversation_id: String,
    /// Calls still waiting for a decision.
    pub calls: Vec<PendingCall>,
    /// When the turn paused (ms since the epoch).
    pub created_at: f64,
    /// When its approval runs out.
    pub expires_at: f64,
    /// Where it stands.
    pub status: PendingStatus,
    /// Bumped at every write; a write expecting another revision is refused
    /// (so two tabs cannot both resolve a turn).
    pub revision: u32,
    /// How to go on.
    pub step: PausedStep,
}

/// What a write of a paused turn checks against the stored one
/// (`storage::check_revision`): read alone, without the rest of the record.
#[derive(Debug, Clone, Copy, PartialEq, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct PendingRevision {
    /// The stored revision.
    pub revision: u32,
    /// The stored status.
    pub status: PendingStatus,
}

impl From<&PendingTurn> for PendingRevision {
    fn from(turn: &PendingTurn) -> Self {
        PendingRevision {
            revision: turn.revision,
            status: turn.status,
        }
    }
}

/// A paused turn as the host sees it (`pendingApprovals`, `send`'s `pending`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingApproval {
    /// The turn to resolve.
    pub turn_id: String,
    /// Its conversation.
    pub conversation_id: String,
    /// The calls waiting for a decision.
    pub calls: Vec<PendingCall>,
    /// When it paused.
    pub created_at: f64,
    /// When its approval runs out.
    pub expires_at: f64,
}

impl From<&PendingTurn> for PendingApproval {
    fn from(turn: &PendingTurn) -> Self {
        PendingApproval {
            turn_id: turn.turn_id.clone(),
            conversation_id: turn.conversation_id.clone(),
            calls: turn.calls.clone(),
            created_at: turn.created_at,
            expires_at: turn.expires_at,
        }
    }
}
