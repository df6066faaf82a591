//! Settling a tool step, the one way every path does it (a step that ran,
//! a resolved approval, a step cut off by the time limit): outcomes in call
//! order, their records stamped with the turn and their positions, what the
//! model reads for each, and the step's stored messages.

use serde_json::json;

use super::{ToolCallRecord, TurnState};
use crate::approval::SettledCall;
use crate::domain::{Message, ReasoningBlock, Role, ToolCall};
use crate::provider::ModelResponse;
use crate::runtime::ids::new_id;
use crate::tool::{cap_result, redact_arguments, ToolOutcome};

/// A step's settled calls: their records (added to the turn's state) and
/// what the model will read for each.
pub(super) struct SettledStep {
    /// The calls' records, stamped with the turn and their positions.
    pub records: Vec<ToolCallRecord>,
    /// Each call's result as the model reads it (capped).
    pub settled: Vec<SettledCall>,
}

/// Settles `outcomes` of a step of `calls`: orders them as the calls, stamps
/// their records into `state` and caps each result at `max_chars` characters
/// for the model (the records keep them whole).
pub(super) fn settle(
    outcomes: Vec<ToolOutcome>,
    calls: &[ToolCall],
    turn_id: &str,
    state: &mut TurnState,
    max_chars: usize,
) -> SettledStep {
    let outcomes = in_call_order(outcomes, calls);
    SettledStep {
        records: stamp(&outcomes, turn_id, state),
        settled: settled_of(&outcomes, max_chars),
    }
}

/// What a stored step is made of, besides its calls' outcomes.
pub(super) struct StepParts<'a> {
    /// The text the model wrote alongside its calls.
    pub text: &'a str,
    /// The model's reasoning in that response.
    pub reasoning: &'a [ReasoningBlock],
    /// Every call of the response, in order.
    pub calls: &'a [ToolCall],
}

/// What the model will read for each of `outcomes` (each result capped at
/// `max_chars` characters; the records keep them whole), kept with a paused step.
pub(super) fn settled_of(outcomes: &[ToolOutcome], max_chars: usize) -> Vec<SettledCall> {
    outcomes
        .iter()
        .map(|o| SettledCall {
            call_id: o.call.id.clone(),
            content: cap_result(&o.content, max_chars),
        })
        .collect()
}

/// `outcomes` in the order of `calls` (a handful of calls: no sort needed).
fn in_call_order(mut outcomes: Vec<ToolOutcome>, calls: &[ToolCall]) -> Vec<ToolOutcome> {
    let mut ordered = Vec::with_capacity(outcomes.len());
    for call in calls {
        if let Some(i) = outcomes.iter().position(|o| o.call.id == call.id) {
            ordered.push(outcomes.swap_remove(i));
        }
    }
    ordered.extend(outcomes);
    ordered
}

/// The records of `outcomes`, stamped with the turn, their positions and the
/// cost of the step that asked for them, and added to the turn's state.
fn stamp(outcomes: &[ToolOutcome], turn_id: &str, state: &mut TurnState) -> Vec<ToolCallRecord> {
    let records: Vec<ToolCallRecord> = outcomes
        .iter()
        .enumerate()
        .map(|(i, outcome)| ToolCallRecord {
            turn_id: turn_id.to_owned(),
            position: (state.records.len() + i) as u32,
            step_cost_usd: state.step_cost_usd,
            ..outcome.record.clone()
        })
        .collect();
    state.records.extend(records.iter().cloned());
    records
}

/// The stored form of a settled step: the assistant message with its calls
/// (arguments as they ran, redacted as configured), then one result per call, in call order.
fn step_messages(
    conversation_id: &str,
    text: &str,
    calls: &[ToolCall],
    settled: &[SettledCall],
    redact: &[String],
    now: f64,
) -> Vec<Message> {
    let mut ask = Message::new(new_id(now), conversation_id, Role::Assistant, text, now);
    ask.tool_calls = calls
        .iter()
        .map(|call| ToolCall {
            arguments: redact_arguments(&call.arguments, redact),
            ..call.clone()
        })
        .collect();
    let mut messages = vec![ask];
    for call in calls {
        let content = settled.iter().find(|s| s.call_id == call.id).map_or_else(
            || json!({ "error": "Not run" }).to_string(),
            |s| s.content.clone(),
        );
        let mut result = Message::new(new_id(now), conversation_id, Role::ToolResult, content, now);
        result.tool_call_id = Some(call.id.clone());
        messages.push(result);
    }
    messages
}

impl StepParts<'_> {
    /// The stored form of this step once `settled`: the assistant message
    /// with its calls and reasoning, then one result per call.
    pub fn messages(
        &self,
        conversation_id: &str,
        settled: &[SettledCall],
        redact: &[String],
        now: f64,
    ) -> Vec<Message> {
        let mut messages = step_messages(conversation_id, self.text, self.calls, settled, redact, now);
        messages[0].reasoning = self.reasoning.to_vec();
        messages
    }
}

impl<'a> StepParts<'a> {
    /// The step a model response asked for.
    pub fn of(response: &'a ModelResponse) -> Self {
        StepParts {
            text: &response.text,
            reasoning: &response.reasoning,
            calls: &response.tool_calls,
        }
    }
}
