//! One chat turn end to end, natively: OpenAI wire format replayed through the
//! fixture transport, memory store, manual clock.

use std::rc::Rc;

use lectern::agent::{AgentConfig, Persona, SendOptions, TurnError, TurnResult};
use lectern::domain::{NewConversation, Role};
use lectern::events::{EventKind, EventSink};
use lectern::http::{RecordedResponse, ReplayTransport};
use lectern::provider::{provider_for, with_policy, Model, PriceTable, ProviderConfig};
use lectern::runtime::time::ManualClock;
use lectern::storage::{MemoryStore, Store};

use crate::support::harness::{Builder, EventLog, TestAgent, START_MS};

fn sse(chunks: &[&str]) -> Vec<String> {
    chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
}

fn text_stream(words: &[&str]) -> RecordedResponse {
    let mut chunks: Vec<String> = words
        .iter()
        .map(|w| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"choices":[{"index":0,"delta":{"content":w}}]})
            )
        })
        .collect();
    chunks.extend(sse(&[
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#,
        "[DONE]",
    ]));
    RecordedResponse::ok_chunks("text/event-stream", chunks)
}

/// The agent under test (no conversation yet) and the transport its provider replays.
type Harness = (TestAgent<MemoryStore, dyn Model>, ReplayTransport);

fn harness(stream: bool) -> Harness {
    harness_with(serde_json::json!({
        "kind": "openai",
        "baseUrl": "http://mock.test/v1/",
        "model": "gpt-4o-mini",
        "apiKey": "sk-test",
        "stream": stream,
        "headers": { "x-extra": "1" },
        "maxRetries": 0
    }))
}

/// Asserts the conversation's stored messages, role and content, in order.
async fn assert_stored(h: &TestAgent<MemoryStore, dyn Model>, conversation: &str, expected: &[(Role, &str)]) {
    let messages = h.store.messages(conversation).await.unwrap();
    let stored: Vec<(Role, &str)> = messages.iter().map(|m| (m.role, m.content.as_str())).collect();
    assert_eq!(stored, expected);
}

/// Asserts that request `index` sent the system prompt and the user's "Hello", nothing else.
fn assert_sent_hello(transport: &ReplayTransport, index: usize) {
    assert_eq!(
        transport.request_bodies()[index]["messages"],
        serde_json::json!([
            {"role": "system", "content": "You are a test."},
            {"role": "user", "content": "Hello"}
        ])
    );
}

/// An agent over the provider `provider` (JSON, as a host passes it) on a
/// replay transport, with a test system prompt and the provider's prices.
fn harness_with(provider: serde_json::Value) -> Harness {
    let config: ProviderConfig = serde_json::from_value(provider).unwrap();
    config.validate().unwrap();
    let transport = ReplayTransport::new();
    let clock = ManualClock::new(START_MS);
    let inner = provider_for(&config.kind, Rc::new(transport.clone()), Rc::new(clock.clone())).unwrap();
    let h = Builder::over(with_policy(&config, inner, Rc::new(clock.clone())))
        .clock(clock)
        .config(AgentConfig {
            persona: Persona {
                system_prompt: Some("You are a test.".into()),
                ..Persona::default()
            },
            prices: PriceTable::new(config.prices.clone()),
            ..AgentConfig::default()
        })
        .without_conversation()
        .build();
    (h, transport)
}

async fn send(
    h: &TestAgent<MemoryStore, dyn Model>,
    conversation: &str,
    text: &str,
    sink: &EventSink,
) -> Result<TurnResult, TurnError> {
    h.agent
        .send(conversation, text, &SendOptions::default(), sink)
        .await
}

