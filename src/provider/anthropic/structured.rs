//! Structured output on the Messages API. Without thinking, the answer comes
//! through the reserved tool `lectern_response` (input schema = the response
//! schema), forced with `tool_choice`; the decoders turn that call back into
//! answer text. With thinking on, which refuses forced tool use, the native
//! `output_config.format` asks for JSON instead.

use serde_json::{json, Map, Value};

use super::AnthropicSettings;
use crate::domain::{ToolDefinition, RESPONSE_TOOL};
use crate::provider::ModelRequest;

/// What the reserved tool tells the model.
const RESPONSE_TOOL_DESCRIPTION: &str =
    "Give your final answer by calling this tool: its input is the answer, matching the schema.";

/// The reserved tool to offer after the request's own, when the answer must
/// come through it (a response schema, thinking off).
pub(super) fn response_tool(settings: &AnthropicSettings, request: &ModelRequest) -> Option<ToolDefinition> {
    let format = request
        .response_format
        .as_ref()
        .filter(|_| settings.thinking.is_none())?;
    Some(ToolDefinition {
        name: RESPONSE_TOOL.to_owned(),
        description: RESPONSE_TOOL_DESCRIPTION.to_owned(),
        parameters: format.schema.clone(),
    })
}

/// With a response schema: `tool_choice` forcing the reserved tool (any tool,
/// when others are offered: they stay callable, one call per step), or with
/// thinking, which refuses forced tool use, the native `output_config`.
pub(super) fn add_choice(
    body: &mut Map<String, Value>,
    settings: &AnthropicSettings,
    request: &ModelRequest,
) {
    let Some(format) = &request.response_format else {
        return;
    };
    if settings.thinking.is_some() {
        let output = json!({ "format": { "type": "json_schema", "schema": format.schema } });
        body.insert("output_config".into(), output);
        return;
    }
    let mut choice = Map::new();
    if request.tools.is_empty() {
        choice.insert("type".into(), "tool".into());
        choice.insert("name".into(), RESPONSE_TOOL.into());
    } else {
        choice.insert("type".into(), "any".into());
    }
    choice.insert("disable_parallel_tool_use".into(), true.into());
    body.insert("tool_choice".into(), Value::Object(choice));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Message, ResponseFormat, Role};
    use crate::provider::anthropic::{request_body, ThinkingSettings};

    fn settings(thinking: bool) -> AnthropicSettings {
        AnthropicSettings {
            base_url: "https://api.anthropic.com/v1".into(),
            model: "claude-test".into(),
            api_key: None,
            stream: false,
            headers: Default::default(),
            temperature: None,
            max_tokens: 4096,
            anthropic_version: "2023-06-01".into(),
            thinking: thinking.then_some(ThinkingSettings { budget_tokens: 1024 }),
        }
    }

    fn request(tools: bool) -> ModelRequest {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        ModelRequest {
            messages: vec![Message::new("m".into(), "c", Role::User, "hi", 0.0)],
            tools: if tools {
                vec![ToolDefinition {
                    name: "weather".into(),
                    description: "W".into(),
                    parameters: json!({"type": "object"}),
                }]
            } else {
                Vec::new()
            },
            response_format: Some(ResponseFormat::new(None, schema, false).unwrap()),
            ..Default::default()
        }
    }

    fn response_tool() -> Value {
        json!({
            "name": "lectern_response",
            "description": RESPONSE_TOOL_DESCRIPTION,
            "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}
        })
    }

    #[test]
    fn alone_the_response_tool_is_forced() {
        let body = request_body(&settings(false), &request(false));
        assert_eq!(body["tools"], json!([response_tool()]));
        assert_eq!(
            body["tool_choice"],
            json!({"type": "tool", "name": "lectern_response", "disable_parallel_tool_use": true})
        );
        assert!(body.get("output_config").is_none());
    }

    #[test]
    fn beside_other_tools_some_tool_is_required_one_at_a_time() {
        let body = request_body(&settings(false), &request(true));
        assert_eq!(body["tools"][0]["name"], "weather");
        assert_eq!(body["tools"][1], response_tool());
        assert_eq!(
            body["tool_choice"],
            json!({"type": "any", "disable_parallel_tool_use": true})
        );
    }

    #[test]
    fn with_thinking_the_native_output_format_is_used() {
        let body = request_body(&settings(true), &request(true));
        assert_eq!(
            body["output_config"],
            json!({"format": {"type": "json_schema", "schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}})
        );
        assert_eq!(body["tools"].as_array().unwrap().len(), 1, "{body}");
        assert!(body.get("tool_choice").is_none());
    }
}
