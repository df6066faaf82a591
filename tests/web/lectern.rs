//! The public JS API end to end in headless Chromium: IndexedDB for storage,
//! `fetch` to the mock model server for a streamed OpenAI-compatible reply.

use crate::support::web;

use lectern::wasm::Lectern;
use lectern::web::IndexedDbStore;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web::{js, json as to_json, open, reject, resolve, roles_and_contents, sleep, unique, MockSession};

fn openai(session: &MockSession, stream: bool) -> Value {
    json!({ "kind": "openai", "baseUrl": session.base_url(), "model": "mock-model", "apiKey": "k", "stream": stream })
}

async fn new_conversation(lectern: &Lectern, title: &str) -> String {
    let conv = to_json(
        &resolve(lectern.create_conversation(Some(js(json!({ "title": title })).unchecked_into()))).await,
    );
    assert_eq!(conv["title"], title);
    assert!(conv["createdAt"].as_f64().unwrap() > 0.0);
    conv["id"].as_str().unwrap().to_owned()
}

#[wasm_bindgen_test]
async fn streamed_reply_arrives_in_order_and_survives_a_reopen() {
    let session = MockSession::new();
    let reply_text = "Hello from the mock server, streamed word by word.";
    session
        .script(json!([{ "text": reply_text, "chunkDelayMs": 5, "usage": { "inputTokens": 21, "outputTokens": 9 } }]))
        .await;
    let db = unique("db-stream");
    let opened = open(Some(&db), openai(&session, true)).await;
    let conv_id = new_conversation(&opened.lectern, "First").await;

    let reply = to_json(&resolve(opened.lectern.send(conv_id.clone().into(), "Hello".into(), None)).await);

    assert_eq!(reply["text"], reply_text);
    assert_eq!(reply["usage"]["inputTokens"], 21);
    assert_eq!(reply["usage"]["outputTokens"], 9);
    assert_eq!(reply["toolCalls"], json!([]));
    let events = opened.events.borrow().clone();
    let deltas: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "textDelta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(
        deltas.len() > 5,
        "the reply must arrive in pieces, got {deltas:?}"
    );
    assert_eq!(deltas.concat(), reply_text);
    assert!(events.iter().all(|e| e["conversationId"] == conv_id.as_str()));
    let usage: Vec<&Value> = events.iter().filter(|e| e["type"] == "tokenUsage").collect();
    assert_eq!(usage.len(), 1);
    assert_eq!(
        (
            usage[0]["inputTokens"].as_u64(),
            usage[0]["outputTokens"].as_u64()
        ),
        (Some(21), Some(9))
    );
    let last_delta = events.iter().rposition(|e| e["type"] == "textDelta").unwrap();
    let finish = events.iter().position(|e| e["type"] == "finish").unwrap();
    assert!(last_delta < finish);

    let sent = &session.requests().await[0];
    assert_eq!(sent["headers"]["authorization"], "Bearer k");
    assert_eq!(sent["body"]["stream_options"]["include_usage"], true);
    assert_eq!(
        sent["body"]["messages"][1],
        json!({ "role": "user", "content": "Hello" })
    );

    resolve(opened.lectern.close()).await;
    let closed = reject(opened.lectern.messages(conv_id.clone().into())).await;
    assert_eq!(String::from(closed.name()), "StorageError");

    let again = open(Some(&db), openai(&session, true)).await;
    let messages = to_json(&resolve(again.lectern.messages(conv_id.clone().into())).await);
    let stored = roles_and_contents(&messages);
    assert_eq!(stored, [("user", "Hello"), ("assistant", reply_text)]);
    let conversations = to_json(&resolve(again.lectern.conversations()).await);
    assert_eq!(conversations[0]["id"], conv_id.as_str());
    resolve(again.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}

