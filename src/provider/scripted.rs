//! A model that plays back scripted turns and records every request: for
//! tests of the agent loop, and for hosts testing their own tools.

use std::cell::RefCell;
use std::collections::VecDeque;

use futures::future::LocalBoxFuture;
use futures::StreamExt;

use super::{FinishReason, Model, ModelRequest, PartStream, StreamPart};
use crate::domain::{ReasoningBlock, Usage};
use crate::error::{Error, Result};
use crate::runtime::cancel::CancelToken;

/// One scripted answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScriptedTurn {
    /// Answer text, streamed word by word.
    pub text: String,
    /// Tool calls: name and arguments text.
    pub tool_calls: Vec<(String, String)>,
    /// Usage reported after the answer.
    pub usage: Option<Usage>,
    /// Fail the call with this error instead of answering.
    pub error: Option<Error>,
    /// Stream the text, then never finish (for timeout and abort tests).
    pub hang: bool,
    /// Reasoning streamed before the answer (word by word, then its signature).
    pub reasoning: Vec<ReasoningBlock>,
}

impl ScriptedTurn {
    /// A plain text answer.
    pub fn text(text: &str) -> Self {
        ScriptedTurn {
            text: text.to_owned(),
            ..Default::default()
        }
    }

    /// An answer that calls tools (`(name, arguments JSON)`).
    pub fn tools(calls: &[(&str, &str)]) -> Self {
        ScriptedTurn {
            tool_calls: calls
                .iter()
                .map(|(n, a)| (n.to_string(), a.to_string()))
                .collect(),
            ..Default::default()
        }
    }

    /// A failing call.
    pub fn error(error: Error) -> Self {
        ScriptedTurn {
            error: Some(error),
            ..Default::default()
        }
    }

    /// Adds reported usage.
    pub fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Some(Usage {
            input_tokens,
            output_tokens,
            ..Usage::default()
        });
        self
    }

    /// Adds reasoning blocks, streamed before the text.
    pub fn with_reasoning(mut self, blocks: Vec<ReasoningBlock>) -> Self {
        self.reasoning = blocks;
        self
    }

    /// Makes the answer stall after its text.
    pub fn hanging(mut self) -> Self {
        self.hang = true;
        self
    }
}

/// Plays back [`ScriptedTurn`]s in order; call ids are `call_<request>_<index>`.
#[derive(Debug, Default)]
pub struct ScriptedModel {
    turns: RefCell<VecDeque<ScriptedTurn>>,
    requests: RefCell<Vec<ModelRequest>>,
}

impl ScriptedModel {
    /// A model that will answer with `turns`, one per call.
    pub fn new(turns: Vec<ScriptedTurn>) -> Self {
        ScriptedModel {
            turns: RefCell::new(turns.into()),
            requests: RefCell::new(Vec::new()),
        }
    }

    /// Queues another turn.
    pub fn push(&self, turn: ScriptedTurn) {
        self.turns.borrow_mut().push_back(turn);
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests.borrow().clone()
    }
}

fn reasoning_parts(blocks: &[ReasoningBlock]) -> Vec<StreamPart> {
    let mut parts = Vec::new();
    for block in blocks {
        if let Some(data) = &block.redacted {
            parts.push(StreamPart::RedactedReasoning(data.clone()));
            continue;
        }
        parts.extend(
            block
                .text
                .split_inclusive(' ')
                .map(|word| StreamPart::ReasoningDelta(word.to_owned())),
        );
        parts.extend(block.signature.clone().map(StreamPart::ReasoningSignature));
    }
    parts
}

fn parts_of(turn: ScriptedTurn, request_number: usize) -> Vec<StreamPart> {
    let mut parts = reasoning_parts(&turn.reasoning);
    parts.extend(
        turn.text
            .split_inclusive(' ')
            .map(|word| StreamPart::TextDelta(word.to_owned())),
    );
    for (index, (name, arguments)) in turn.tool_calls.iter().enumerate() {
        parts.push(StreamPart::ToolCallStart {
            index,
            id: format!("call_{request_number}_{index}"),
            name: name.clone(),
        });
        parts.push(StreamPart::ToolCallDelta {
            index,
            arguments: arguments.clone(),
        });
        parts.push(StreamPart::ToolCallEnd { index });
    }
    if !turn.hang {
        let reason = if turn.tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        };
        parts.push(StreamPart::Finish(reason));
        if let Some(usage) = turn.usage {
            parts.push(StreamPart::Usage(usage));
        }
    }
    parts
}

impl Model for ScriptedModel {
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>> {
        self.requests.borrow_mut().push(request.clone());
        let number = self.requests.borrow().len();
        let turn = self.turns.borrow_mut().pop_front();
        let cancel = cancel.clone();
        Box::pin(async move {
            cancel.check()?;
            let turn = turn.ok_or_else(|| Error::protocol("the scripted model has no turn left"))?;
            if let Some(error) = turn.error.clone() {
                return Err(error);
            }
            let hang = turn.hang;
            let parts = futures::stream::iter(parts_of(turn, number).into_iter().map(Ok));
            let stream: PartStream = if hang {
                let stalled = cancel.clone();
                Box::pin(parts.chain(futures::stream::once(async move {
                    stalled
                        .run(futures::future::pending::<Result<StreamPart>>())
                        .await
                })))
            } else {
                Box::pin(parts)
            };
            Ok(stream)
        })
    }

    fn model_name(&self) -> &str {
        "scripted"
    }
}
