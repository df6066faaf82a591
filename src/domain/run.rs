//! Headless runs as stored: what was asked, what happened, and the log.

use serde::Serialize;

use super::{Message, ToolCallRecord, TurnUsage};
use crate::json::from_json::FromJson;

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum RunStatus {
    /// Started and not finished (or the page closed while it ran).
    Running,
    /// The model answered having run only read-only tools (or none).
    Completed,
    /// The model answered after running a tool that may have changed
    /// something: waiting for a person's review (`reviewRun`).
    Proposed,
    /// A proposed run a person accepted.
    Accepted,
    /// A proposed run a person rejected; its log and tool calls are kept.
    Rejected,
    /// It failed or timed out; `error` says why.
    Failed,
}

/// A person's verdict on a run (`reviewRun`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum ReviewDecision {
    /// What the run did is kept.
    Accept,
    /// What the run did is not wanted (Lectern undoes nothing: the host does).
    Reject,
}

/// The review of a run.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct RunReview {
    /// Accept or reject.
    pub decision: ReviewDecision,
    /// The reviewer's note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// When (ms since the epoch).
    pub at: f64,
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    /// The error's JS name, e.g. `TimeoutError`.
    pub name: String,
    /// What went wrong.
    pub message: String,
}

/// A headless run, as stored and as `runHeadless` resolves.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    /// The run.
    pub run_id: String,
    /// Where it ran.
    pub conversation_id: String,
    /// What it was asked to do.
    pub instruction: String,
    /// Running, completed or failed.
    pub status: RunStatus,
    /// The answer (or the text streamed before a failure).
    pub text: String,
    /// Why it failed.
    pub error: Option<RunError>,
    /// The messages the run added to its conversation, in order.
    pub log: Vec<Message>,
    /// Every tool call of the run.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Tokens used.
    pub usage: TurnUsage,
    /// Model calls made.
    pub steps: u32,
    /// When it started (ms since the epoch).
    pub started_at: f64,
    /// When it ended.
    pub finished_at: Option<f64>,
    /// A person's review, once given (`reviewRun`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<RunReview>,
    /// What each model request of the run sent off the device (absent in
    /// runs stored before the ledger).
    #[serde(default)]
    pub egress: Vec<super::EgressEntry>,
}

impl RunRecord {
    /// A run that has just started: `running`, nothing done yet.
    pub fn started(run_id: String, conversation_id: &str, instruction: &str, started_at: f64) -> Self {
        RunRecord {
            run_id,
            conversation_id: conversation_id.to_owned(),
            instruction: instruction.to_owned(),
            status: RunStatus::Running,
            text: String::new(),
            error: None,
            log: Vec::new(),
            tool_calls: Vec::new(),
            usage: TurnUsage::default(),
            steps: 0,
            started_at,
            finished_at: None,
            review: None,
            egress: Vec::new(),
        }
    }
}
