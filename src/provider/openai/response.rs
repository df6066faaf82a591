//! Decoding a non-streamed chat-completions answer.

use serde_json::Value;

use crate::domain::Usage;
use crate::error::{Error, Result};
use crate::provider::{FinishReason, StreamPart};

/// The parts of a whole `chat.completion` JSON answer, in stream order.
pub fn parts_from_response(body: &str) -> Result<Vec<StreamPart>> {
    let json: Value = serde_json::from_str(body).map_err(|e| {
        Error::protocol(format!(
            "response is not JSON ({e}): {}",
            body.chars().take(200).collect::<String>()
        ))
    })?;
    let choice = json
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| Error::protocol("response has no choices"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| Error::protocol("response choice has no message"))?;
    let mut parts = Vec::new();
    parts.extend(reasoning_delta(message));
    parts.extend(StreamPart::text_field(message, "content"));
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (index, call) in calls.iter().enumerate() {
            let function = call.get("function").unwrap_or(&Value::Null);
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| format!("call_{index}"));
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| Error::protocol(format!("tool call {index} has no function name")))?;
            parts.push(StreamPart::ToolCallStart {
                index,
                id,
                name: name.to_owned(),
            });
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            parts.push(StreamPart::ToolCallDelta { index, arguments });
            parts.push(StreamPart::ToolCallEnd { index });
        }
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        parts.push(StreamPart::Finish(finish_reason(reason)));
    } else {
        parts.push(StreamPart::Finish(FinishReason::Stop));
    }
    if let Some(usage) = json.get("usage").filter(|u| u.is_object()) {
        parts.push(StreamPart::Usage(usage_from(usage)));
    }
    Ok(parts)
}

/// The reasoning of a message or delta: `reasoning_content` (DeepSeek, LM
/// Studio, llama.cpp) or `reasoning` (Ollama, vLLM, OpenRouter); either may be
/// null or missing.
pub(super) fn reasoning_delta(object: &Value) -> Option<StreamPart> {
    ["reasoning_content", "reasoning"]
        .iter()
        .filter_map(|key| object.get(*key).and_then(Value::as_str))
        .find(|t| !t.is_empty())
        .map(|t| StreamPart::ReasoningDelta(t.to_owned()))
}

/// Maps an OpenAI `finish_reason`.
pub(super) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// Reads an OpenAI `usage` object.
pub(super) fn usage_from(usage: &Value) -> Usage {
    let number = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: number(usage.get("prompt_tokens")),
        output_tokens: number(usage.get("completion_tokens")),
        cached_input_tokens: number(usage.pointer("/prompt_tokens_details/cached_tokens")),
        estimated: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_answer_with_usage() {
        let parts = parts_from_response(
            r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":3,"completion_tokens":1}}"#,
        )
        .unwrap();
        assert_eq!(parts[0], StreamPart::TextDelta("Hi!".into()));
        assert_eq!(parts[1], StreamPart::Finish(FinishReason::Stop));
        assert!(matches!(
            parts[2],
            StreamPart::Usage(Usage {
                input_tokens: 3,
                output_tokens: 1,
                ..
            })
        ));
    }

    #[test]
    fn tool_calls_answer() {
        let parts = parts_from_response(
            r#"{"choices":[{"message":{"content":null,"tool_calls":[
                {"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]},
                "finish_reason":"tool_calls"}]}"#,
        )
        .unwrap();
        assert_eq!(
            parts[0],
            StreamPart::ToolCallStart {
                index: 0,
                id: "c1".into(),
                name: "f".into()
            }
        );
        assert_eq!(
            parts[1],
            StreamPart::ToolCallDelta {
                index: 0,
                arguments: "{\"x\":1}".into()
            }
        );
    }

    #[test]
    fn reasoning_under_either_name_comes_before_the_text() {
        for key in ["reasoning_content", "reasoning"] {
            let body = format!(
                r#"{{"choices":[{{"message":{{"role":"assistant","content":"Four.","{key}":"2+2 is 4."}},"finish_reason":"stop"}}]}}"#
            );
            let parts = parts_from_response(&body).unwrap();
            assert_eq!(parts[0], StreamPart::ReasoningDelta("2+2 is 4.".into()), "{key}");
            assert_eq!(parts[1], StreamPart::TextDelta("Four.".into()), "{key}");
        }
        let parts = parts_from_response(
            r#"{"choices":[{"message":{"content":"Hi","reasoning_content":null,"reasoning":null},"finish_reason":"stop"}]}"#,
        )
        .unwrap();
        assert_eq!(parts[0], StreamPart::TextDelta("Hi".into()));
    }

    #[test]
    fn garbage_is_a_protocol_error() {
        assert_eq!(parts_from_response("<html>").unwrap_err().name(), "ProtocolError");
        assert_eq!(parts_from_response("{}").unwrap_err().name(), "ProtocolError");
    }
}
