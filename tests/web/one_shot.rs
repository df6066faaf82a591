//! `askOnce` through the JS API in headless Chromium against the mock
//! server: one turn with its tools that stores nothing in IndexedDB (no
//! conversation, message or tool-call record after it, nor after a reopen),
//! the turn's messages in its result, a tool that would ask refused, and bad
//! options refused with a `ConfigError` before any request.

use crate::support::web;

use serde_json::{json, Value};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web::writer::{open_with_writer, runs_of};
use web::{js, json as to_json, reject, resolve, unique, MockSession, Opened};

/// Opens `db` with `write_file` asking for approval; the tool counts its runs in `globalThis[counter]`.
async fn open_db(session: &MockSession, db: &str, counter: &str) -> Opened {
    let approvals = json!({ "tools": { "write_file": "ask" } });
    open_with_writer(session, db, counter, approvals).await
}

async fn ask_once(opened: &Opened, text: &str, options: Value) -> Value {
    to_json(
        &resolve(
            opened
                .lectern
                .ask_once(text.into(), Some(js(options).unchecked_into())),
        )
        .await,
    )
}

fn roles(result: &Value) -> Vec<&str> {
    result["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect()
}

/// Nothing in the database: no conversation (so no messages or records either).
async fn assert_nothing_stored(opened: &Opened) {
    assert_eq!(to_json(&resolve(opened.lectern.conversations()).await), json!([]));
}

fn write_call(id: &str) -> Value {
    json!({ "toolCalls": [{ "id": id, "name": "write_file", "arguments": { "path": "a.txt" } }] })
}

#[wasm_bindgen_test]
async fn ask_once_runs_its_tools_and_stores_nothing_even_after_a_reopen() {
    let session = MockSession::new();
    session
        .script(json!([write_call("call_1"), { "text": "Written." }, write_call("call_2"), { "text": "Not written." }]))
        .await;
    let (db, counter) = (unique("one-shot"), unique("runs"));
    let opened = open_db(&session, &db, &counter).await;
    let done = ask_once(
        &opened,
        "Write a.txt",
        json!({ "approvals": { "autoApprove": true } }),
    )
    .await;
    assert_eq!(
        (done["status"].as_str(), done["text"].as_str()),
        (Some("completed"), Some("Written."))
    );
    assert_eq!(runs_of(&counter), 1);
    assert_eq!(roles(&done), ["user", "assistant", "tool_result", "assistant"]);
    assert_eq!(done["toolCalls"][0]["name"], "write_file");
    assert_nothing_stored(&opened).await;

    // Without auto-approval the asking tool is refused: nobody could answer, and nothing would resume it.
    let refused = ask_once(&opened, "Write a.txt", json!({})).await;
    assert_eq!(
        (refused["status"].as_str(), refused["text"].as_str()),
        (Some("completed"), Some("Not written."))
    );
    assert_eq!(runs_of(&counter), 1);
    let result = refused["messages"][2]["content"].as_str().unwrap();
    assert!(
        result.contains("which a one-shot turn cannot ask for"),
        "{result}"
    );
    resolve(opened.lectern.close()).await;

    let reopened = open_db(&session, &db, &counter).await;
    assert_nothing_stored(&reopened).await;
    assert_eq!(
        to_json(&resolve(reopened.lectern.pending_approvals(None)).await),
        json!([])
    );
    resolve(reopened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn bad_options_are_a_config_error_and_send_nothing() {
    let session = MockSession::new();
    let opened = open_db(&session, &unique("one-shot-bad"), &unique("runs")).await;
    for options in [
        json!({ "bookId": 7 }),
        json!({ "conversationId": "c" }),
        json!("fast"),
    ] {
        let error = reject(
            opened
                .lectern
                .ask_once("Hi".into(), Some(js(options.clone()).unchecked_into())),
        )
        .await;
        assert_eq!(
            error.name(),
            "ConfigError",
            "{options}: {}",
            String::from(error.message())
        );
    }
    let unknown = reject(opened.lectern.ask_once(
        "Hi".into(),
        Some(js(json!({ "bookId": "nope" })).unchecked_into()),
    ))
    .await;
    assert!(["ConfigError", "NotFoundError"].contains(&String::from(unknown.name()).as_str()));
    assert!(session.requests().await.is_empty(), "no request was sent");
    resolve(opened.lectern.close()).await;
}