#[test]
fn streamed_reply_is_delivered_in_order_and_persisted() {
    futures::executor::block_on(async {
        let (h, transport) = harness(true);
        transport.push(text_stream(&["Hel", "lo", " there"]));
        let conv = h
            .agent
            .create_conversation(NewConversation {
                title: Some("First".into()),
                book_id: None,
            })
            .await
            .unwrap();
        let seen = EventLog::default();
        let sink = seen.sink();

        let reply = send(&h, &conv.id, "Hello", &sink).await.unwrap();

        assert_eq!(reply.text, "Hello there");
        assert_eq!(
            (reply.usage.input_tokens, reply.usage.output_tokens, reply.steps),
            (12, 3, 1)
        );
        let deltas: Vec<String> = seen
            .kinds()
            .iter()
            .filter_map(|k| match k {
                EventKind::TextDelta { text } => Some(text.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, ["Hel", "lo", " there"]);
        assert!(seen
            .kinds()
            .iter()
            .any(|k| matches!(k, EventKind::TokenUsage { input_tokens: 12, .. })));

        assert_stored(
            &h,
            &conv.id,
            &[(Role::User, "Hello"), (Role::Assistant, "Hello there")],
        )
        .await;

        let requests = transport.requests();
        assert_eq!(requests[0].url, "http://mock.test/v1/chat/completions");
        assert!(requests[0]
            .headers
            .contains(&("authorization".into(), "Bearer sk-test".into())));
        assert!(requests[0].headers.contains(&("x-extra".into(), "1".into())));
        let body = &transport.request_bodies()[0];
        assert_eq!(body["model"], "gpt-4o-mini");
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_sent_hello(&transport, 0);
    });
}

#[test]
fn next_turn_replays_the_history() {
    futures::executor::block_on(async {
        let (h, transport) = harness(false);
        transport.push(RecordedResponse::status(
            200,
            r#"{"choices":[{"message":{"role":"assistant","content":"One."},"finish_reason":"stop"}]}"#,
        ));
        transport.push(RecordedResponse::status(
            200,
            r#"{"choices":[{"message":{"role":"assistant","content":"Two."},"finish_reason":"stop"}]}"#,
        ));
        let conv = h
            .agent
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        send(&h, &conv.id, "first", &EventSink::none()).await.unwrap();
        let reply = send(&h, &conv.id, "second", &EventSink::none()).await.unwrap();
        assert_eq!(reply.text, "Two.");
        let body = &transport.request_bodies()[1];
        let roles: Vec<&str> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        assert!(body.get("stream").is_none());
    });
}

#[test]
fn unknown_conversation_is_not_found_and_writes_nothing() {
    futures::executor::block_on(async {
        let (h, transport) = harness(true);
        let err = send(&h, "missing", "Hello", &EventSink::none())
            .await
            .unwrap_err()
            .error;
        assert_eq!(err.name(), "NotFoundError");
        assert!(transport.requests().is_empty());
        assert!(h.store.conversations().await.unwrap().is_empty());
    });
}

#[test]
fn provider_failure_keeps_the_user_message_and_writes_no_answer() {
    futures::executor::block_on(async {
        let (h, transport) = harness(true);
        transport.push(RecordedResponse::status(429, "{}").with_header("retry-after", "1"));
        let conv = h
            .agent
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        let seen = EventLog::default();
        let sink = seen.sink();
        let err = send(&h, &conv.id, "Hello", &sink).await.unwrap_err().error;
        assert_eq!(err.name(), "RateLimitError");
        let roles: Vec<Role> = h
            .store
            .messages(&conv.id)
            .await
            .unwrap()
            .iter()
            .map(|m| m.role)
            .collect();
        assert_eq!(roles, [Role::User]);
        assert!(
            matches!(&seen.kinds()[..], [EventKind::StepStart { step: 1 }, EventKind::Error { name, .. }] if name == "RateLimitError")
        );
    });
}

#[test]
fn stream_cut_off_mid_answer_is_a_connection_error_with_no_answer_persisted() {
    futures::executor::block_on(async {
        let (h, transport) = harness(true);
        let mut cut = text_stream(&["partial"]);
        cut.chunks.truncate(1);
        cut.drop_after_chunks = true;
        transport.push(cut);
        let conv = h
            .agent
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        let failure = send(&h, &conv.id, "Hello", &EventSink::none()).await.unwrap_err();
        assert_eq!(failure.error.name(), "ConnectionError");
        assert_eq!(
            failure.partial_text.as_deref(),
            Some("partial"),
            "what was shown is reported"
        );
        assert_eq!(failure.steps, 1);
        assert_eq!(h.store.messages(&conv.id).await.unwrap().len(), 1);
    });
}

#[test]
fn unknown_tools_are_answered_to_the_model_which_then_replies() {
    futures::executor::block_on(async {
        let (h, transport) = harness(true);
        transport.push(RecordedResponse::ok_chunks(
            "text/event-stream",
            sse(&[
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"lookup","arguments":"{\"q\":"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}"#,
                r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
                "[DONE]",
            ]),
        ));
        transport.push(text_stream(&["I cannot look that up."]));
        let conv = h
            .agent
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        let reply = send(&h, &conv.id, "Look it up", &EventSink::none())
            .await
            .unwrap();
        assert_eq!(reply.text, "I cannot look that up.");
        assert_eq!(reply.steps, 2);
        assert_eq!(reply.tool_calls[0].error.as_deref(), Some("Unknown tool: lookup"));
        let second = &transport.request_bodies()[1]["messages"];
        assert_eq!(second[2]["tool_calls"][0]["function"]["arguments"], "{\"q\":1}");
        assert_eq!(
            second[3],
            serde_json::json!({"role":"tool","tool_call_id":"call_1","content":"{\"error\":\"Unknown tool: lookup\"}"})
        );
        let roles: Vec<Role> = h
            .store
            .messages(&conv.id)
            .await
            .unwrap()
            .iter()
            .map(|m| m.role)
            .collect();
        assert_eq!(
            roles,
            [Role::User, Role::Assistant, Role::ToolResult, Role::Assistant]
        );
    });
}

#[test]
fn empty_message_is_a_config_error_before_anything_is_written() {
    futures::executor::block_on(async {
        let (h, _) = harness(true);
        let conv = h
            .agent
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        let err = send(&h, &conv.id, "   ", &EventSink::none())
            .await
            .unwrap_err()
            .error;
        assert_eq!(err.name(), "ConfigError");
        assert!(h.store.messages(&conv.id).await.unwrap().is_empty());
    });
}

#[test]
fn retry_reruns_the_trailing_user_message_without_storing_it_again() {
    futures::executor::block_on(async {
        let (h, transport) = harness(true);
        transport.push(RecordedResponse::status(
            401,
            r#"{"error":{"message":"bad key"}}"#,
        ));
        transport.push(text_stream(&["Second", " try"]));
        let conv = h
            .agent
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        send(&h, &conv.id, "Hello", &EventSink::none()).await.unwrap_err();
        let seen = EventLog::default();
        let sink = seen.sink();

        let reply = h
            .agent
            .retry(&conv.id, &SendOptions::default(), &sink)
            .await
            .unwrap();

        assert_eq!(reply.text, "Second try");
        assert!(seen
            .kinds()
            .iter()
            .any(|k| matches!(k, EventKind::TextDelta { text } if text == "Second")));
        assert_stored(
            &h,
            &conv.id,
            &[(Role::User, "Hello"), (Role::Assistant, "Second try")],
        )
        .await;
        assert_sent_hello(&transport, 1);
    });
}

#[test]
fn retry_without_a_trailing_user_message_is_a_config_error_and_writes_nothing() {
    futures::executor::block_on(async {
        let (h, transport) = harness(true);
        transport.push(text_stream(&["Done."]));
        let conv = h
            .agent
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        let empty = h
            .agent
            .retry(&conv.id, &SendOptions::default(), &EventSink::none())
            .await
            .unwrap_err();
        assert_eq!(empty.error.name(), "ConfigError");
        send(&h, &conv.id, "Hello", &EventSink::none()).await.unwrap();

        let answered = h
            .agent
            .retry(&conv.id, &SendOptions::default(), &EventSink::none())
            .await
            .unwrap_err();

        assert_eq!(answered.error.name(), "ConfigError");
        assert!(answered.error.to_string().contains("not a user message"));
        assert_eq!(h.store.messages(&conv.id).await.unwrap().len(), 2);
        assert_eq!(transport.requests().len(), 1);
    });
}

/// `send(…, { model })`: the turn asks that model (the configured one
/// unchanged for the next turn), its usage is priced as that model's, and
/// the egress ledger names it.
#[test]
fn a_turn_may_ask_another_model_and_is_priced_as_that_model() {
    futures::executor::block_on(async {
        let (h, transport) = harness_with(serde_json::json!({
            "kind": "openai",
            "baseUrl": "http://mock.test/v1/",
            "model": "gpt-4o-mini",
            "maxRetries": 0,
            "prices": {
                "gpt-4o-mini": { "inputPerMTok": 1.0, "outputPerMTok": 1.0 },
                "gpt-4o": { "inputPerMTok": 1_000_000.0, "outputPerMTok": 1_000_000.0 }
            }
        }));
        transport.push(text_stream(&["big"]));
        transport.push(text_stream(&["small"]));
        let conv = h
            .agent
            .create_conversation(NewConversation {
                title: None,
                book_id: None,
            })
            .await
            .unwrap();
        let mut options = SendOptions::default();
        options.overrides.model = Some("gpt-4o".into());
        let big = h.agent.send(&conv.id, "Hello", &options, h.sink()).await.unwrap();
        let small = send(&h, &conv.id, "Hello again", h.sink()).await.unwrap();
        let bodies = transport.request_bodies();
        assert_eq!(
            (bodies[0]["model"].as_str(), bodies[1]["model"].as_str()),
            (Some("gpt-4o"), Some("gpt-4o-mini"))
        );
        // 12 input and 3 output tokens: $15 at a dollar a token, $0.000015 at a dollar a million.
        assert_eq!(big.usage.cost_usd, Some(15.0));
        assert_eq!(small.usage.cost_usd, Some(0.000015));
        assert_eq!(
            (big.egress[0].model.as_str(), small.egress[0].model.as_str()),
            ("gpt-4o", "gpt-4o-mini")
        );
    });
}

#[test]
fn each_request_says_whether_the_turn_called_tools_already() {
    let runs = Rc::new(std::cell::Cell::new(0));
    let tool = crate::support::harness::tools::counting(
        "lookup",
        "Looks up",
        runs.clone(),
        serde_json::json!("found"),
    );
    let turns = vec![
        lectern::provider::scripted::ScriptedTurn::tools(&[("lookup", "{}")]),
        lectern::provider::scripted::ScriptedTurn::text("Found."),
    ];
    let s = TestAgent::builder(turns).tool(tool).build();
    s.send("look it up").unwrap();
    assert_eq!(runs.get(), 1);
    let called: Vec<bool> = s.model.requests().iter().map(|r| r.tools_called).collect();
    assert_eq!(
        called,
        [false, true],
        "a forced toolChoice relaxes to auto from the second step on"
    );
}
