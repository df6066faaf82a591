//! Building the chat-completions request body.

use serde_json::{json, Map, Value};

use super::OpenAiSettings;
use crate::domain::{reasoning_text, Message, Role};
use crate::provider::{temperature_json, ModelRequest};

/// The JSON body for `POST /chat/completions`.
pub fn request_body(settings: &OpenAiSettings, request: &ModelRequest) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    let replay = settings.replays_reasoning();
    messages.extend(request.messages.iter().map(|m| message_json(m, replay)));

    let mut body = Map::new();
    body.insert("model".into(), json!(request.model_or(&settings.model)));
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
            body.insert("tool_choice".into(), tool_choice(choice, request.tools_called));
        }
    }
    if let Some(t) = request.temperature.or(settings.temperature) {
        body.insert("temperature".into(), temperature_json(t));
    }
    if let Some(format) = &request.response_format {
        let schema = json!({ "name": format.name, "schema": format.schema, "strict": format.strict });
        body.insert(
            "response_format".into(),
            json!({ "type": "json_schema", "json_schema": schema }),
        );
    }
    if let Some(n) = request.max_tokens.or(settings.max_tokens) {
        body.insert(settings.max_tokens_field().into(), json!(n));
    }
    if settings.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({ "include_usage": true }));
    }
    Value::Object(body)
}

/// The `tool_choice` of a request: the configured one, except that one
/// forcing a call (`"required"`, a function) becomes `"auto"` once an earlier
/// step of the turn called tools ([`ModelRequest::tools_called`]).
fn tool_choice(configured: &Value, tools_called: bool) -> Value {
    let forces = configured == "required" || configured.is_object();
    if forces && tools_called {
        json!("auto")
    } else {
        configured.clone()
    }
}

/// One message in the chat-completions shape; with `replay`, a tool-call
/// message's reasoning goes back as `reasoning_content`. (`exportConversation`'s
/// `openai` format is built with it too, so the two cannot drift apart.)
pub fn message_json(message: &Message, replay: bool) -> Value {
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
            let mut json = json!({ "role": "assistant", "content": content, "tool_calls": calls });
            let reasoning = reasoning_text(&message.reasoning);
            if replay && !reasoning.is_empty() {
                json["reasoning_content"] = json!(reasoning);
            }
            json
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
    use crate::provider::openai::MaxTokensParam;

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
            replay_reasoning: None,
            max_tokens_param: None,
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
    fn a_forced_tool_choice_relaxes_to_auto_once_the_turn_called_tools() {
        let function = json!({"type": "function", "function": {"name": "f"}});
        for (configured, first, later) in [
            (json!("required"), json!("required"), json!("auto")),
            (function.clone(), function.clone(), json!("auto")),
            (json!("none"), json!("none"), json!("none")),
            (json!("auto"), json!("auto"), json!("auto")),
        ] {
            let settings = OpenAiSettings {
                tool_choice: Some(configured.clone()),
                ..settings(false)
            };
            let tools = vec![ToolDefinition {
                name: "f".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }];
            let mut request = ModelRequest {
                tools,
                ..Default::default()
            };
            assert_eq!(
                request_body(&settings, &request)["tool_choice"],
                first,
                "{configured}"
            );
            request.tools_called = true;
            assert_eq!(
                request_body(&settings, &request)["tool_choice"],
                later,
                "{configured}"
            );
        }
    }

    #[test]
    fn reasoning_goes_back_on_tool_call_messages_for_deepseek_or_when_asked() {
        let mut ask = Message::new("2".into(), "c", Role::Assistant, "", 0.0);
        ask.tool_calls = vec![ToolCall {
            id: "call_1".into(),
            name: "f".into(),
            arguments: "{}".into(),
        }];
        ask.reasoning = vec![crate::domain::ReasoningBlock {
            text: "I should call f.".into(),
            ..Default::default()
        }];
        let mut answer = Message::new("4".into(), "c", Role::Assistant, "done", 0.0);
        answer.reasoning = ask.reasoning.clone();
        let request = ModelRequest {
            messages: vec![ask, answer],
            ..Default::default()
        };
        let sent = |settings: &OpenAiSettings| {
            let body = request_body(settings, &request);
            let m = &body["messages"];
            (
                m[0].get("reasoning_content").cloned(),
                m[1].get("reasoning_content").cloned(),
            )
        };
        let mut deepseek = settings(true);
        deepseek.base_url = "https://API.deepseek.com/v1".into();
        assert_eq!(sent(&deepseek), (Some(json!("I should call f.")), None));
        assert_eq!(sent(&settings(true)), (None, None));
        let mut asked = settings(true);
        asked.replay_reasoning = Some(true);
        assert_eq!(sent(&asked).0, Some(json!("I should call f.")));
        deepseek.replay_reasoning = Some(false);
        assert_eq!(sent(&deepseek), (None, None));
    }

    #[test]
    fn the_token_limit_field_is_named_for_the_server() {
        let request = ModelRequest {
            max_tokens: Some(77),
            ..Default::default()
        };
        let field = |base_url: &str, param: Option<MaxTokensParam>| {
            let mut s = settings(false);
            s.base_url = base_url.into();
            s.max_tokens_param = param;
            let body = request_body(&s, &request);
            let names: Vec<&str> = ["max_tokens", "max_completion_tokens"]
                .into_iter()
                .filter(|k| body.get(*k) == Some(&json!(77)))
                .collect();
            names
        };
        assert_eq!(
            field("https://api.openai.com/v1", None),
            ["max_completion_tokens"]
        );
        assert_eq!(field("http://localhost:11434/v1", None), ["max_tokens"]);
        assert_eq!(
            field("https://example.com/api.openai.com/v1", None),
            ["max_tokens"]
        );
        assert_eq!(
            field("https://api.openai.com/v1", Some(MaxTokensParam::MaxTokens)),
            ["max_tokens"]
        );
        assert_eq!(
            field(
                "http://127.0.0.1:8080/v1",
                Some(MaxTokensParam::MaxCompletionTokens)
            ),
            ["max_completion_tokens"]
        );
    }

    #[test]
    fn non_streaming_body_has_no_stream_fields() {
        let body = request_body(&settings(false), &ModelRequest::default());
        assert!(body.get("stream").is_none() && body.get("stream_options").is_none());
    }

    #[test]
    fn a_response_format_becomes_a_json_schema_response_format() {
        let request = ModelRequest {
            response_format: Some(
                crate::domain::ResponseFormat::new(
                    Some("city".into()),
                    json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                    true,
                )
                .unwrap(),
            ),
            ..Default::default()
        };
        assert_eq!(
            request_body(&settings(false), &request)["response_format"],
            json!({"type": "json_schema", "json_schema": {
                "name": "city",
                "schema": {"type": "object", "properties": {"name": {"type": "string"}}},
                "strict": true
            }})
        );
        let plain = request_body(&settings(false), &ModelRequest::default());
        assert!(plain.get("response_format").is_none());
    }
}
