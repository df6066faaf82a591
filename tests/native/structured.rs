//! Structured output, natively: `send`'s response schema reaches both wire
//! formats (OpenAI `response_format`; Anthropic the forced `lectern_response`
//! tool, `tool_choice: any` beside other tools, `output_config` with
//! thinking); the answer resolves as `data`, fenced or not; a wrong answer
//! gets one corrective call (kept out of the store, counted in the usage and
//! checked against the budget) and a second wrong one fails with
//! `StructuredOutput`, storing no answer; Anthropic's `lectern_response`
//! call, streamed or whole, decodes to answer text and is never run as a tool
//! (the fixture's chunkings are in `providers.rs`).

use std::cell::Cell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{AgentConfig, Budget, SendOptions, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalPolicy};
use lectern::domain::{EgressPurpose, ResponseFormat, Role};
use lectern::events::EventKind;
use lectern::http::{RecordedResponse, ReplayTransport};
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::provider::{anthropic, openai, provider_for, Model, ModelRequest, ProviderConfig, ProviderKind};
use lectern::runtime::time::ManualClock;
use lectern::storage::MemoryStore;
use lectern::tool::{FnTool, ToolRegistry, ToolResult};
use lectern::Error;
use serde_json::{json, Value};

use crate::support::harness::approvals::{approve, fixed_policies, with_approvals};
use crate::support::harness::test_agent::AnyModel;
use crate::support::harness::{tools, Builder, TestAgent};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "temperatureC": {"type": "number"}
        },
        "required": ["city", "temperatureC"]
    })
}

fn structured() -> SendOptions {
    let mut options = SendOptions::default();
    options.overrides.response_format =
        Some(ResponseFormat::new(Some("weather".into()), schema(), false).unwrap());
    options
}

/// What every turn here asks.
const ASK: &str = "Weather in Tromsø?";

/// An agent over `model` (a scripted model or a provider) with `config` and
/// a `weather` tool; and the count of the tool's runs.
fn agent_over<M: AnyModel + ?Sized>(
    model: Rc<M>,
    config: AgentConfig,
) -> (TestAgent<MemoryStore, M>, Rc<Cell<u32>>) {
    let runs = Rc::new(Cell::new(0));
    let h = Builder::over(model)
        .config(config)
        .clock(ManualClock::new(1.7e12))
        .tool(tools::counting(
            "weather",
            "The weather",
            runs.clone(),
            json!({"sky": "grey"}),
        ))
        .build();
    (h, runs)
}

/// [`agent_over`] a scripted model playing `turns`.
fn scripted(turns: Vec<ScriptedTurn>, config: AgentConfig) -> (TestAgent, Rc<Cell<u32>>) {
    agent_over(Rc::new(ScriptedModel::new(turns)), config)
}

/// The data of the `finish` event.
fn finish_data<M: ?Sized>(world: &TestAgent<MemoryStore, M>) -> Option<Value> {
    world.events().iter().find_map(|e| match e {
        EventKind::Finish { data, .. } => data.clone(),
        _ => None,
    })
}

const VALID: &str = r#"{"city": "Tromsø", "temperatureC": -4}"#;

#[test]
fn a_valid_answer_resolves_with_its_data() {
    let (world, _) = scripted(vec![ScriptedTurn::text(VALID)], AgentConfig::default());
    let result = world.send_with(ASK, &structured()).unwrap();
    let data = json!({"city": "Tromsø", "temperatureC": -4});
    assert_eq!(result.data, Some(data.clone()));
    assert_eq!(result.text, VALID);
    assert_eq!(finish_data(&world), Some(data.clone()));
    assert_eq!(serde_json::to_value(&result).unwrap()["data"], data);
    let requests = world.model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].response_format,
        structured().overrides.response_format
    );
    assert_eq!(world.history()[1], (Role::Assistant, VALID.to_owned()));
    // Without a schema there is no data, in the result or its JSON.
    world.model.push(ScriptedTurn::text("Grey."));
    let plain = world.send_with(ASK, &SendOptions::default()).unwrap();
    assert_eq!(plain.data, None);
    assert!(serde_json::to_value(&plain).unwrap().get("data").is_none());
    assert_eq!(world.model.requests()[1].response_format, None);
}

