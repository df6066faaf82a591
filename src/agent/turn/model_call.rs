//! One streamed model call, its pieces forwarded as events, and the counted
//! step around it.

use std::collections::HashMap;

use futures::StreamExt;

use super::Turn;
use crate::agent::budget::PeriodStart;
use crate::agent::egress::Carried;
use crate::agent::usage_estimate::request_tokens;
use crate::domain::EgressPurpose;
use crate::error::Result;
use crate::events::EventKind;
use crate::provider::{Accumulator, FinishReason, ModelRequest, ModelResponse, StreamPart};

impl Turn<'_> {
    /// Streams one model call, forwarding text and tool-call pieces as events.
    /// On failure, the text streamed so far is kept in `state`.
    async fn call_model(&mut self, request: &ModelRequest) -> Result<ModelResponse> {
        self.state.partial_text = None;
        let mut parts = self.agent.model.stream(request, &self.scope.cancel).await?;
        let mut answer = Accumulator::new();
        let mut calls: HashMap<usize, (String, String)> = HashMap::new();
        while let Some(part) = parts.next().await {
            let part = match part {
                Ok(part) => part,
                Err(error) => {
                    self.state.partial_text = Some(answer.text().to_owned()).filter(|t| !t.is_empty());
                    return Err(error);
                }
            };
            self.forward(&part, &mut calls);
            answer.push(&part);
        }
        Ok(answer.finish())
    }

    /// Forwards a streamed `part` as an event; `calls` keeps each tool call's id and name by index.
    fn forward(&self, part: &StreamPart, calls: &mut HashMap<usize, (String, String)>) {
        let (scope, config) = (&self.scope, &self.agent.config);
        match part {
            StreamPart::TextDelta(text) => scope.emit(|| EventKind::TextDelta { text: text.clone() }),
            StreamPart::ReasoningDelta(text) if config.show_thinking => {
                scope.emit(|| EventKind::ReasoningDelta { text: text.clone() })
            }
            StreamPart::ToolCallStart { index, id, name } => {
                calls.insert(*index, (id.clone(), name.clone()));
            }
            StreamPart::ToolCallDelta { index, arguments } if scope.events.is_listening() => {
                let known = calls.get(index);
                scope.emit(|| EventKind::ToolCallDelta {
                    index: *index,
                    call_id: known.map(|(id, _)| id.clone()),
                    tool_name: known.map(|(_, name)| name.clone()),
                    arguments_delta: if config.redact_arguments.is_empty() {
                        arguments.clone()
                    } else {
                        // Fragments cannot be redacted field by field: hide them.
                        String::new()
                    },
                });
            }
            _ => {}
        }
    }

    /// One step's model call: checked against the budgets first, then counted
    /// (the turn's usage and the conversation's totals, the calibration, the
    /// egress ledger) and reported as a step (`stepStart`, `tokenUsage`,
    /// `stepFinish`). The tool loop's calls and a structured answer's
    /// correction both go through it.
    pub(super) async fn counted_call(
        &mut self,
        request: &ModelRequest,
        call: CallContext<'_>,
    ) -> Result<ModelResponse> {
        // Before the step counts: a turn stopped by its budget made no call.
        self.check_budgets(request, call.period)?;
        self.state.steps += 1;
        let step = self.state.steps;
        self.scope.emit(|| EventKind::StepStart { step });
        let carried = || Carried {
            purpose: call.purpose,
            book_id: call.book_id,
            messages: &request.messages,
        };
        let response = match self.call_model(request).await {
            Ok(response) => response,
            Err(error) => {
                self.count_failed_call(request, carried(), &error).await;
                return Err(error);
            }
        };
        let usage = self.count_answered_call((request, &response), carried()).await;
        self.agent.calibration.learn(&usage, request_tokens(request));
        self.scope.emit(|| EventKind::StepFinish {
            step,
            finish_reason: finish_reason_name(response.finish_reason.as_ref()),
            tool_calls: response.tool_calls.len(),
        });
        Ok(response)
    }
}

/// Why a counted call is made and what it is checked and listed against.
#[derive(Clone, Copy)]
pub(super) struct CallContext<'a> {
    /// For the egress ledger: a turn's step or a correction.
    pub purpose: EgressPurpose,
    /// The conversation's book, whose passages the ledger names.
    pub book_id: Option<&'a str>,
    /// Where the conversation's `budgetPeriod` stood when the turn's loop began.
    pub period: Option<&'a PeriodStart>,
}

/// The name of a finish reason in `stepFinish` events.
pub(super) fn finish_reason_name(reason: Option<&FinishReason>) -> String {
    match reason {
        None | Some(FinishReason::Stop) => "stop".into(),
        Some(FinishReason::ToolCalls) => "toolCalls".into(),
        Some(FinishReason::Length) => "length".into(),
        Some(FinishReason::ContentFilter) => "contentFilter".into(),
        Some(FinishReason::Other(other)) => other.clone(),
    }
}
