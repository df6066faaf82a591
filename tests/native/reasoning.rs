//! Reasoning ("thinking"), natively: recorded streams and answers of both wire
//! formats decoded into reasoning blocks; blocks stored with the assistant
//! message and the paused step; signed blocks sent back first to Anthropic
//! across a tool step and across an approval pause and resolve; DeepSeek's
//! `reasoning_content`; events and `messages()` only with `showThinking`.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{validate_config, Agent, AgentConfig, RunLimits, SendOptions, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalDecision, ApprovalPolicy, DecisionKind, ToolPolicy};
use lectern::cancel::CancelToken;
use lectern::domain::{Message, NewConversation, ReasoningBlock, Role};
use lectern::events::{EventKind, EventSink};
use lectern::http::{RecordedResponse, ReplayTransport};
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::provider::{accumulate, anthropic, openai, provider_for, Model, ModelRequest, ModelResponse};
use lectern::provider::{ProviderConfig, ProviderKind};
use lectern::storage::{MemoryStore, Store};
use lectern::time::{Clock, ManualClock};
use lectern::tool::{FnTool, ToolRegistry, ToolResult};
use serde_json::{json, Value};

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

/// An agent over a scripted model with one tool, `weather`, that `approvals` may hold for a person.
struct World {
    agent: Agent,
    store: Rc<MemoryStore>,
    model: Rc<ScriptedModel>,
    clock: Rc<ManualClock>,
    events: Rc<RefCell<Vec<EventKind>>>,
    conversation: String,
}

impl World {
    fn new(turns: Vec<ScriptedTurn>, config: AgentConfig) -> World {
        let store = Rc::new(MemoryStore::new());
        let model = Rc::new(ScriptedModel::new(turns));
        let clock = Rc::new(ManualClock::new(1_700_000_000_000.0));
        let dyn_model: Rc<dyn Model> = model.clone();
        let agent = Agent::new(store.clone(), dyn_model, clock.clone(), config);
        let tool = FnTool::new(
            "weather",
            "The weather",
            json!({"type": "object"}),
            |_args: Value, _| {
                Box::pin(async { Ok(json!({"sky": "grey"})) }) as LocalBoxFuture<'static, ToolResult>
            },
        );
        agent.register_tool(Rc::new(tool)).unwrap();
        let conversation = block_on(agent.create_conversation(NewConversation::default()))
            .unwrap()
            .id;
        World {
            agent,
            store,
            model,
            clock,
            events: Rc::new(RefCell::new(Vec::new())),
            conversation,
        }
    }

    fn sink(&self) -> EventSink {
        let events = self.events.clone();
        EventSink::new(move |e| events.borrow_mut().push(e.kind))
    }

    fn send(&self, text: &str) -> lectern::agent::TurnResult {
        self.clock
            .drive(
                self.agent
                    .send(&self.conversation, text, &SendOptions::default(), &self.sink()),
            )
            .unwrap_or_else(|e| panic!("{}", e.error))
    }

