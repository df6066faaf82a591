//! Building the Messages request body.

use serde_json::{json, Map, Value};

use super::AnthropicSettings;
use crate::domain::{Message, ReasoningBlock, Role};
use crate::provider::{temperature_json, ModelRequest};

/// Put first when the history window starts with an assistant turn, since the
/// API wants the conversation to open with the user.
const OMITTED_HISTORY: &str = "(Earlier messages of this conversation are omitted.)";

/// The JSON body for `POST /messages`.
///
/// The system prompt (and any stored system messages) go top-level; tool calls
/// become `tool_use` blocks and their results `tool_result` blocks in a user
/// turn; consecutive turns of one role are merged, as the API requires.
pub fn request_body(settings: &AnthropicSettings, request: &ModelRequest) -> Value {
    let (system, turns) = system_and_turns(settings, request);
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model_or(&settings.model)));
    body.insert(
        "max_tokens".into(),
        json!(request.max_tokens.unwrap_or(settings.max_tokens)),
    );
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({ "role": role, "content": content }))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    add_tools_and_sampling(&mut body, settings, request);
    if settings.stream {
        body.insert("stream".into(), json!(true));
    }
    Value::Object(body)
}

/// One turn of the body: its role and content blocks.
type Turn = (&'static str, Vec<Value>);

/// The system texts (the prompt, then stored system messages) and the
/// alternating user and assistant turns, opening with the user's.
fn system_and_turns<'a>(
    settings: &AnthropicSettings,
    request: &'a ModelRequest,
) -> (Vec<&'a str>, Vec<Turn>) {
    let mut system: Vec<&str> = request
        .system
        .as_deref()
        .filter(|s| !s.is_empty())
        .into_iter()
        .collect();
    let mut turns: Vec<Turn> = Vec::new();
    // Thinking goes back only for the current cycle: answers after the last user message.
    let cycle_start = request
        .messages
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |i| i + 1);
    for (i, message) in request.messages.iter().enumerate() {
        let (role, blocks) = match message.role {
            Role::System => {
                system.push(&message.content);
                continue;
            }
            Role::User => ("user", vec![json!({ "type": "text", "text": message.content })]),
            Role::ToolResult => ("user", vec![tool_result_block(message)]),
            Role::Assistant => {
                let replay = settings.thinking.is_some() && i >= cycle_start;
                ("assistant", assistant_blocks(message, replay))
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => {
                for block in blocks {
                    // A merged assistant turn still opens with its thinking, as the API requires.
                    if is_thinking(&block) {
                        let first_other = last_blocks.iter().take_while(|b| is_thinking(b)).count();
                        last_blocks.insert(first_other, block);
                    } else {
                        last_blocks.push(block);
                    }
                }
            }
            _ => turns.push((role, blocks)),
        }
    }
    if turns.first().is_some_and(|(role, _)| *role == "assistant") {
        turns.insert(
            0,
            ("user", vec![json!({ "type": "text", "text": OMITTED_HISTORY })]),
        );
    }
    (system, turns)
}

/// The tools (with a `responseSchema`'s response tool), the tool choice, and
/// thinking or temperature.
fn add_tools_and_sampling(
    body: &mut Map<String, Value>,
    settings: &AnthropicSettings,
    request: &ModelRequest,
) {
    let response_tool = super::structured::response_tool(settings, request);
    if !request.tools.is_empty() || response_tool.is_some() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .chain(&response_tool)
            .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.parameters }))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    super::structured::add_choice(body, settings, request);
    match settings.thinking {
        Some(thinking) => {
            // The API refuses `temperature` with thinking on.
            let config = json!({ "type": "enabled", "budget_tokens": thinking.budget_tokens });
            body.insert("thinking".into(), config);
        }
        None => {
            if let Some(t) = request.temperature.or(settings.temperature) {
                body.insert("temperature".into(), temperature_json(t));
            }
        }
    }
}

