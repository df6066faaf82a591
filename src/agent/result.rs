//! What a finished turn resolves with.

use serde::Serialize;

use crate::approval::PendingCall;
use crate::domain::{EgressEntry, Message, Quoted, Source, SourceCheck, ToolCallRecord, TurnUsage};
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
    /// Tokens used before the failure (an aborted or broken-off call's
    /// estimated, marked `estimated`), with their cost where known.
    pub usage: TurnUsage,
    /// What each model request sent off the device before the failure.
    pub egress: Vec<EgressEntry>,
}

impl From<Error> for TurnError {
    fn from(error: Error) -> Self {
        TurnError {
            error,
            partial_text: None,
            steps: 0,
            tool_calls: Vec::new(),
            usage: TurnUsage::default(),
            egress: Vec::new(),
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
    /// What each model request of the turn sent off the device, in order.
    pub egress: Vec<EgressEntry>,
    /// The answer parsed as JSON and valid against `send`'s `responseSchema`, if it asked for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// The book passages the answer was given, in book order (a book conversation's completed turn).
    pub sources: Vec<Source>,
    /// The answer checked against its sources, when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_check: Option<SourceCheck>,
    /// Set when the answer is quotes from the book, not a model's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quoted: Option<Quoted>,
    /// The turn's messages (user, tool steps, answer), for a one-shot turn
    /// ([`Agent::ask_once`](super::Agent::ask_once)), which stores none; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
}
