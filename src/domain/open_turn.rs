//! A turn that began and has not ended, as stored while it runs: if the page
//! closes mid-turn, this is what `resumeTurn` goes on from.

use serde::Serialize;

use super::{Mention, ReasoningBlock, SettledCall, ToolCall, ToolCallRecord, TurnState};
use crate::json::from_json::FromJson;

/// A running (or interrupted) turn: written with the user message, rewritten
/// with every stored step and before a step's tools run, deleted in the same
/// write as the answer, the pause or the failure that ends it.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct OpenTurn {
    /// The turn.
    pub turn_id: String,
    /// Its conversation.
    pub conversation_id: String,
    /// When it started (ms since the epoch).
    pub started_at: f64,
    /// When this record was last written.
    pub updated_at: f64,
    /// Whether `state` holds the turn's resolved mentions and retrieved
    /// passages; until then a resume prepares them again from `mentions`.
    pub prepared: bool,
    /// The mentions the user message came with (unresolved).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<Mention>,
    /// The turn as of its last stored step.
    pub state: TurnState,
    /// The tool step whose calls were running, if any: not stored as messages yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<OpenStepRecord>,
}

/// A tool step whose calls were running when its record was written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct OpenStepRecord {
    /// The text the model wrote alongside its calls.
    pub text: String,
    /// The model's reasoning in that response.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning: Vec<ReasoningBlock>,
    /// Every call of the response, in order.
    pub calls: Vec<ToolCall>,
    /// Calls settled without running before the others started (denied): what the model reads.
    #[serde(default)]
    pub settled: Vec<SettledCall>,
    /// The records of those settled calls.
    #[serde(default)]
    pub records: Vec<ToolCallRecord>,
}

/// How a step commit changes a conversation's open-turn record.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenTurnChange {
    /// Write (or rewrite) the record.
    Put(Box<OpenTurn>),
    /// The turn ended: delete its record (nothing happens if there is none).
    Delete {
        /// Its conversation.
        conversation_id: String,
        /// The turn.
        turn_id: String,
    },
}

impl OpenTurnChange {
    /// The conversation the change is about.
    pub fn conversation_id(&self) -> &str {
        match self {
            OpenTurnChange::Put(turn) => &turn.conversation_id,
            OpenTurnChange::Delete { conversation_id, .. } => conversation_id,
        }
    }
}

/// A turn cut off by a closed tab or a reload, as `interruptedTurns` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InterruptedTurn {
    /// The turn to resume.
    pub turn_id: String,
    /// Its conversation.
    pub conversation_id: String,
    /// When it started.
    pub started_at: f64,
    /// When its last step was stored.
    pub updated_at: f64,
    /// Model calls it made.
    pub steps: u32,
    /// Tool calls it completed (stored with their results).
    pub completed_tool_calls: usize,
    /// Calls that were running when it stopped: a resume answers them
    /// "Interrupted" and never runs them again.
    pub interrupted_calls: Vec<InterruptedCall>,
}

/// A call cut off with its turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InterruptedCall {
    /// The provider's call id.
    pub call_id: String,
    /// The tool's name.
    pub tool_name: String,
}

impl From<&OpenTurn> for InterruptedTurn {
    fn from(turn: &OpenTurn) -> Self {
        let interrupted_calls = turn
            .step
            .iter()
            .flat_map(|step| {
                step.calls
                    .iter()
                    .filter(|c| !step.settled.iter().any(|s| s.call_id == c.id))
            })
            .map(|call| InterruptedCall {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
            })
            .collect();
        InterruptedTurn {
            turn_id: turn.turn_id.clone(),
            conversation_id: turn.conversation_id.clone(),
            started_at: turn.started_at,
            updated_at: turn.updated_at,
            steps: turn.state.steps,
            completed_tool_calls: turn.state.records.len(),
            interrupted_calls,
        }
    }
}