/// An assistant message's blocks: its signed and redacted thinking first (with
/// `replay`; unsigned reasoning, as from another provider, is never sent), then
/// its text, then its tool calls.
fn assistant_blocks(message: &Message, replay: bool) -> Vec<Value> {
    let mut blocks: Vec<Value> = if replay {
        message.reasoning.iter().filter_map(thinking_block).collect()
    } else {
        Vec::new()
    };
    if !message.content.is_empty() {
        blocks.push(json!({ "type": "text", "text": message.content }));
    }
    for call in &message.tool_calls {
        // `input` must be an object; arguments the model garbled are replayed as text.
        let input = match serde_json::from_str::<Value>(&call.arguments) {
            Ok(Value::Object(map)) => Value::Object(map),
            Ok(_) | Err(_) if call.arguments.trim().is_empty() => json!({}),
            _ => json!({ "arguments": call.arguments }),
        };
        blocks.push(json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": input }));
    }
    blocks
}

/// The `thinking` or `redacted_thinking` block of a stored reasoning block the API would take back.
fn thinking_block(block: &ReasoningBlock) -> Option<Value> {
    if !block.is_replayable() {
        return None;
    }
    Some(match (&block.redacted, &block.signature) {
        (Some(data), _) => json!({ "type": "redacted_thinking", "data": data }),
        (None, signature) => json!({ "type": "thinking", "thinking": block.text, "signature": signature }),
    })
}

fn is_thinking(block: &Value) -> bool {
    matches!(
        block.get("type").and_then(Value::as_str),
        Some("thinking" | "redacted_thinking")
    )
}

fn tool_result_block(message: &Message) -> Value {
    json!({
        "type": "tool_result",
        "tool_use_id": message.tool_call_id.as_deref().unwrap_or_default(),
        "content": message.content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ToolCall, ToolDefinition};
    use crate::provider::anthropic::ThinkingSettings;

    fn settings() -> AnthropicSettings {
        AnthropicSettings {
            base_url: "https://api.anthropic.com/v1".into(),
            model: "claude-test".into(),
            api_key: Some("k".into()),
            stream: true,
            headers: Default::default(),
            temperature: None,
            max_tokens: 1024,
            anthropic_version: "2023-06-01".into(),
            thinking: None,
        }
    }

    fn msg(role: Role, content: &str) -> Message {
        Message::new(String::new(), "c", role, content, 0.0)
    }

    #[test]
    fn tool_use_and_results_become_blocks_and_same_role_turns_merge() {
        let mut ask = msg(Role::Assistant, "Let me look.");
        ask.tool_calls = vec![
            ToolCall {
                id: "toolu_1".into(),
                name: "a".into(),
                arguments: "{\"q\":1}".into(),
            },
            ToolCall {
                id: "toolu_2".into(),
                name: "b".into(),
                arguments: String::new(),
            },
        ];
        let mut r1 = msg(Role::ToolResult, "one");
        r1.tool_call_id = Some("toolu_1".into());
        let mut r2 = msg(Role::ToolResult, "two");
        r2.tool_call_id = Some("toolu_2".into());
        let request = ModelRequest {
            system: Some("Be kind.".into()),
            messages: vec![msg(Role::User, "hi"), msg(Role::User, "again"), ask, r1, r2],
            tools: vec![ToolDefinition {
                name: "a".into(),
                description: "A".into(),
                parameters: json!({"type":"object"}),
            }],
            ..Default::default()
        };
        assert_eq!(
            request_body(&settings(), &request),
            json!({
                "model": "claude-test",
                "max_tokens": 1024,
                "system": "Be kind.",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "again"}]},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "Let me look."},
                        {"type": "tool_use", "id": "toolu_1", "name": "a", "input": {"q": 1}},
                        {"type": "tool_use", "id": "toolu_2", "name": "b", "input": {}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "one"},
                        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "two"}
                    ]}
                ],
                "tools": [{"name": "a", "description": "A", "input_schema": {"type": "object"}}],
                "stream": true
            })
        );
    }

    #[test]
    fn history_opening_with_the_assistant_gets_a_user_turn_first() {
        let request = ModelRequest {
            messages: vec![msg(Role::Assistant, "earlier answer"), msg(Role::User, "next")],
            ..Default::default()
        };
        let body = request_body(&settings(), &request);
        assert_eq!(body["messages"][0]["role"], "user");
        assert_eq!(body["messages"][1]["role"], "assistant");
        assert!(body.get("system").is_none());
    }

    fn thinking(text: &str, signature: Option<&str>) -> ReasoningBlock {
        ReasoningBlock {
            text: text.into(),
            signature: signature.map(Into::into),
            redacted: None,
        }
    }

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "a".into(),
            arguments: "{}".into(),
        }
    }

    #[test]
    fn with_thinking_the_cycle_s_signed_blocks_open_its_assistant_turns() {
        let mut old = msg(Role::Assistant, "old");
        old.tool_calls = vec![call("t0")];
        old.reasoning = vec![thinking("earlier", Some("s0"))];
        let mut r0 = msg(Role::ToolResult, "r0");
        r0.tool_call_id = Some("t0".into());
        let mut ask = msg(Role::Assistant, "Let me look.");
        ask.tool_calls = vec![call("t1")];
        ask.reasoning = vec![
            thinking("signed", Some("s1")),
            thinking("unsigned", None),
            ReasoningBlock {
                redacted: Some("opaque".into()),
                ..Default::default()
            },
        ];
        let mut r1 = msg(Role::ToolResult, "r1");
        r1.tool_call_id = Some("t1".into());
        let request = ModelRequest {
            messages: vec![msg(Role::User, "q0"), old, r0, msg(Role::User, "q1"), ask, r1],
            temperature: Some(0.3),
            ..Default::default()
        };
        let mut with = settings();
        with.thinking = Some(ThinkingSettings { budget_tokens: 1024 });
        let body = request_body(&with, &request);
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 1024})
        );
        assert!(body.get("temperature").is_none());
        assert_eq!(
            body["messages"][1]["content"][0]["type"], "text",
            "earlier cycles send no thinking"
        );
        assert_eq!(
            body["messages"][3]["content"],
            json!([
                {"type": "thinking", "thinking": "signed", "signature": "s1"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "t1", "name": "a", "input": {}}
            ])
        );
        let without = request_body(&settings(), &request);
        assert_eq!(without["temperature"], json!(0.3));
        assert_eq!(without["messages"][3]["content"][0]["type"], "text");
    }

    #[test]
    fn merged_assistant_turns_still_open_with_thinking() {
        let interrupted = msg(Role::Assistant, "partial");
        let mut ask = msg(Role::Assistant, "");
        ask.tool_calls = vec![call("t1")];
        ask.reasoning = vec![thinking("why", Some("s"))];
        let request = ModelRequest {
            messages: vec![msg(Role::User, "q"), interrupted, ask],
            ..Default::default()
        };
        let mut with = settings();
        with.thinking = Some(ThinkingSettings { budget_tokens: 1024 });
        let kinds: Vec<Value> = request_body(&with, &request)["messages"][1]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["type"].clone())
            .collect();
        assert_eq!(kinds, [json!("thinking"), json!("text"), json!("tool_use")]);
    }

    #[test]
    fn garbled_arguments_are_replayed_inside_an_object() {
        let mut ask = msg(Role::Assistant, "");
        ask.tool_calls = vec![ToolCall {
            id: "t".into(),
            name: "a".into(),
            arguments: "{oops".into(),
        }];
        let request = ModelRequest {
            messages: vec![msg(Role::User, "x"), ask],
            ..Default::default()
        };
        let body = request_body(&settings(), &request);
        assert_eq!(
            body["messages"][1]["content"][0]["input"],
            json!({"arguments": "{oops"})
        );
    }
}
