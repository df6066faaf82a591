//! Decoding Anthropic's streamed events into parts.

use serde_json::Value;

use super::convert::{error_from, reasoning_parts, stop_reason, string_field, usage_from};
use crate::domain::{Usage, RESPONSE_TOOL};
use crate::error::{Error, Result};
use crate::provider::sse::SseEvent;
use crate::provider::sse_body;
use crate::provider::{FinishReason, StreamPart};

/// Turns `message_start`, `content_block_*`, `message_delta`, `message_stop`,
/// `ping` and `error` events into [`StreamPart`]s.
///
/// Content-block indexes that hold `tool_use` blocks are numbered 0, 1, ... as
/// tool calls — except the reserved `lectern_response` (structured output),
/// whose input streams as answer text, its `tool_use` stop read as a finished
/// answer. Usage is reported once, at `message_delta`, combining the input
/// counts of `message_start` with the final output count.
#[derive(Debug, Default)]
pub struct EventDecoder {
    tool_blocks: Vec<usize>,
    /// Blocks of the reserved response tool, whose input is the answer.
    response_blocks: Vec<usize>,
    usage: Usage,
    finished: bool,
    done: bool,
}

impl EventDecoder {
    /// A decoder at the start of a message.
    pub fn new() -> Self {
        Self::default()
    }

    fn tool_index(&self, block: usize) -> Option<usize> {
        self.tool_blocks.iter().position(|b| *b == block)
    }
}

fn block_index(event: &Value) -> Result<usize> {
    event
        .get("index")
        .and_then(Value::as_u64)
        .map(|i| i as usize)
        .ok_or_else(|| Error::protocol(format!("content block event without an index: {event}")))
}

impl EventDecoder {
    /// `content_block_start`: a tool call begins (its id and name), or a text block with text.
    fn block_start(&mut self, data: &Value, out: &mut Vec<StreamPart>) -> Result<()> {
        let index = block_index(data)?;
        let block = data.get("content_block").unwrap_or(&Value::Null);
        let name = block.get("name").and_then(Value::as_str);
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") if name == Some(RESPONSE_TOOL) => self.response_blocks.push(index),
            Some("tool_use") => {
                self.tool_blocks.push(index);
                let id = block
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                out.push(StreamPart::ToolCallStart {
                    index: self.tool_blocks.len() - 1,
                    id,
                    name,
                });
            }
            Some("text") => {
                out.extend(StreamPart::text_field(block, "text"));
            }
            Some("thinking" | "redacted_thinking") => reasoning_parts(block, out),
            _ => {}
        }
        Ok(())
    }

    /// `content_block_delta`: more text or thinking, a thinking block's
    /// signature, or a piece of a tool call's JSON arguments.
    fn block_delta(&mut self, data: &Value, out: &mut Vec<StreamPart>) -> Result<()> {
        let index = block_index(data)?;
        let delta = data.get("delta").unwrap_or(&Value::Null);
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                out.extend(StreamPart::text_field(delta, "text"));
            }
            Some("thinking_delta") => {
                out.extend(string_field(delta, "thinking").map(StreamPart::ReasoningDelta));
            }
            Some("signature_delta") => {
                out.extend(string_field(delta, "signature").map(StreamPart::ReasoningSignature));
            }
            Some("input_json_delta") if self.response_blocks.contains(&index) => {
                out.extend(StreamPart::text_field(delta, "partial_json"));
            }
            Some("input_json_delta") => {
                let call = self.tool_index(index).ok_or_else(|| {
                    Error::protocol(format!(
                        "input_json_delta for block {index}, which is not a tool_use"
                    ))
                })?;
                if let Some(json) = delta
                    .get("partial_json")
                    .and_then(Value::as_str)
                    .filter(|j| !j.is_empty())
                {
                    out.push(StreamPart::ToolCallDelta {
                        index: call,
                        arguments: json.to_owned(),
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl sse_body::EventDecoder for EventDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<StreamPart>) -> Result<()> {
        if event.data.trim().is_empty() {
            return Ok(());
        }
        let data: Value = serde_json::from_str(&event.data).map_err(|e| {
            Error::protocol(format!(
                "malformed stream event ({e}): {}",
                event.data.chars().take(200).collect::<String>()
            ))
        })?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .or(event.event.as_deref())
            .unwrap_or_default();
        match kind {
            "message_start" => {
                if let Some(usage) = data.pointer("/message/usage") {
                    self.usage = usage_from(usage);
                }
            }
            "content_block_start" => self.block_start(&data, out)?,
            "content_block_delta" => self.block_delta(&data, out)?,
            "content_block_stop" => {
                if let Some(call) = self.tool_index(block_index(&data)?) {
                    out.push(StreamPart::ToolCallEnd { index: call });
                }
            }
            "message_delta" => {
                if let Some(output) = data.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.usage.output_tokens = output;
                }
                out.push(StreamPart::Usage(self.usage));
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finished = true;
                    let answered = self.tool_blocks.is_empty() && !self.response_blocks.is_empty();
                    out.push(StreamPart::Finish(match stop_reason(reason) {
                        FinishReason::ToolCalls if answered => FinishReason::Stop,
                        other => other,
                    }));
                }
            }
            "message_stop" => {
                self.finished = true;
                self.done = true;
            }
            "error" => return Err(error_from(data.get("error").unwrap_or(&data))),
            _ => {} // ping and event types added later
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}