    fn reasoning_events(&self) -> Vec<String> {
        self.events
            .borrow()
            .iter()
            .filter_map(|e| match e {
                EventKind::ReasoningDelta { text } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    /// The Anthropic body (thinking on) of the model's request number `n` (from 0).
    fn anthropic_body(&self, n: usize) -> Value {
        let settings: ProviderConfig = serde_json::from_value(json!({
            "kind": "anthropic", "model": "claude-x", "maxTokens": 4096,
            "thinking": {"budgetTokens": 2048}
        }))
        .unwrap();
        let ProviderKind::Anthropic(settings) = settings.kind else {
            unreachable!()
        };
        anthropic::request_body(&settings, &self.model.requests()[n])
    }
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
    let world = World::new(thinking_then_tool(), AgentConfig::default());
    let result = world.send("Weather?");
    assert_eq!(result.text, "Grey skies.");
    let blocks = tool_turn_blocks(&world.anthropic_body(1));
    assert_eq!(
        blocks[..3],
        [
            json!({"type": "thinking", "thinking": "Need the weather first.", "signature": "sig-1"}),
            json!({"type": "redacted_thinking", "data": "opaque-1"}),
            json!({"type": "tool_use", "id": "call_1_0", "name": "weather", "input": {}}),
        ]
    );
    // Stored with both assistant messages; hidden from messages() without showThinking.
    let stored = block_on(world.store.messages(&world.conversation)).unwrap();
    let answers: Vec<&Message> = stored.iter().filter(|m| m.role == Role::Assistant).collect();
    assert_eq!(answers[0].reasoning.len(), 2);
    assert_eq!(answers[1].reasoning, [block("Now answer.", Some("sig-2"))]);
    let shown = block_on(world.agent.messages(&world.conversation)).unwrap();
    assert!(shown.iter().all(|m| m.reasoning.is_empty()));
    assert!(
        world.reasoning_events().is_empty(),
        "no reasoningDelta without showThinking"
    );
    // A later turn sends the earlier cycle's thinking no more.
    world.model.push(ScriptedTurn::text("Still grey."));
    world.send("And now?");
    let later = world.anthropic_body(2).to_string();
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
    let world = World::new(thinking_then_tool(), config);
    world.send("Weather?");
    assert_eq!(
        world.reasoning_events().concat(),
        "Need the weather first.Now answer."
    );
    let shown = block_on(world.agent.messages(&world.conversation)).unwrap();
    let reasoning: Vec<usize> = shown.iter().map(|m| m.reasoning.len()).collect();
    assert_eq!(reasoning, [0, 2, 0, 1]);
}

#[test]
fn signed_thinking_goes_back_first_after_an_approval_pause_and_resolve() {
    let mut approvals = ApprovalConfig {
        ttl_ms: 60_000,
        ..ApprovalConfig::default()
    };
    approvals
        .tools
        .insert("weather".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    let config = AgentConfig {
        approvals,
        ..AgentConfig::default()
    };
    let world = World::new(thinking_then_tool(), config);
    let paused = world.send("Weather?");
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    let decision = ApprovalDecision {
        call_id: "call_1_0".into(),
        decision: DecisionKind::Approve,
        arguments: None,
        reason: None,
    };
    let done = world
        .clock
        .drive(world.agent.resolve_approvals(
            &paused.turn_id,
            &[decision],
            &SendOptions::default(),
            &world.sink(),
        ))
        .unwrap_or_else(|e| panic!("{}", e.error));
    assert_eq!(done.text, "Grey skies.");
    let blocks = tool_turn_blocks(&world.anthropic_body(1));
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
    let world = World::new(turns, AgentConfig::default());
    world.send("Weather?");
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
    let store = Rc::new(MemoryStore::new());
    let turns = vec![
        ScriptedTurn::tools(&[("slow", "{}")]).with_reasoning(vec![block("Slow it is.", Some("sig-s"))])
    ];
    let model: Rc<dyn Model> = Rc::new(ScriptedModel::new(turns));
    let config = AgentConfig {
        limits: RunLimits {
            turn_timeout_ms: 5_000,
            tool_timeout_ms: 60_000,
            ..RunLimits::default()
        },
        ..AgentConfig::default()
    };
    let agent = Agent::new(store.clone(), model, Rc::new(clock.clone()), config);
    let sleeper = clock.clone();
    let slow = FnTool::new(
        "slow",
        "a slow tool",
        json!({"type": "object"}),
        move |_: Value, _| {
            let sleep = sleeper.sleep(10_000);
            Box::pin(async move {
                sleep.await;
                Ok(json!("done"))
            }) as LocalBoxFuture<'static, ToolResult>
        },
    );
    agent.register_tool(Rc::new(slow)).unwrap();
    let id = clock
        .drive(agent.create_conversation(NewConversation::default()))
        .unwrap()
        .id;
    let cut = clock
        .drive(agent.send(&id, "go", &SendOptions::default(), &EventSink::none()))
        .unwrap_err();
    assert_eq!(cut.error.name(), "TimeoutError");
    let stored = clock.drive(store.messages(&id)).unwrap();
    let ask = stored
        .iter()
        .find(|m| !m.tool_calls.is_empty())
        .expect("the cut step is stored");
    assert_eq!(ask.reasoning, [block("Slow it is.", Some("sig-s"))]);
}
