//! Folding stream parts into a whole answer.

use futures::StreamExt;

use super::{ModelResponse, PartStream, StreamPart};
use crate::domain::{ReasoningBlock, ToolCall, Usage};
use crate::error::Result;

/// Builds a [`ModelResponse`] part by part.
#[derive(Debug, Default)]
pub struct Accumulator {
    response: ModelResponse,
    calls: Vec<(usize, ToolCall)>,
}

impl Accumulator {
    /// An empty answer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one part.
    pub fn push(&mut self, part: &StreamPart) {
        match part {
            StreamPart::TextDelta(text) => self.response.text.push_str(text),
            StreamPart::ToolCallStart { index, id, name } => self.calls.push((
                *index,
                ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: String::new(),
                },
            )),
            StreamPart::ToolCallDelta { index, arguments } => {
                if let Some((_, call)) = self.calls.iter_mut().rev().find(|(i, _)| i == index) {
                    call.arguments.push_str(arguments);
                }
            }
            StreamPart::ToolCallEnd { .. } => {}
            StreamPart::ReasoningDelta(text) => self.open_reasoning().text.push_str(text),
            StreamPart::ReasoningSignature(signature) => {
                self.open_reasoning().signature = Some(signature.clone());
            }
            StreamPart::RedactedReasoning(data) => self.response.reasoning.push(ReasoningBlock {
                redacted: Some(data.clone()),
                ..ReasoningBlock::default()
            }),
            StreamPart::Usage(usage) => {
                let total = self.response.usage.get_or_insert_with(Usage::default);
                total.add(usage);
            }
            StreamPart::Finish(reason) => self.response.finish_reason = Some(reason.clone()),
        }
    }

    /// The reasoning block being written: the last one, unless it is signed or
    /// redacted (then a new one).
    fn open_reasoning(&mut self) -> &mut ReasoningBlock {
        let blocks = &mut self.response.reasoning;
        if blocks
            .last()
            .is_none_or(|b| b.signature.is_some() || b.redacted.is_some())
        {
            blocks.push(ReasoningBlock::default());
        }
        let last = blocks.len() - 1;
        &mut blocks[last]
    }

    /// The text received so far (kept when a stream breaks off).
    pub fn text(&self) -> &str {
        &self.response.text
    }

    /// The answer as received.
    pub fn finish(mut self) -> ModelResponse {
        self.response.tool_calls = self.calls.into_iter().map(|(_, call)| call).collect();
        self.response
    }
}

/// Reads a whole part stream into one answer.
pub async fn accumulate(mut parts: PartStream) -> Result<ModelResponse> {
    let mut acc = Accumulator::new();
    while let Some(part) = parts.next().await {
        acc.push(&part?);
    }
    Ok(acc.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::FinishReason;

    #[test]
    fn interleaved_tool_calls_are_assembled_by_index() {
        let parts = vec![
            StreamPart::TextDelta("Let me ".into()),
            StreamPart::TextDelta("check.".into()),
            StreamPart::ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "x".into(),
            },
            StreamPart::ToolCallStart {
                index: 1,
                id: "b".into(),
                name: "y".into(),
            },
            StreamPart::ToolCallDelta {
                index: 1,
                arguments: "{\"q\":".into(),
            },
            StreamPart::ToolCallDelta {
                index: 0,
                arguments: "{}".into(),
            },
            StreamPart::ToolCallDelta {
                index: 1,
                arguments: "1}".into(),
            },
            StreamPart::Finish(FinishReason::ToolCalls),
            StreamPart::Usage(Usage {
                input_tokens: 5,
                output_tokens: 7,
                cached_input_tokens: 0,
                estimated: false,
            }),
        ];
        let stream: PartStream = Box::pin(futures::stream::iter(parts.into_iter().map(Ok)));
        let response = futures::executor::block_on(accumulate(stream)).unwrap();
        assert_eq!(response.text, "Let me check.");
        let calls: Vec<(&str, &str)> = response
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(calls, [("a", "{}"), ("b", "{\"q\":1}")]);
        assert_eq!(response.usage.unwrap().output_tokens, 7);
        assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn reasoning_blocks_end_at_their_signature_and_redacted_blocks_stand_alone() {
        let parts = vec![
            StreamPart::ReasoningDelta("Let me ".into()),
            StreamPart::ReasoningDelta("think.".into()),
            StreamPart::ReasoningSignature("sig1".into()),
            StreamPart::RedactedReasoning("opaque".into()),
            StreamPart::ReasoningDelta("More.".into()),
            StreamPart::ReasoningSignature("sig2".into()),
            StreamPart::TextDelta("Answer".into()),
        ];
        let stream: PartStream = Box::pin(futures::stream::iter(parts.into_iter().map(Ok)));
        let response = futures::executor::block_on(accumulate(stream)).unwrap();
        let block = |text: &str, signature: Option<&str>, redacted: Option<&str>| ReasoningBlock {
            text: text.into(),
            signature: signature.map(Into::into),
            redacted: redacted.map(Into::into),
        };
        assert_eq!(
            response.reasoning,
            [
                block("Let me think.", Some("sig1"), None),
                block("", None, Some("opaque")),
                block("More.", Some("sig2"), None),
            ]
        );
        assert_eq!(response.text, "Answer");
    }
}
