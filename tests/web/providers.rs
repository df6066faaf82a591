//! Providers over real `fetch` in headless Chromium, against the mock model
//! server: both wire formats streamed, retries honouring Retry-After, typed
//! failures, a dropped stream, abort, timeouts, and a custom JS provider.

use crate::support::web;

use js_sys::{Function, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{js, json as to_json, open, openai_provider, reject, resolve, sleep, MockSession, Opened};

async fn conversation(opened: &Opened) -> String {
    let conv = to_json(&resolve(opened.lectern.create_conversation(None)).await);
    conv["id"].as_str().unwrap().to_owned()
}

async fn send(opened: &Opened, text: &str) -> Result<Value, js_sys::Error> {
    let id = conversation(opened).await;
    let promise = opened.lectern.send(id.into(), text.into(), None);
    match wasm_bindgen_futures::JsFuture::from(promise).await {
        Ok(value) => Ok(to_json(&value)),
        Err(error) => Err(error.dyn_into().expect("rejections are Errors")),
    }
}

fn prop(error: &js_sys::Error, name: &str) -> JsValue {
    Reflect::get(error, &name.into()).unwrap()
}

#[wasm_bindgen_test]
async fn anthropic_streams_through_fetch_with_the_browser_headers() {
    let session = MockSession::new();
    session
        .script(
            json!([{ "text": "Bonjour from Claude.", "usage": { "inputTokens": 30, "outputTokens": 6 } }]),
        )
        .await;
    let provider = json!({ "kind": "anthropic", "baseUrl": session.base_url(), "model": "claude-sonnet-4-5", "apiKey": "sk-ant" });
    let opened = open(None, provider).await;
    let reply = send(&opened, "Say hello").await.expect("reply");
    assert_eq!(reply["text"], "Bonjour from Claude.");
    assert_eq!(reply["usage"]["inputTokens"], 30);
    let cost = reply["usage"]["costUsd"]
        .as_f64()
        .expect("claude-sonnet-4-5 has a list price");
    assert!((cost - (30.0 * 3.0 + 6.0 * 15.0) / 1e6).abs() < 1e-12);
    let deltas = opened
        .events
        .borrow()
        .iter()
        .filter(|e| e["type"] == "textDelta")
        .count();
    assert!(deltas >= 3, "streamed in pieces");
    let sent = &session.requests().await[0];
    assert_eq!(sent["path"], format!("/s/{}/v1/messages", session.name));
    assert_eq!(sent["headers"]["x-api-key"], "sk-ant");
    assert_eq!(sent["headers"]["anthropic-version"], "2023-06-01");
    assert_eq!(
        sent["headers"]["anthropic-dangerous-direct-browser-access"],
        "true"
    );
    assert_eq!(sent["body"]["max_tokens"], 4096);
    assert_eq!(sent["body"]["stream"], true);
    assert!(
        sent["body"]["system"].as_str().unwrap().len() > 10,
        "system prompt goes top-level"
    );
    assert_eq!(
        sent["body"]["messages"],
        json!([{ "role": "user", "content": [{ "type": "text", "text": "Say hello" }] }])
    );
}

#[wasm_bindgen_test]
async fn anthropic_tool_use_is_answered_with_tool_result_blocks() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "toolu_1", "name": "lookup", "arguments": { "q": "Thursday" } }] },
            { "text": "No such tool, sorry." }
        ]))
        .await;
    let provider = json!({ "kind": "anthropic", "baseUrl": session.base_url(), "model": "claude-haiku-4-5", "apiKey": "k" });
    let opened = open(None, provider).await;
    let reply = send(&opened, "Look it up").await.expect("reply");
    assert_eq!(reply["text"], "No such tool, sorry.");
    assert_eq!(reply["toolCalls"][0]["arguments"], json!({ "q": "Thursday" }));
    assert_eq!(reply["toolCalls"][0]["argumentsText"], r#"{"q":"Thursday"}"#);
    let second = &session.requests().await[1]["body"]["messages"];
    assert_eq!(
        second[1]["content"][0],
        json!({ "type": "tool_use", "id": "toolu_1", "name": "lookup", "input": { "q": "Thursday" } })
    );
    assert_eq!(second[2]["role"], "user");
    assert_eq!(second[2]["content"][0]["type"], "tool_result");
    assert_eq!(second[2]["content"][0]["tool_use_id"], "toolu_1");
}

