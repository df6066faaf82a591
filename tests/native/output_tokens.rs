//! The answer's token limit and the model's window: `maxOutputTokens` from
//! `send`, the persona and the model profile (in that order) reaches both wire
//! formats, and `modelProfile.contextLength` bounds each request, counting the
//! system message, tool definitions and the room kept for the answer.

use futures::future::LocalBoxFuture;
use lectern::agent::{validate_config, AgentConfig, ModelProfile, Persona, SendOptions};
use lectern::events::EventKind;
use lectern::provider::anthropic::AnthropicSettings;
use lectern::provider::openai::OpenAiSettings;
use lectern::provider::scripted::ScriptedTurn;
use lectern::provider::{ModelRequest, ProviderConfig};
use lectern::runtime::time::ManualClock;
use lectern::tool::{FnTool, ToolRegistry, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::TestAgent;

/// The requests of one turn per `sends` entry (its `maxOutputTokens`), and
/// the events of them all.
fn run(
    config: AgentConfig,
    tools: usize,
    sends: &[(&str, Option<u32>)],
) -> (Vec<ModelRequest>, Vec<EventKind>) {
    let turns = sends.iter().map(|_| ScriptedTurn::text("ok")).collect();
    let mut builder = TestAgent::builder(turns)
        .config(config)
        .clock(ManualClock::new(1.0e12));
    for n in 0..tools {
        let tool = FnTool::new(
            &format!("tool_{n}"),
            &"A tool with a long description. ".repeat(10),
            json!({ "type": "object", "properties": { "query": { "type": "string" } } }),
            |_, _| Box::pin(async { Ok(json!("done")) }) as LocalBoxFuture<'static, ToolResult>,
        );
        builder = builder.tool(tool);
    }
    let h = builder.build();
    for (text, max) in sends {
        let mut options = SendOptions::default();
        options.overrides.max_output_tokens = *max;
        h.send_with(text, &options).unwrap();
    }
    (h.model.requests(), h.events())
}

fn layered(persona: Option<u32>, profile: Option<u32>) -> AgentConfig {
    AgentConfig {
        persona: Persona {
            max_output_tokens: persona,
            ..Persona::default()
        },
        model_profile: ModelProfile {
            max_output_tokens: profile,
            ..ModelProfile::default()
        },
        ..AgentConfig::default()
    }
}

fn sent_max(config: AgentConfig, send: Option<u32>) -> Option<u32> {
    run(config, 0, &[("hi", send)]).0[0].max_tokens
}

#[test]
fn send_wins_over_persona_over_model_profile() {
    assert_eq!(sent_max(layered(Some(300), Some(200)), Some(100)), Some(100));
    assert_eq!(sent_max(layered(Some(300), Some(200)), None), Some(300));
    assert_eq!(sent_max(layered(None, Some(200)), None), Some(200));
    assert_eq!(sent_max(layered(None, None), None), None);
}

fn openai(max_tokens: Option<u32>) -> OpenAiSettings {
    serde_json::from_value(
        json!({ "baseUrl": "http://127.0.0.1:8080/v1", "model": "m", "maxTokens": max_tokens }),
    )
    .unwrap()
}

fn anthropic(max_tokens: Option<u32>) -> AnthropicSettings {
    let mut settings = json!({ "apiKey": "k", "model": "claude" });
    if let Some(n) = max_tokens {
        settings["maxTokens"] = json!(n);
    }
    serde_json::from_value(settings).unwrap()
}

fn with_max(max_tokens: Option<u32>) -> ModelRequest {
    ModelRequest {
        max_tokens,
        ..ModelRequest::default()
    }
}

#[test]
fn the_request_limit_wins_over_the_provider_setting_and_its_default_in_both_formats() {
    let field = |body: Value| body.get("max_tokens").cloned();
    let oa = |setting, request| {
        field(lectern::provider::openai::request_body(
            &openai(setting),
            &with_max(request),
        ))
    };
    assert_eq!(oa(Some(900), Some(100)), Some(json!(100)));
    assert_eq!(oa(Some(900), None), Some(json!(900)));
    assert_eq!(oa(None, None), None, "unset for OpenAI-compatible servers");
    let an = |setting, request| {
        field(lectern::provider::anthropic::request_body(
            &anthropic(setting),
            &with_max(request),
        ))
    };
    assert_eq!(an(Some(900), Some(100)), Some(json!(100)));
    assert_eq!(an(Some(900), None), Some(json!(900)));
    assert_eq!(
        an(None, None),
        Some(json!(4096)),
        "Anthropic requires it: 4,096 by default"
    );
}

fn windowed(context_length: usize, max_output: Option<u32>) -> AgentConfig {
    AgentConfig {
        model_profile: ModelProfile {
            context_length: Some(context_length),
            max_output_tokens: max_output,
            ..ModelProfile::default()
        },
        ..AgentConfig::default()
    }
}

/// Four sends of 200 tokens each; how many messages the last request carries.
fn last_window(config: AgentConfig, tools: usize) -> (usize, Vec<EventKind>) {
    let long = "word ".repeat(200);
    let sends: Vec<(&str, Option<u32>)> = (0..4).map(|_| (long.as_str(), None)).collect();
    let (requests, events) = run(config, tools, &sends);
    (requests.last().unwrap().messages.len(), events)
}

#[test]
fn context_length_leaves_room_for_the_answer_and_counts_tool_definitions() {
    // 7 messages in the last request with no bound at all.
    assert_eq!(last_window(AgentConfig::default(), 0).0, 7);
    let (roomy, _) = last_window(windowed(2_000, Some(100)), 0);
    assert_eq!(roomy, 7);
    let (reserved, _) = last_window(windowed(2_000, Some(1_500)), 0);
    let (tooled, _) = last_window(windowed(2_000, Some(100)), 12);
    assert!(reserved < roomy, "{reserved} < {roomy}");
    assert!(
        tooled < roomy,
        "tool definitions take room too: {tooled} < {roomy}"
    );
    // No maxOutputTokens: a quarter of the window is kept for the answer.
    let (quarter, _) = last_window(windowed(1_100, None), 0);
    let (none_kept, _) = last_window(windowed(1_100, Some(1)), 0);
    assert!(quarter < none_kept, "{quarter} < {none_kept}");
}

#[test]
fn a_request_past_the_window_is_sent_with_the_latest_message_and_a_warning() {
    let (messages, events) = last_window(windowed(300, Some(100)), 0);
    assert_eq!(messages, 1);
    let warnings: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            EventKind::Warning { code, message } if code == "contextOverflow" => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 4, "one per model call");
    assert!(
        warnings[0].contains("modelProfile.contextLength is 300"),
        "{}",
        warnings[0]
    );
    let (_, quiet) = last_window(windowed(100_000, Some(100)), 0);
    assert!(!quiet.iter().any(|e| matches!(e, EventKind::Warning { .. })));
}

#[test]
fn validate_config_checks_max_output_tokens() {
    let provider: ProviderConfig =
        serde_json::from_value(json!({"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"}))
            .unwrap();
    let errors = |config: AgentConfig| validate_config(&provider, &config, &ToolRegistry::new()).errors;
    assert_eq!(
        errors(layered(Some(0), None)),
        ["persona.maxOutputTokens must be at least 1"]
    );
    let mut too_big = windowed(2_048, Some(4_096));
    too_big.persona.max_output_tokens = Some(1_000);
    assert_eq!(
        errors(too_big),
        ["modelProfile.maxOutputTokens (4096) must be less than modelProfile.contextLength (2048)"]
    );
    assert!(errors(windowed(2_048, Some(512))).is_empty());
}
