//! Decoding a non-streamed Messages answer.

use serde_json::Value;

use super::convert::{error_from, reasoning_parts, stop_reason, usage_from};
use crate::domain::RESPONSE_TOOL;
use crate::error::{Error, Result};
use crate::provider::{FinishReason, StreamPart};

/// The parts of a whole `message` JSON answer, in stream order; the input of
/// the reserved `lectern_response` tool (structured output) is answer text.
pub fn parts_from_message(body: &str) -> Result<Vec<StreamPart>> {
    let json: Value = serde_json::from_str(body).map_err(|e| {
        Error::protocol(format!(
            "response is not JSON ({e}): {}",
            body.chars().take(200).collect::<String>()
        ))
    })?;
    if json.get("type").and_then(Value::as_str) == Some("error") {
        return Err(error_from(json.get("error").unwrap_or(&json)));
    }
    let content = json
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::protocol("message has no content array"))?;
    let mut parts = Vec::new();
    let mut calls = 0;
    let mut answered = false;
    for block in content {
        let name = block.get("name").and_then(Value::as_str);
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") if name == Some(RESPONSE_TOOL) => {
                answered = true;
                let input = block.get("input").map(Value::to_string).unwrap_or_default();
                parts.extend(Some(input).filter(|i| !i.is_empty()).map(StreamPart::TextDelta));
            }
            Some("text") => {
                parts.extend(StreamPart::text_field(block, "text"));
            }
            Some("thinking" | "redacted_thinking") => reasoning_parts(block, &mut parts),
            Some("tool_use") => {
                let id = block
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Error::protocol("tool_use block has no name"))?
                    .to_owned();
                let input = block
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Default::default()));
                parts.push(StreamPart::ToolCallStart {
                    index: calls,
                    id,
                    name,
                });
                parts.push(StreamPart::ToolCallDelta {
                    index: calls,
                    arguments: input.to_string(),
                });
                parts.push(StreamPart::ToolCallEnd { index: calls });
                calls += 1;
            }
            _ => {}
        }
    }
    if let Some(usage) = json.get("usage") {
        parts.push(StreamPart::Usage(usage_from(usage)));
    }
    let reason = json
        .get("stop_reason")
        .and_then(Value::as_str)
        .map_or(FinishReason::Stop, stop_reason);
    let reason = match reason {
        FinishReason::ToolCalls if answered && calls == 0 => FinishReason::Stop,
        other => other,
    };
    parts.push(StreamPart::Finish(reason));
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Usage;

    #[test]
    fn text_and_tool_use_message() {
        let parts = parts_from_message(
            r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[
                {"type":"text","text":"Checking."},
                {"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Oslo"}}],
               "stop_reason":"tool_use","stop_sequence":null,
               "usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":90}}"#,
        )
        .unwrap();
        assert_eq!(parts[0], StreamPart::TextDelta("Checking.".into()));
        assert_eq!(
            parts[1],
            StreamPart::ToolCallStart {
                index: 0,
                id: "toolu_1".into(),
                name: "weather".into()
            }
        );
        assert_eq!(
            parts[2],
            StreamPart::ToolCallDelta {
                index: 0,
                arguments: "{\"city\":\"Oslo\"}".into()
            }
        );
        assert_eq!(
            parts[4],
            StreamPart::Usage(Usage {
                input_tokens: 100,
                output_tokens: 5,
                cached_input_tokens: 90,
                estimated: false,
            })
        );
        assert_eq!(parts[5], StreamPart::Finish(FinishReason::ToolCalls));
    }

    #[test]
    fn thinking_and_redacted_blocks_become_reasoning_parts_in_order() {
        let parts = parts_from_message(
            r#"{"type":"message","role":"assistant","content":[
                {"type":"thinking","thinking":"The user wants Oslo.","signature":"EqQBCgIYAhIM"},
                {"type":"redacted_thinking","data":"EmwKAhgBEgy3va"},
                {"type":"text","text":"Checking."},
                {"type":"tool_use","id":"toolu_1","name":"weather","input":{}}],
               "stop_reason":"tool_use"}"#,
        )
        .unwrap();
        assert_eq!(
            parts[..4],
            [
                StreamPart::ReasoningDelta("The user wants Oslo.".into()),
                StreamPart::ReasoningSignature("EqQBCgIYAhIM".into()),
                StreamPart::RedactedReasoning("EmwKAhgBEgy3va".into()),
                StreamPart::TextDelta("Checking.".into()),
            ]
        );
    }

    #[test]
    fn error_body_is_typed() {
        let err = parts_from_message(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
        .unwrap_err();
        assert!(matches!(err, Error::Api { status: 529, .. }), "{err:?}");
    }

    #[test]
    fn the_response_tool_s_input_is_answer_text() {
        let parts = parts_from_message(
            r#"{"type":"message","role":"assistant","content":[
                {"type":"tool_use","id":"toolu_9","name":"lectern_response","input":{"city":"Oslo","n":2}}],
               "stop_reason":"tool_use"}"#,
        )
        .unwrap();
        assert_eq!(
            parts,
            [
                StreamPart::TextDelta(r#"{"city":"Oslo","n":2}"#.into()),
                StreamPart::Finish(FinishReason::Stop),
            ]
        );
    }
}