#[wasm_bindgen_test]
async fn rate_limit_with_retry_after_is_retried_once_after_about_a_second() {
    let session = MockSession::new();
    session
        .script(json!([{ "fault": { "status": 429, "retryAfter": 1 } }, { "text": "Worth the wait." }]))
        .await;
    let opened = open(None, openai_provider(&session, json!({}))).await;
    let started = js_sys::Date::now();
    let reply = send(&opened, "Hi").await.expect("reply after one retry");
    let waited = js_sys::Date::now() - started;
    assert_eq!(reply["text"], "Worth the wait.");
    assert_eq!(session.requests().await.len(), 2, "exactly one retry");
    assert!(
        (950.0..5000.0).contains(&waited),
        "waited {waited} ms for Retry-After: 1"
    );
}

#[wasm_bindgen_test]
async fn server_errors_three_times_give_a_typed_error() {
    let session = MockSession::new();
    let fault =
        json!({ "fault": { "status": 500, "body": { "error": { "message": "upstream exploded" } } } });
    session.script(json!([fault, fault, fault])).await;
    let opened = open(
        None,
        openai_provider(
            &session,
            json!({ "retry": { "initialDelayMs": 20, "maxDelayMs": 40 } }),
        ),
    )
    .await;
    let error = send(&opened, "Hi").await.expect_err("fails");
    assert_eq!(String::from(error.name()), "ApiError");
    assert_eq!(prop(&error, "status").as_f64(), Some(500.0));
    assert!(String::from(error.message()).contains("upstream exploded"));
    assert_eq!(session.requests().await.len(), 3, "the first try and two retries");
}

#[wasm_bindgen_test]
async fn a_dropped_stream_is_a_connection_error_with_the_partial_text_and_no_retry() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "one two three four five six", "fault": { "dropAfterChunks": 3 }, "chunkDelayMs": 20 }]))
        .await;
    let opened = open(None, openai_provider(&session, json!({}))).await;
    let error = send(&opened, "Hi").await.expect_err("fails");
    assert_eq!(String::from(error.name()), "ConnectionError");
    assert_eq!(
        prop(&error, "partialText").as_string().as_deref(),
        Some("one two")
    );
    assert_eq!(
        session.requests().await.len(),
        1,
        "no retry after the first streamed byte"
    );
}

#[wasm_bindgen_test]
async fn a_malformed_chunk_is_a_protocol_error_naming_it() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "a b c", "fault": { "malformedAt": 2 } }]))
        .await;
    let opened = open(None, openai_provider(&session, json!({}))).await;
    let error = send(&opened, "Hi").await.expect_err("fails");
    assert_eq!(String::from(error.name()), "ProtocolError");
    assert!(String::from(error.message()).contains("malformed stream chunk"));
}

#[wasm_bindgen_test]
async fn abort_mid_stream_rejects_with_abort_error() {
    let session = MockSession::new();
    let long = "word ".repeat(40);
    session
        .script(json!([{ "text": long, "chunkDelayMs": 50 }]))
        .await;
    let opened = open(None, openai_provider(&session, json!({}))).await;
    let id = conversation(&opened).await;
    let controller = web_sys::AbortController::new().unwrap();
    let options = js(json!({}));
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let pending = wasm_bindgen_futures::JsFuture::from(opened.lectern.send(
        id.into(),
        "Go".into(),
        Some(options.unchecked_into()),
    ));
    let aborter = async {
        sleep(300).await;
        controller.abort();
    };
    let (outcome, ()) = futures::join!(pending, aborter);
    let error: js_sys::Error = outcome.expect_err("aborted").dyn_into().unwrap();
    assert_eq!(String::from(error.name()), "AbortError");
    let partial = prop(&error, "partialText").as_string().unwrap_or_default();
    assert!(
        !partial.is_empty() && partial.len() < long.len(),
        "some text arrived before the abort: {partial:?}"
    );
}

