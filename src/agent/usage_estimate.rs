//! Usage for a provider that reports none (a local model, a custom function):
//! estimated from the request and the answer ([`estimate_tokens`]), and marked
//! `estimated` so a host does not take it for the provider's count.

use super::context::message_tokens;
use crate::domain::{estimate_tokens, tool_definitions_tokens, Usage};
use crate::provider::{ModelRequest, ModelResponse};

/// The provider's usage for this call, or an estimate when it reported none.
pub fn usage_or_estimate(request: &ModelRequest, response: &ModelResponse) -> Usage {
    response
        .usage
        .unwrap_or_else(|| estimated_usage(request, response))
}

/// The estimated prompt tokens of a request: system message, messages and
/// tool definitions.
pub fn request_tokens(request: &ModelRequest) -> usize {
    let system = request.system.as_deref().map_or(0, |s| 4 + estimate_tokens(s));
    let messages: usize = request.messages.iter().map(message_tokens).sum();
    system + messages + tool_definitions_tokens(&request.tools)
}

/// Prompt tokens: [`request_tokens`]; output tokens: the answer's text and
/// tool calls.
pub fn estimated_usage(request: &ModelRequest, response: &ModelResponse) -> Usage {
    let calls: usize = response
        .tool_calls
        .iter()
        .map(|c| 4 + estimate_tokens(&c.name) + estimate_tokens(&c.arguments))
        .sum();
    Usage {
        input_tokens: request_tokens(request) as u64,
        output_tokens: (estimate_tokens(&response.text) + calls) as u64,
        cached_input_tokens: 0,
        estimated: true,
    }
}

/// The estimated usage of a call that failed: the whole request in, and
/// whatever answer text it streamed before it stopped out.
pub(super) fn failed_call_usage(request: &ModelRequest, partial_text: Option<&str>) -> Usage {
    Usage {
        input_tokens: request_tokens(request) as u64,
        output_tokens: partial_text.map_or(0, estimate_tokens) as u64,
        cached_input_tokens: 0,
        estimated: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(system: &str) -> ModelRequest {
        ModelRequest {
            system: Some(system.to_owned()),
            ..ModelRequest::default()
        }
    }

    #[test]
    fn reported_usage_is_kept_as_it_is() {
        let reported = Usage {
            input_tokens: 7,
            output_tokens: 2,
            ..Usage::default()
        };
        let response = ModelResponse {
            text: "a long answer that would be estimated otherwise".into(),
            tool_calls: Vec::new(),
            usage: Some(reported),
            finish_reason: None,
            reasoning: Vec::new(),
        };
        assert_eq!(usage_or_estimate(&request("sys"), &response), reported);
    }

    #[test]
    fn missing_usage_is_estimated_and_marked() {
        let response = ModelResponse {
            text: "word ".repeat(10),
            tool_calls: Vec::new(),
            usage: None,
            finish_reason: None,
            reasoning: Vec::new(),
        };
        let usage = usage_or_estimate(&request(&"word ".repeat(100)), &response);
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.estimated),
            (104, 10, true)
        );
    }
}
