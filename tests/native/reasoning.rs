//! Reasoning ("thinking"), natively: recorded streams and answers of both wire
//! formats decoded into reasoning blocks; blocks stored with the assistant
//! message and the paused step; signed blocks sent back first to Anthropic
//! across a tool step and across an approval pause and resolve; DeepSeek's
//! `reasoning_content`; events and `messages()` only with `showThinking`.

use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{validate_config, AgentConfig, RunLimits, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalPolicy};
use lectern::domain::{Message, ReasoningBlock, Role};
use lectern::events::EventKind;
use lectern::http::{RecordedResponse, ReplayTransport};
use lectern::provider::scripted::ScriptedTurn;
use lectern::provider::{accumulate, anthropic, openai, provider_for, ModelRequest, ModelResponse};
use lectern::provider::{ProviderConfig, ProviderKind};
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::tool::ToolRegistry;
use serde_json::{json, Value};

use crate::support::harness::approvals::{approve, fixed_policies, with_approvals};
use crate::support::harness::{tools, TestAgent};

fn fixture(file: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/reasoning/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn block(text: &str, signature: Option<&str>) -> ReasoningBlock {
    ReasoningBlock {
        text: text.into(),
        signature: signature.map(Into::into),
        redacted: None,
    }
}

fn redacted(data: &str) -> ReasoningBlock {
    ReasoningBlock {
        redacted: Some(data.into()),
        ..ReasoningBlock::default()
    }
}

/// The answer the provider `config` decodes from `bytes`, served whole or in chunks of `size`.
fn decode(config: Value, bytes: &[u8], size: usize) -> ModelResponse {
    let config: ProviderConfig = serde_json::from_value(config).unwrap();
    let transport = ReplayTransport::new();
    let content_type = if bytes.starts_with(b"{") {
        "application/json"
    } else {
        "text/event-stream"
    };
    transport.push(RecordedResponse::ok_chunks(
        content_type,
        bytes.chunks(size).map(<[u8]>::to_vec),
    ));
    let model = provider_for(&config.kind, Rc::new(transport), Rc::new(ManualClock::new(0.0))).unwrap();
    let request = ModelRequest {
        messages: vec![Message::new("m".into(), "c", Role::User, "hi", 0.0)],
        ..ModelRequest::default()
    };
    block_on(async {
        let parts = model.stream(&request, &CancelToken::new()).await?;
        accumulate(parts).await
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Decodes `file` in several chunkings; every one gives the same answer, which is returned.
fn decode_all(config: Value, file: &str) -> ModelResponse {
    let bytes = fixture(file);
    let whole = decode(config.clone(), &bytes, bytes.len());
    for size in [1, 7, 64] {
        assert_eq!(
            decode(config.clone(), &bytes, size),
            whole,
            "{file} in {size}-byte chunks"
        );
    }
    whole
}

const OSLO_THOUGHT: &str = "The user asks about Oslo — so I’ll call get_weather. 🙂";

#[test]
fn anthropic_thinking_signature_and_redacted_blocks_decode_streamed_and_whole() {
    for (file, stream) in [
        ("anthropic-thinking-tool.sse", true),
        ("anthropic-thinking-tool.json", false),
    ] {
        let config = json!({"kind": "anthropic", "model": "claude-x", "apiKey": "k", "stream": stream});
        let response = decode_all(config, file);
        assert_eq!(
            response.reasoning,
            [
                block(OSLO_THOUGHT, Some("EqQBCgIYAhIMsig==")),
                redacted("EmwKAhgBEgy3vaRedacted")
            ],
            "{file}"
        );
        assert_eq!(response.text, "Checking.", "{file}");
        assert_eq!(response.tool_calls.len(), 1, "{file}");
    }
}

#[test]
fn openai_reasoning_content_and_reasoning_decode_beside_null_fields() {
    let config = |stream: bool| json!({"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m", "stream": stream});
    let deepseek = decode_all(config(true), "openai-reasoning-content.sse");
    assert_eq!(deepseek.reasoning, [block("Two plus two is four — 四.", None)]);
    assert_eq!(deepseek.text, "The answer is 4.");
    for (file, stream) in [("openai-reasoning.sse", true), ("openai-reasoning.json", false)] {
        let response = decode_all(config(stream), file);
        assert_eq!(response.reasoning, [block("I need the weather.", None)], "{file}");
        assert_eq!(response.text, "", "{file}");
        assert_eq!(
            response.tool_calls[0].arguments, r#"{"location":"Oslo"}"#,
            "{file}"
        );
    }
}

/// An agent over `turns` with one tool, `weather`, that `config.approvals` may hold for a person.
fn world(turns: Vec<ScriptedTurn>, config: AgentConfig) -> TestAgent {
    TestAgent::builder(turns)
        .config(config)
        .tool(tools::answering("weather", "The weather", json!({"sky": "grey"})))
        .build()
}

/// Sends `text`: the turn's result (a failed turn panics with its error).
fn send(world: &TestAgent, text: &str) -> lectern::agent::TurnResult {
    world.send(text).unwrap_or_else(|e| panic!("{}", e.error))
}

/// The text of each `reasoningDelta` event.
fn reasoning_events(world: &TestAgent) -> Vec<String> {
    world
        .events()
        .iter()
        .filter_map(|e| match e {
            EventKind::ReasoningDelta { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// The Anthropic body (thinking on) of the model's request number `n` (from 0).
fn anthropic_body(world: &TestAgent, n: usize) -> Value {
    let settings: ProviderConfig = serde_json::from_value(json!({
        "kind": "anthropic", "model": "claude-x", "maxTokens": 4096,
        "thinking": {"budgetTokens": 2048}
    }))
    .unwrap();
    let ProviderKind::Anthropic(settings) = settings.kind else {
        unreachable!()
    };
    anthropic::request_body(&settings, &world.model.requests()[n])
}

fn thinking_then_tool() -> Vec<ScriptedTurn> {
    vec![
        ScriptedTurn::tools(&[("weather", "{}")]).with_reasoning(vec![
            block("Need the weather first.", Some("sig-1")),
            redacted("opaque-1"),
        ]),
        ScriptedTurn::text("Grey skies.").with_reasoning(vec![block("Now answer.", Some("sig-2"))]),
    ]
}

/// The first block types of the assistant turn that calls a tool, in a request body.
fn tool_turn_blocks(body: &Value) -> Vec<Value> {
    let turn = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant" && m["content"].to_string().contains("tool_use"))
        .expect("an assistant turn with a tool call");
    turn["content"].as_array().unwrap().clone()
}

#[test]
fn signed_thinking_goes_back_first_across_a_tool_step() {
    let world = world(thinking_then_tool(), AgentConfig::default());
    let result = send(&world, "Weather?");
    assert_eq!(result.text, "Grey skies.");
    let blocks = tool_turn_blocks(&anthropic_body(&world, 1));
    assert_eq!(
        blocks[..3],
        [
            json!({"type": "thinking", "thinking": "Need the weather first.", "signature": "sig-1"}),
            json!({"type": "redacted_thinking", "data": "opaque-1"}),
            json!({"type": "tool_use", "id": "call_1_0", "name": "weather", "input": {}}),
        ]
    );
    // Stored with both assistant messages; hidden from messages() without showThinking.
    let stored = world.messages();
    let answers: Vec<&Message> = stored.iter().filter(|m| m.role == Role::Assistant).collect();
    assert_eq!(answers[0].reasoning.len(), 2);
    assert_eq!(answers[1].reasoning, [block("Now answer.", Some("sig-2"))]);
    let shown = block_on(world.agent.messages(&world.conversation)).unwrap();
    assert!(shown.iter().all(|m| m.reasoning.is_empty()));
    assert!(
        reasoning_events(&world).is_empty(),
        "no reasoningDelta without showThinking"
    );
    // A later turn sends the earlier cycle's thinking no more.
    world.model.push(ScriptedTurn::text("Still grey."));
    send(&world, "And now?");
    let later = anthropic_body(&world, 2).to_string();
    assert!(
        !later.contains("\"thinking\",") && !later.contains("redacted_thinking"),
        "{later}"
    );
}

#[test]
fn show_thinking_emits_reasoning_deltas_and_shows_stored_reasoning() {
    let config = AgentConfig {
        show_thinking: true,
        ..AgentConfig::default()
    };
    let world = world(thinking_then_tool(), config);
    send(&world, "Weather?");
    assert_eq!(
        reasoning_events(&world).concat(),
        "Need the weather first.Now answer."
    );
    let shown = block_on(world.agent.messages(&world.conversation)).unwrap();
    let reasoning: Vec<usize> = shown.iter().map(|m| m.reasoning.len()).collect();
    assert_eq!(reasoning, [0, 2, 0, 1]);
}

#[test]
fn signed_thinking_goes_back_first_after_an_approval_pause_and_resolve() {
    let config = with_approvals(ApprovalConfig {
        ttl_ms: 60_000,
        ..fixed_policies(&[("weather", ApprovalPolicy::Ask)])
    });
    let world = world(thinking_then_tool(), config);
    let paused = send(&world, "Weather?");
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    let done = world
        .resolve(&paused.turn_id, &[approve("call_1_0")])
        .unwrap_or_else(|e| panic!("{}", e.error));
    assert_eq!(done.text, "Grey skies.");
    let blocks = tool_turn_blocks(&anthropic_body(&world, 1));
    assert_eq!(blocks[0]["signature"], "sig-1");
    assert_eq!(
        blocks[1],
        json!({"type": "redacted_thinking", "data": "opaque-1"})
    );
    assert_eq!(blocks[2]["type"], "tool_use");
}

#[test]
fn deepseek_gets_the_tool_step_s_reasoning_content_back() {
    let turns = vec![
        ScriptedTurn::tools(&[("weather", "{}")]).with_reasoning(vec![block("Look it up.", None)]),
        ScriptedTurn::text("Grey."),
    ];
    let world = world(turns, AgentConfig::default());
    send(&world, "Weather?");
    let request = &world.model.requests()[1];
    let body_for = |base_url: &str| {
        let config: ProviderConfig =
            serde_json::from_value(json!({"kind": "openai", "baseUrl": base_url, "model": "m"})).unwrap();
        let ProviderKind::Openai(settings) = config.kind else {
            unreachable!()
        };
        openai::request_body(&settings, request)
    };
    let deepseek = body_for("https://api.deepseek.com/v1");
    let ask = deepseek["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m.get("tool_calls").is_some())
        .unwrap();
    assert_eq!(ask["reasoning_content"], "Look it up.");
    assert!(!body_for("http://127.0.0.1:11434/v1")
        .to_string()
        .contains("reasoning_content"));
}

#[test]
fn validate_config_rejects_a_thinking_budget_out_of_range() {
    for (budget, valid) in [(1023, false), (1024, true), (4095, true), (4096, false)] {
        let provider: ProviderConfig = serde_json::from_value(json!({
            "kind": "anthropic", "model": "claude-x", "apiKey": "k", "maxTokens": 4096,
            "thinking": {"budgetTokens": budget}
        }))
        .unwrap();
        let report = validate_config(&provider, &AgentConfig::default(), &ToolRegistry::new());
        assert_eq!(report.valid, valid, "{budget}: {:?}", report.errors);
        if !valid {
            assert!(
                report.errors[0].contains("thinking.budgetTokens"),
                "{:?}",
                report.errors
            );
        }
    }
}

#[test]
fn a_step_cut_off_by_the_turn_limit_keeps_its_reasoning() {
    let clock = ManualClock::with_timers(1_700_000_000_000.0);
    let turns = vec![
        ScriptedTurn::tools(&[("slow", "{}")]).with_reasoning(vec![block("Slow it is.", Some("sig-s"))])
    ];
    let config = AgentConfig {
        limits: RunLimits {
            turn_timeout_ms: 5_000,
            tool_timeout_ms: 60_000,
            ..RunLimits::default()
        },
        ..AgentConfig::default()
    };
    let h = TestAgent::builder(turns)
        .config(config)
        .clock(clock.clone())
        .tool(tools::sleeping(
            "slow",
            "a slow tool",
            &clock,
            10_000,
            json!("done"),
        ))
        .build();
    let cut = h.send("go").unwrap_err();
    assert_eq!(cut.error.name(), "TimeoutError");
    let stored = h.messages();
    let ask = stored
        .iter()
        .find(|m| !m.tool_calls.is_empty())
        .expect("the cut step is stored");
    assert_eq!(ask.reasoning, [block("Slow it is.", Some("sig-s"))]);
}