#[wasm_bindgen_test]
async fn first_chunk_timeout_is_a_timeout_error() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "too late", "delayMs": 1500 }]))
        .await;
    let opened = open(
        None,
        openai_provider(&session, json!({ "timeouts": { "firstChunkMs": 300 } })),
    )
    .await;
    let started = js_sys::Date::now();
    let error = send(&opened, "Hi").await.expect_err("times out");
    assert_eq!(String::from(error.name()), "TimeoutError");
    assert_eq!(prop(&error, "afterMs").as_f64(), Some(300.0));
    assert!(
        js_sys::Date::now() - started < 1400.0,
        "gave up before the server answered"
    );
}

#[wasm_bindgen_test]
async fn custom_provider_streams_from_an_async_iterable() {
    let call = Function::new_with_args(
        "request",
        r#"
        globalThis.__lecternCustomRequests = (globalThis.__lecternCustomRequests || []).concat([request]);
        return (async function* () {
          for (const word of ['Hello', ' from', ' WebLLM']) {
            yield { choices: [{ delta: { content: word }, finish_reason: null }] };
          }
          yield { choices: [{ delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3 } };
        })();
        "#,
    );
    let options = js(json!({ "provider": { "kind": "custom", "model": "Llama-3.2-1B" } }));
    let provider = Reflect::get(&options, &"provider".into()).unwrap();
    Reflect::set(&provider, &"call".into(), &call).unwrap();
    let lectern = lectern::wasm::Lectern::connect(options).await.expect("opens");
    let conv = to_json(&resolve(lectern.create_conversation(None)).await);
    let reply = to_json(&resolve(lectern.send(conv["id"].as_str().unwrap().into(), "Hi".into(), None)).await);
    assert_eq!(reply["text"], "Hello from WebLLM");
    assert_eq!(reply["usage"]["outputTokens"], 3);
    let requests = to_json(&Reflect::get(&js_sys::global(), &"__lecternCustomRequests".into()).unwrap());
    assert_eq!(requests[0]["model"], "Llama-3.2-1B");
    assert_eq!(requests[0]["stream"], true);
    assert_eq!(
        requests[0]["messages"].as_array().unwrap().last().unwrap(),
        &json!({ "role": "user", "content": "Hi" })
    );
}

#[wasm_bindgen_test]
async fn custom_provider_plain_answers_and_thrown_statuses_are_retried() {
    let call = Function::new_with_args(
        "request",
        r#"
        globalThis.__lecternCalls = (globalThis.__lecternCalls || 0) + 1;
        if (globalThis.__lecternCalls === 1) {
          const error = new Error('warming up'); error.status = 503; throw error;
        }
        return Promise.resolve({ choices: [{ message: { role: 'assistant', content: 'Plain answer.' }, finish_reason: 'stop' }] });
        "#,
    );
    let options =
        js(json!({ "provider": { "kind": "custom", "stream": false, "retry": { "initialDelayMs": 10 } } }));
    Reflect::set(
        &Reflect::get(&options, &"provider".into()).unwrap(),
        &"call".into(),
        &call,
    )
    .unwrap();
    let lectern = lectern::wasm::Lectern::connect(options).await.expect("opens");
    let conv = to_json(&resolve(lectern.create_conversation(None)).await);
    let reply = to_json(&resolve(lectern.send(conv["id"].as_str().unwrap().into(), "Hi".into(), None)).await);
    assert_eq!(reply["text"], "Plain answer.");
    let calls = Reflect::get(&js_sys::global(), &"__lecternCalls".into()).unwrap();
    assert_eq!(calls.as_f64(), Some(2.0));
}

#[wasm_bindgen_test]
async fn a_custom_provider_without_its_function_is_a_config_error() {
    let error = reject(lectern::wasm::Lectern::open(js(
        json!({ "provider": { "kind": "custom" } }),
    )))
    .await;
    assert_eq!(String::from(error.name()), "ConfigError");
    assert!(String::from(error.message()).contains("provider.call"));
}
