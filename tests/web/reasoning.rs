//! Reasoning through the JS API in headless Chromium: an Anthropic provider
//! with thinking and a tool, driven by `stream()`; the second request the mock
//! server recorded sends the signed thinking back first; `reasoningDelta`
//! events and `messages()` show it only with `showThinking`.

use crate::support::web;

use js_sys::Function;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{conversation, json as to_json, open_with, register, resolve, tool, MockSession};

fn anthropic(session: &MockSession) -> Value {
    json!({
        "kind": "anthropic", "baseUrl": session.base_url(), "model": "claude-x", "apiKey": "k",
        "maxTokens": 4096, "temperature": 0.5, "thinking": { "budgetTokens": 1024 }
    })
}

async fn script(session: &MockSession) {
    session
        .script(json!([
            {
                "reasoning": "Oslo weather needs the tool.", "signature": "sig-oslo", "redacted": "opaque-1",
                "text": "Checking.", "toolCalls": [{ "id": "toolu_1", "name": "weather", "arguments": { "city": "Oslo" } }]
            },
            { "reasoning": "It said grey.", "signature": "sig-2", "text": "Grey skies." }
        ]))
        .await;
}

/// Every event of a `stream()` turn, as JSON.
async fn stream_events(lectern: &lectern::wasm::Lectern, id: &str) -> Vec<Value> {
    let iterable = lectern
        .stream(id.into(), "Weather in Oslo?".into(), None)
        .expect("streams");
    let collect = Function::new_with_args(
        "iterable",
        "return (async () => { const out = []; for await (const ev of iterable) out.push(ev); return out; })();",
    );
    let promise: js_sys::Promise = collect.call1(&JsValue::NULL, &iterable).unwrap().unchecked_into();
    to_json(&resolve(promise).await).as_array().unwrap().clone()
}

fn reasoning_text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "reasoningDelta")
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn anthropic_thinking_with_a_tool_goes_back_signed_and_first() {
    let session = MockSession::new();
    script(&session).await;
    let opened = open_with(json!({ "provider": anthropic(&session), "showThinking": true })).await;
    register(
        &opened,
        tool("weather", json!({"type": "object"}), "return 'grey';", json!({})),
    );
    let id = conversation(&opened).await;
    let events = stream_events(&opened.lectern, &id).await;
    assert_eq!(events.last().unwrap()["type"], "finish", "{events:?}");
    assert_eq!(
        reasoning_text(&events),
        "Oslo weather needs the tool.It said grey."
    );

    let requests = session.requests().await;
    assert_eq!(requests.len(), 2);
    let body = &requests[1]["body"];
    assert_eq!(
        body["thinking"],
        json!({ "type": "enabled", "budget_tokens": 1024 })
    );
    assert!(body.get("temperature").is_none(), "no temperature with thinking");
    let ask = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("the tool-call turn");
    assert_eq!(
        ask["content"],
        json!([
            { "type": "thinking", "thinking": "Oslo weather needs the tool.", "signature": "sig-oslo" },
            { "type": "redacted_thinking", "data": "opaque-1" },
            { "type": "text", "text": "Checking." },
            { "type": "tool_use", "id": "toolu_1", "name": "weather", "input": { "city": "Oslo" } }
        ])
    );

    let messages = to_json(&resolve(opened.lectern.messages(id.into())).await);
    let reasoning: Vec<Value> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.get("reasoning").cloned().unwrap_or(Value::Null))
        .collect();
    assert_eq!(reasoning[1][0]["signature"], "sig-oslo");
    assert_eq!(
        reasoning[3],
        json!([{ "text": "It said grey.", "signature": "sig-2" }])
    );
}

#[wasm_bindgen_test]
async fn without_show_thinking_no_reasoning_is_shown() {
    let session = MockSession::new();
    script(&session).await;
    let opened = open_with(json!({ "provider": anthropic(&session) })).await;
    register(
        &opened,
        tool("weather", json!({"type": "object"}), "return 'grey';", json!({})),
    );
    let id = conversation(&opened).await;
    let events = stream_events(&opened.lectern, &id).await;
    assert_eq!(events.last().unwrap()["type"], "finish", "{events:?}");
    assert_eq!(reasoning_text(&events), "");
    let messages = to_json(&resolve(opened.lectern.messages(id.into())).await);
    assert!(!messages.to_string().contains("reasoning"), "{messages}");
    // It is still sent back, as the API requires.
    let body = &session.requests().await[1]["body"];
    assert!(body.to_string().contains("sig-oslo"));
}