#[test]
fn a_fenced_answer_parses_and_is_stored_unfenced() {
    let fenced = format!("```json\n{VALID}\n```");
    let (world, _) = scripted(vec![ScriptedTurn::text(&fenced)], AgentConfig::default());
    let result = world.send_with(ASK, &structured()).unwrap();
    assert_eq!(result.data.unwrap()["city"], "Tromsø");
    assert_eq!(result.text, VALID);
    assert_eq!(world.history()[1].1, VALID);
}

#[test]
fn a_wrong_answer_gets_one_corrective_call_kept_out_of_the_store() {
    let turns = vec![
        ScriptedTurn::text(r#"{"city": "Tromsø"}"#).with_usage(100, 10),
        ScriptedTurn::text(VALID).with_usage(130, 12),
    ];
    let (world, _) = scripted(turns, AgentConfig::default());
    let result = world.send_with(ASK, &structured()).unwrap();
    assert_eq!(result.data.unwrap()["temperatureC"], -4);
    assert_eq!(
        (
            result.steps,
            result.usage.input_tokens,
            result.usage.output_tokens
        ),
        (2, 230, 22)
    );
    let requests = world.model.requests();
    assert_eq!(requests.len(), 2);
    let (first, second) = (&requests[0], &requests[1]);
    assert_eq!(second.messages.len(), first.messages.len() + 2);
    let added: Vec<(Role, &str)> = second.messages[first.messages.len()..]
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    assert_eq!(
        added,
        [
            (Role::Assistant, r#"{"city": "Tromsø"}"#),
            (
                Role::User,
                "Your answer did not match the required JSON schema: temperatureC: is required. \
                 Answer again with only JSON that matches it."
            ),
        ]
    );
    assert_eq!(second.response_format, first.response_format);
    assert!(
        !first.tools.is_empty() && second.tools.is_empty(),
        "the correction offers no tools"
    );
    assert_eq!(
        world.history(),
        [
            (Role::User, "Weather in Tromsø?".to_owned()),
            (Role::Assistant, VALID.to_owned())
        ]
    );
    let steps: Vec<u32> = world
        .events()
        .iter()
        .filter_map(|e| match e {
            EventKind::StepStart { step } => Some(*step),
            _ => None,
        })
        .collect();
    assert_eq!(steps, [1, 2]);
    let purposes: Vec<(u32, EgressPurpose, u64)> = result
        .egress
        .iter()
        .map(|e| (e.step, e.purpose, e.input_tokens))
        .collect();
    assert_eq!(
        purposes,
        [
            (1, EgressPurpose::Answer, 100),
            (2, EgressPurpose::Correction, 130)
        ],
        "the correction is in the egress ledger"
    );
}

#[test]
fn two_wrong_answers_fail_typed_and_store_no_answer() {
    let turns = vec![
        ScriptedTurn::text("It is cold in Tromsø.").with_usage(100, 10),
        ScriptedTurn::text(r#"{"city": "Tromsø", "temperatureC": "cold"}"#).with_usage(120, 11),
    ];
    let (world, _) = scripted(turns, AgentConfig::default());
    let failure = world.send_with(ASK, &structured()).unwrap_err();
    assert_eq!(
        failure.error,
        Error::StructuredOutput {
            text: r#"{"city": "Tromsø", "temperatureC": "cold"}"#.into(),
            validation_error: "temperatureC: must be a number, got \"cold\"".into(),
        }
    );
    assert_eq!(failure.error.name(), "StructuredOutputError");
    let note = world.model.requests()[1].messages.last().unwrap().content.clone();
    assert!(note.contains("the answer is not JSON ("), "{note}");
    assert_eq!((failure.steps, failure.usage.input_tokens), (2, 220));
    assert_eq!(world.history(), [(Role::User, "Weather in Tromsø?".to_owned())]);
    let totals = block_on(world.agent.usage(&world.conversation)).unwrap();
    assert_eq!(
        totals.input_tokens, 220,
        "both calls are in the conversation's usage"
    );
}

#[test]
fn the_budget_is_checked_before_the_corrective_call() {
    let config = AgentConfig {
        budget: Budget {
            max_tokens: Some(1_040),
            max_cost_usd: None,
        },
        ..AgentConfig::default()
    };
    let (world, _) = scripted(vec![ScriptedTurn::text("{}").with_usage(1_000, 30)], config);
    let failure = world.send_with(ASK, &structured()).unwrap_err();
    assert!(
        matches!(failure.error, Error::BudgetExceeded { .. }),
        "{:?}",
        failure.error
    );
    assert_eq!(world.model.requests().len(), 1, "the correction was not sent");
    assert_eq!(world.history().len(), 1);
}

#[test]
fn tools_run_before_a_structured_answer() {
    let turns = vec![
        ScriptedTurn::tools(&[("weather", "{}")]),
        ScriptedTurn::text(VALID),
    ];
    let (world, runs) = scripted(turns, AgentConfig::default());
    let result = world.send_with(ASK, &structured()).unwrap();
    assert_eq!(runs.get(), 1);
    assert_eq!(result.tool_calls.len(), 1);
    assert_eq!(result.data.unwrap()["city"], "Tromsø");
    assert!(world.model.requests().iter().all(|r| r.response_format.is_some()));
}

#[test]
fn a_paused_turn_keeps_its_schema_for_the_answer_after_approval() {
    let config = with_approvals(ApprovalConfig {
        ttl_ms: 60_000,
        ..fixed_policies(&[("weather", ApprovalPolicy::Ask)])
    });
    let turns = vec![
        ScriptedTurn::tools(&[("weather", "{}")]),
        ScriptedTurn::text(VALID),
    ];
    let (world, _) = scripted(turns, config);
    let paused = world.send_with(ASK, &structured()).unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert_eq!(paused.data, None);
    let done = world.resolve(&paused.turn_id, &[approve("call_1_0")]).unwrap();
    assert_eq!(done.data.unwrap()["city"], "Tromsø");
    assert_eq!(
        world.model.requests()[1].response_format,
        structured().overrides.response_format
    );
}

#[test]
fn the_response_tool_name_is_reserved() {
    let tool = FnTool::new("lectern_response", "x", json!({"type": "object"}), |_, _| {
        Box::pin(async { Ok(json!(1)) }) as LocalBoxFuture<'static, ToolResult>
    });
    let error = ToolRegistry::new().register(Rc::new(tool)).unwrap_err();
    assert!(error.to_string().contains("reserved"), "{error}");
}

fn provider(config: Value) -> ProviderKind {
    serde_json::from_value::<ProviderConfig>(config).unwrap().kind
}

#[test]
fn request_bodies_of_both_wire_formats() {
    let turns = vec![ScriptedTurn::text(VALID), ScriptedTurn::text(VALID)];
    let (world, _) = scripted(turns, AgentConfig::default());
    world.send_with(ASK, &structured()).unwrap();
    let mut no_tools = structured();
    no_tools.overrides.tools = Some(Vec::new());
    world.send_with(ASK, &no_tools).unwrap();
    let [with_tools, alone] = <[ModelRequest; 2]>::try_from(world.model.requests()).unwrap();

    let ProviderKind::Openai(settings) =
        provider(json!({"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"}))
    else {
        unreachable!()
    };
    let body = openai::request_body(&settings, &with_tools);
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "weather", "schema": schema(), "strict": false}})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "weather");

    let anthropic_body = |thinking: bool, request: &ModelRequest| {
        let mut config = json!({"kind": "anthropic", "model": "claude-x", "maxTokens": 4096});
        if thinking {
            config["thinking"] = json!({"budgetTokens": 1024});
        }
        let ProviderKind::Anthropic(settings) = provider(config) else {
            unreachable!()
        };
        anthropic::request_body(&settings, request)
    };
    let response_tool = |body: &Value| {
        let tools = body["tools"].as_array().cloned().unwrap_or_default();
        tools.into_iter().find(|t| t["name"] == "lectern_response")
    };
    let body = anthropic_body(false, &alone);
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    assert_eq!(response_tool(&body).unwrap()["input_schema"], schema());
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "lectern_response", "disable_parallel_tool_use": true})
    );
    let body = anthropic_body(false, &with_tools);
    assert_eq!(body["tools"][0]["name"], "weather");
    assert!(response_tool(&body).is_some());
    assert_eq!(
        body["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
    let body = anthropic_body(true, &with_tools);
    assert_eq!(
        body["output_config"],
        json!({"format": {"type": "json_schema", "schema": schema()}})
    );
    assert!(response_tool(&body).is_none() && body.get("tool_choice").is_none());
}

fn fixture(file: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/anthropic/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn anthropic_transport(stream: bool) -> (Rc<dyn Model>, ReplayTransport) {
    let config = json!({"kind": "anthropic", "model": "claude-x", "apiKey": "k", "stream": stream});
    let transport = ReplayTransport::new();
    let model = provider_for(
        &provider(config),
        Rc::new(transport.clone()),
        Rc::new(ManualClock::new(0.0)),
    )
    .unwrap();
    (model, transport)
}

#[test]
fn an_anthropic_turn_answers_through_the_response_tool_streamed_and_whole() {
    // Streamed, with the weather tool offered (tool_choice any): the answer is data, no tool ran.
    let (model, transport) = anthropic_transport(true);
    transport.push(RecordedResponse::ok_chunks(
        "text/event-stream",
        [fixture("13-response-tool.sse")],
    ));
    let (world, runs) = agent_over(model, AgentConfig::default());
    let result = world.send_with(ASK, &structured()).unwrap();
    assert_eq!(result.data, Some(json!({"city": "Tromsø", "temperatureC": -4})));
    assert!(result.tool_calls.is_empty() && runs.get() == 0);
    assert_eq!(transport.request_bodies()[0]["tool_choice"]["type"], "any");

    // Whole: a wrong answer, then the corrected one.
    let message = |input: Value| {
        json!({"type": "message", "role": "assistant", "stop_reason": "tool_use",
               "usage": {"input_tokens": 50, "output_tokens": 9},
               "content": [{"type": "tool_use", "id": "toolu_1", "name": "lectern_response", "input": input}]})
        .to_string()
    };
    let (model, transport) = anthropic_transport(false);
    for input in [
        json!({"city": "Tromsø"}),
        json!({"city": "Tromsø", "temperatureC": -4.5}),
    ] {
        transport.push(RecordedResponse::ok_chunks(
            "application/json",
            [message(input).into_bytes()],
        ));
    }
    let (world, _) = agent_over(model, AgentConfig::default());
    let result = world.send_with(ASK, &structured()).unwrap();
    assert_eq!(result.data.unwrap()["temperatureC"], -4.5);
    let bodies = transport.request_bodies();
    assert_eq!(bodies.len(), 2);
    let last_turns = &bodies[1]["messages"].as_array().unwrap()[1..];
    assert_eq!(last_turns[0]["content"][0]["text"], r#"{"city":"Tromsø"}"#);
    assert!(last_turns[1]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("temperatureC: is required"));
    assert_eq!(
        bodies[1]["tool_choice"],
        json!({"type": "tool", "name": "lectern_response", "disable_parallel_tool_use": true})
    );
}
