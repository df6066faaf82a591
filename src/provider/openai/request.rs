//! Building the chat-completions request body.

use serde_json::{json, Map, Value};

use super::OpenAiSettings;
use crate::domain::{Message, Role};
use crate::provider::ModelRequest;

/// The JSON body for `POST /chat/completions`.
pub fn request_body(settings: &OpenAiSettings, request: &ModelRequest) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    messages.extend(request.messages.iter().map(message_json));

    let mut body = Map::new();
    body.insert("model".into(), json!(settings.model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": { "name": t.name, "description": t.description, "parameters": t.parameters }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &settings.tool_choice {
            body.insert("tool_choice".into(), choice.clone());
        }
    }
    if let Some(t) = request.temperature.or(settings.temperature) {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(n) = request.max_tokens.or(settings.max_tokens) {
        body.insert("max_tokens".into(), json!(n));
    }
    if settings.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({ "include_usage": true }));
    }
    Value::Object(body)
}

fn message_json(message: &Message) -> Value {
    match message.role {
        Role::System => json!({ "role": "system", "content": message.content }),
        Role::User => json!({ "role": "user", "content": message.content }),
        Role::Assistant if message.tool_calls.is_empty() => {
            json!({ "role": "assistant", "content": message.content })
        }
        Role::Assistant => {
            let calls: Vec<Value> = message
                .tool_calls
                .iter()
                .map(|c| json!({ "id": c.id, "type": "function", "function": { "name": c.name, "arguments": c.arguments } }))
                .collect();
            let content = if message.content.is_empty() {
                Value::Null
            } else {
                json!(message.content)
            };
            json!({ "role": "assistant", "content": content, "tool_calls": calls })
        }
        Role::ToolResult => json!({
            "role": "tool",
            "tool_call_id": message.tool_call_id.as_deref().unwrap_or_default(),
            "content": message.content,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ToolCall, ToolDefinition};

    fn settings(stream: bool) -> OpenAiSettings {
        OpenAiSettings {
            base_url: "http://x/v1".into(),
            model: "gpt-test".into(),
            api_key: None,
            stream,
            headers: Default::default(),
            temperature: Some(0.5),
            max_tokens: None,
            tool_choice: Some(json!("auto")),
        }
    }

    #[test]
    fn maps_every_role_and_tool_calls() {
        let mut ask = Message::new("2".into(), "c", Role::Assistant, "", 0.0);
        ask.tool_calls = vec![ToolCall {
            id: "call_1".into(),
            name: "f".into(),
            arguments: "{\"a\":1}".into(),
        }];
        let mut result = Message::new("3".into(), "c", Role::ToolResult, "42", 0.0);
        result.tool_call_id = Some("call_1".into());
        let request = ModelRequest {
            system: Some("be brief".into()),
            messages: vec![Message::new("1".into(), "c", Role::User, "hi", 0.0), ask, result],
            tools: vec![ToolDefinition {
                name: "f".into(),
                description: "d".into(),
                parameters: json!({"type":"object"}),
            }],
            ..Default::default()
        };
        let body = request_body(&settings(true), &request);
        assert_eq!(
            body,
            json!({
                "model": "gpt-test",
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "42"}
                ],
                "tools": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}],
                "tool_choice": "auto",
                "temperature": 0.5,
                "stream": true,
                "stream_options": {"include_usage": true}
            })
        );
    }

    #[test]
    fn non_streaming_body_has_no_stream_fields() {
        let body = request_body(&settings(false), &ModelRequest::default());
        assert!(body.get("stream").is_none() && body.get("stream_options").is_none());
    }
}