#[wasm_bindgen_test]
async fn user_message_is_stored_before_the_model_answers() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "Slow answer.", "delayMs": 400 }]))
        .await;
    let db = unique("db-before");
    let opened = open(Some(&db), openai(&session, true)).await;
    let conv_id = new_conversation(&opened.lectern, "Slow").await;

    let pending = wasm_bindgen_futures::JsFuture::from(opened.lectern.send(
        conv_id.clone().into(),
        "Are you there?".into(),
        None,
    ));
    let observer = async {
        sleep(150).await;
        // A second connection sees what is committed, while the model is still thinking.
        let peek = open(Some(&db), openai(&session, true)).await;
        let messages = to_json(&resolve(peek.lectern.messages(conv_id.clone().into())).await);
        resolve(peek.lectern.close()).await;
        messages
    };
    let (reply, during) = futures::join!(pending, observer);
    let roles: Vec<&str> = during
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user"],
        "only the user message is stored while the model is answering"
    );
    assert_eq!(to_json(&reply.expect("send resolves"))["text"], "Slow answer.");
    let after = to_json(&resolve(opened.lectern.messages(conv_id.into())).await);
    assert_eq!(after.as_array().unwrap().len(), 2);
    resolve(opened.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}

#[wasm_bindgen_test]
async fn provider_error_rejects_with_a_typed_error_and_keeps_the_user_message() {
    let session = MockSession::new();
    session
        .script(json!([{ "fault": { "status": 500, "body": { "error": { "message": "kaboom" } } } }]))
        .await;
    let mut provider = openai(&session, true);
    provider["maxRetries"] = json!(0);
    let opened = open(None, provider).await;
    let conv_id = new_conversation(&opened.lectern, "Failing").await;
    let error = reject(opened.lectern.send(conv_id.clone().into(), "Hello".into(), None)).await;
    assert_eq!(String::from(error.name()), "ApiError");
    let status = js_sys::Reflect::get(&error, &"status".into()).unwrap();
    assert_eq!(status.as_f64(), Some(500.0));
    assert!(String::from(error.message()).contains("kaboom"));
    let messages = to_json(&resolve(opened.lectern.messages(conv_id.into())).await);
    assert_eq!(messages.as_array().unwrap().len(), 1);
    assert!(opened
        .events
        .borrow()
        .iter()
        .any(|e| e["type"] == "error" && e["name"] == "ApiError"));
}

#[wasm_bindgen_test]
async fn unknown_conversation_rejects_with_not_found() {
    let session = MockSession::new();
    let opened = open(None, openai(&session, true)).await;
    let error = reject(opened.lectern.send("no-such-id".into(), "Hello".into(), None)).await;
    assert_eq!(String::from(error.name()), "NotFoundError");
    assert!(session.requests().await.is_empty(), "the model is never called");
    let error = reject(opened.lectern.messages("no-such-id".into())).await;
    assert_eq!(String::from(error.name()), "NotFoundError");
}

#[wasm_bindgen_test]
async fn non_streaming_mode_uses_a_plain_json_answer() {
    let session = MockSession::new();
    session.script(json!([{ "text": "Whole answer." }])).await;
    let opened = open(None, openai(&session, false)).await;
    let conv_id = new_conversation(&opened.lectern, "Plain").await;
    let reply = to_json(&resolve(opened.lectern.send(conv_id.into(), "Hi".into(), None)).await);
    assert_eq!(reply["text"], "Whole answer.");
    assert!(session.requests().await[0]["body"].get("stream").is_none());
}

#[wasm_bindgen_test]
async fn connection_refused_is_a_connection_error() {
    let provider = json!({ "kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "m" });
    let opened = open(None, provider).await;
    let conv_id = new_conversation(&opened.lectern, "Offline").await;
    let error = reject(opened.lectern.send(conv_id.into(), "Hello".into(), None)).await;
    assert_eq!(String::from(error.name()), "ConnectionError");
}

#[wasm_bindgen_test]
async fn invalid_options_reject_with_config_errors() {
    for (options, needle) in [
        (
            json!({ "provider": { "kind": "openai", "baseUrl": "ftp://example.com/v1", "model": "m" } }),
            "baseUrl",
        ),
        (
            json!({ "provider": { "kind": "smoke-signals" } }),
            "smoke-signals",
        ),
        (
            json!({ "provider": { "kind": "openai", "baseUrl": "http://x/v1", "model": "m" }, "dbNmae": "x" }),
            "dbNmae",
        ),
    ] {
        let error = reject(Lectern::open(js(options))).await;
        assert_eq!(String::from(error.name()), "ConfigError");
        let message = String::from(error.message());
        assert!(message.contains(needle), "{message}");
    }
    let error = reject(Lectern::open(JsValue::UNDEFINED)).await;
    assert_eq!(String::from(error.name()), "ConfigError");
}
