//! Recorded provider streams (written from the OpenAI and Anthropic documented
//! wire formats, in `tests/fixtures/`) replayed through the real providers in
//! several chunkings, asserting the decoded answer and the request sent.

use std::rc::Rc;

use futures::executor::block_on;
use lectern::domain::{Message, Role, ToolDefinition, Usage};
use lectern::http::{RecordedResponse, ReplayTransport};
use lectern::provider::{
    accumulate, provider_for, FinishReason, ModelRequest, ModelResponse, ProviderConfig,
};
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use serde_json::{json, Value};

/// What a fixture must decode to.
struct Expect {
    file: &'static str,
    text: &'static str,
    calls: &'static [(&'static str, &'static str, &'static str)],
    finish: Option<FinishReason>,
    usage: Option<(u64, u64, u64)>,
    error: Option<&'static str>,
}

const fn ok(file: &'static str, text: &'static str, finish: FinishReason) -> Expect {
    Expect {
        file,
        text,
        calls: &[],
        finish: Some(finish),
        usage: None,
        error: None,
    }
}

fn fixture(provider: &str, file: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{provider}/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn request() -> ModelRequest {
    ModelRequest {
        system: Some("Be brief.".into()),
        messages: vec![Message::new(
            "m1".into(),
            "c",
            Role::User,
            "What's the weather?",
            0.0,
        )],
        tools: vec![ToolDefinition {
            name: "get_weather".into(),
            description: "Current weather".into(),
            parameters: json!({"type": "object", "properties": {"location": {"type": "string"}}}),
        }],
        ..Default::default()
    }
}

/// Replays `bytes` in chunks of `size` through the provider `config` describes.
fn replay(
    config: &Value,
    bytes: &[u8],
    size: usize,
) -> (Result<ModelResponse, lectern::Error>, ReplayTransport) {
    let config: ProviderConfig = serde_json::from_value(config.clone()).unwrap();
    let transport = ReplayTransport::new();
    transport.push(RecordedResponse::ok_chunks(
        "text/event-stream",
        bytes.chunks(size).map(<[u8]>::to_vec),
    ));
    let model = provider_for(
        &config.kind,
        Rc::new(transport.clone()),
        Rc::new(ManualClock::new(0.0)),
    )
    .unwrap();
    let result = block_on(async {
        let parts = model.stream(&request(), &CancelToken::new()).await?;
        accumulate(parts).await
    });
    (result, transport)
}

fn check(provider: &str, config: Value, cases: &[Expect]) -> Vec<lectern::http::HttpRequest> {
    let mut sent = Vec::new();
    for case in cases {
        let bytes = fixture(provider, case.file);
        for size in [bytes.len(), 1, 7, 64, 1460] {
            let context = format!("{provider}/{} in {size}-byte chunks", case.file);
            let (result, transport) = replay(&config, &bytes, size);
            sent.extend(transport.requests());
            match (result, case.error) {
                (Err(error), Some(kind)) => assert_eq!(error.name(), kind, "{context}: {error}"),
                (Ok(response), None) => {
                    assert_eq!(response.text, case.text, "{context}");
                    let calls: Vec<(&str, &str, &str)> = response
                        .tool_calls
                        .iter()
                        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
                        .collect();
                    assert_eq!(calls, case.calls, "{context}");
                    for (_, _, args) in case.calls {
                        serde_json::from_str::<Value>(args).unwrap_or_else(|e| panic!("{context}: {e}"));
                    }
                    assert_eq!(response.finish_reason, case.finish, "{context}");
                    let usage = response
                        .usage
                        .map(|u: Usage| (u.input_tokens, u.output_tokens, u.cached_input_tokens));
                    assert_eq!(usage, case.usage, "{context}");
                }
                (other, _) => panic!("{context}: unexpected {other:?}"),
            }
        }
    }
    sent
}

#[test]
fn openai_recorded_streams() {
    let config = json!({"kind": "openai", "baseUrl": "https://api.openai.com/v1", "model": "gpt-4o-mini",
                        "apiKey": "sk-x", "headers": {"OpenAI-Organization": "org-1"}, "toolChoice": "auto"});
    let sent = check(
        "openai",
        config,
        &[
            ok("01-text.sse", "The capital is Paris.", FinishReason::Stop),
            Expect {
                usage: Some((19, 3, 0)),
                ..ok("02-usage-final-chunk.sse", "Hi!", FinishReason::Stop)
            },
            Expect {
                calls: &[
                    (
                        "call_abc",
                        "get_weather",
                        r#"{"location":"Boston, MA","unit":"celsius"}"#,
                    ),
                    ("call_def", "get_time", r#"{"tz":"EST"}"#),
                ],
                usage: Some((82, 41, 0)),
                ..ok("03-parallel-tool-calls.sse", "", FinishReason::ToolCalls)
            },
            Expect {
                calls: &[("call_1", "search_book", r#"{"query":"Gabriel Syme"}"#)],
                ..ok("04-one-character-arguments.sse", "", FinishReason::ToolCalls)
            },
            ok("05-multibyte.sse", "Café — 日本語 😀 ✓", FinishReason::Stop),
            ok("06-empty-deltas.sse", "ok", FinishReason::Stop),
            Expect {
                usage: Some((10, 4, 0)),
                ..ok("07-finish-length.sse", "Once upon a", FinishReason::Length)
            },
            ok("08-content-filter.sse", "", FinishReason::ContentFilter),
            ok(
                "09-crlf-and-comments.sse",
                "line one\nline two",
                FinishReason::Stop,
            ),
            Expect {
                calls: &[("call_7", "lookup", r#"{"id":42}"#)],
                ..ok(
                    "10-text-then-tool.sse",
                    "Let me check that.",
                    FinishReason::ToolCalls,
                )
            },
            Expect {
                error: Some("ProtocolError"),
                ..ok("11-mid-stream-error.sse", "", FinishReason::Stop)
            },
            ok("12-no-done-after-finish.sse", "Ollama style", FinishReason::Stop),
            Expect {
                usage: Some((2048, 2, 1920)),
                ..ok("13-cached-usage.sse", "Cached.", FinishReason::Stop)
            },
        ],
    );
    let first = &sent[0];
    assert_eq!(first.url, "https://api.openai.com/v1/chat/completions");
    assert!(first
        .headers
        .contains(&("authorization".into(), "Bearer sk-x".into())));
    assert!(first
        .headers
        .contains(&("OpenAI-Organization".into(), "org-1".into())));
    let body: Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "gpt-4o-mini",
            "temperature": 0.7,
            "max_completion_tokens": 2048,
            "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What's the weather?"}],
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                       "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}}}],
            "tool_choice": "auto",
            "stream": true,
            "stream_options": {"include_usage": true}
        })
    );
}

#[test]
fn anthropic_recorded_streams() {
    let config =
        json!({"kind": "anthropic", "model": "claude-sonnet-4-5", "apiKey": "sk-ant-x", "maxTokens": 1024});
    let sent = check(
        "anthropic",
        config,
        &[
            Expect {
                usage: Some((25, 15, 0)),
                ..ok("01-text.sse", "Hello!", FinishReason::Stop)
            },
            Expect {
                calls: &[(
                    "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                    "get_weather",
                    r#"{"location": "San Francisco, CA", "unit": "fahrenheit"}"#,
                )],
                usage: Some((472, 89, 0)),
                ..ok(
                    "02-tool-use.sse",
                    "Okay, let's check the weather.",
                    FinishReason::ToolCalls,
                )
            },
            Expect {
                calls: &[
                    ("toolu_a", "get_weather", r#"{"city":"Oslo"}"#),
                    ("toolu_b", "get_time", "{}"),
                ],
                usage: Some((300, 40, 0)),
                ..ok("03-parallel-tool-use.sse", "", FinishReason::ToolCalls)
            },
            Expect {
                calls: &[("toolu_c", "search_book", r#"{"query":"Sunday"}"#)],
                usage: Some((25, 20, 0)),
                ..ok("04-one-character-json.sse", "", FinishReason::ToolCalls)
            },
            Expect {
                usage: Some((25, 9, 0)),
                ..ok("05-multibyte.sse", "Ça va — 大丈夫 🙂", FinishReason::Stop)
            },
            Expect {
                usage: Some((25, 1, 0)),
                ..ok("06-many-pings.sse", "pong", FinishReason::Stop)
            },
            Expect {
                error: Some("ApiError"),
                ..ok("07-overloaded-error.sse", "", FinishReason::Stop)
            },
            Expect {
                usage: Some((25, 5, 0)),
                ..ok("08-max-tokens.sse", "It was a dark and", FinishReason::Length)
            },
            Expect {
                usage: Some((25, 6, 0)),
                ..ok("09-stop-sequence.sse", "A, B, C", FinishReason::Stop)
            },
            Expect {
                usage: Some((3512, 4, 3000)),
                ..ok("10-cache-usage.sse", "From cache.", FinishReason::Stop)
            },
            Expect {
                usage: Some((25, 30, 0)),
                ..ok("11-thinking-then-text.sse", "42.", FinishReason::Stop)
            },
            Expect {
                usage: Some((25, 1, 0)),
                ..ok("12-crlf.sse", "windows", FinishReason::Stop)
            },
            // Structured output: the reserved tool's input is the answer, never a call.
            Expect {
                usage: Some((610, 41, 0)),
                ..ok(
                    "13-response-tool.sse",
                    r#"{"city": "Tromsø", "temperatureC": -4}"#,
                    FinishReason::Stop,
                )
            },
        ],
    );
    let first = &sent[0];
    assert_eq!(first.url, "https://api.anthropic.com/v1/messages");
    for header in [
        ("x-api-key", "sk-ant-x"),
        ("anthropic-version", "2023-06-01"),
        ("anthropic-dangerous-direct-browser-access", "true"),
    ] {
        assert!(
            first.headers.contains(&(header.0.into(), header.1.into())),
            "{header:?}"
        );
    }
    let body: Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "temperature": 0.7,
            "system": "Be brief.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "What's the weather?"}]}],
            "tools": [{"name": "get_weather", "description": "Current weather",
                       "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}}}],
            "stream": true
        })
    );
}

#[test]
fn every_fixture_is_covered() {
    for (provider, expected) in [("openai", 13), ("anthropic", 13)] {
        let dir = format!("{}/tests/fixtures/{provider}", env!("CARGO_MANIFEST_DIR"));
        let count = std::fs::read_dir(dir).unwrap().count();
        assert_eq!(
            count, expected,
            "{provider}: a new fixture needs an expectation above"
        );
    }
}
