//! The Anthropic values a whole answer and a stream share: stop reasons,
//! usage, reasoning blocks and error objects, each read the same way.

use serde_json::Value;

use crate::domain::Usage;
use crate::error::Error;
use crate::provider::{FinishReason, StreamPart};

/// Maps an Anthropic `stop_reason`.
pub(super) fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// Reads an Anthropic `usage` object. Anthropic's `input_tokens` leaves out
/// cache reads and writes; Lectern's `input_tokens` counts the whole prompt,
/// with cache reads also in `cached_input_tokens`.
pub(super) fn usage_from(usage: &Value) -> Usage {
    let number = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = number("cache_read_input_tokens");
    Usage {
        input_tokens: number("input_tokens") + cached + number("cache_creation_input_tokens"),
        output_tokens: number("output_tokens"),
        cached_input_tokens: cached,
        estimated: false,
    }
}

/// The string at `key` of `object`, unless it is missing, null or empty.
pub(super) fn string_field(object: &Value, key: &str) -> Option<String> {
    object
        .get(key)
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

/// The parts of a `thinking` block (its text, then its signature) or of a
/// `redacted_thinking` block (its opaque data), whole or as a stream opens it.
pub(super) fn reasoning_parts(block: &Value, out: &mut Vec<StreamPart>) {
    if block.get("type").and_then(Value::as_str) == Some("redacted_thinking") {
        out.extend(string_field(block, "data").map(StreamPart::RedactedReasoning));
        return;
    }
    out.extend(string_field(block, "thinking").map(StreamPart::ReasoningDelta));
    out.extend(string_field(block, "signature").map(StreamPart::ReasoningSignature));
}

/// The typed error for an `error` event (or error body).
pub(super) fn error_from(error: &Value) -> Error {
    let kind = error.get("type").and_then(Value::as_str).unwrap_or("error");
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or(kind)
        .to_owned();
    let body = format!("{kind}: {message}");
    match kind {
        "overloaded_error" => Error::Api { status: 529, body },
        "api_error" => Error::Api { status: 500, body },
        "rate_limit_error" => Error::RateLimited { retry_after_ms: None },
        "authentication_error" => Error::Auth { status: 401, body },
        "permission_error" => Error::Auth { status: 403, body },
        "request_too_large" => Error::Api { status: 413, body },
        "invalid_request_error" => Error::Api { status: 400, body },
        "not_found_error" => Error::Api { status: 404, body },
        _ => Error::protocol(format!("the provider reported an error mid-stream: {body}")),
    }
}
