//! `subscribe` and `retry` through the JS API in headless Chromium: a
//! subscriber hears the text of a turn continued by `resolveApprovals`, a
//! throwing one breaks nothing; `retry` answers a failed turn's user message
//! without storing it twice, and refuses when there is nothing to retry.

use crate::support::web;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web::{
    conversation, js, json as to_json, open_with, openai_provider, register, reject, resolve,
    roles_and_contents, send, tool, unique, MockSession, Opened,
};

/// What a subscribed recorder heard, its unsubscribe function, and the listener kept alive.
type Recorder = (Rc<RefCell<Vec<Value>>>, Function, Closure<dyn Fn(JsValue)>);

/// Subscribes a recorder.
fn record(opened: &Opened) -> Recorder {
    let heard = Rc::new(RefCell::new(Vec::new()));
    let sink = heard.clone();
    let listener = Closure::<dyn Fn(JsValue)>::new(move |ev: JsValue| sink.borrow_mut().push(to_json(&ev)));
    let unsubscribe = opened
        .lectern
        .subscribe(listener.as_ref().clone())
        .expect("subscribes");
    (heard, unsubscribe.unchecked_into(), listener)
}

fn deltas(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "textDelta")
        .map(|e| e["text"].as_str().unwrap())
        .collect()
}

async fn open_asking(session: &MockSession) -> Opened {
    let opened = open_with(json!({
        "dbName": unique("subscribe"),
        "provider": openai_provider(session, json!({ "stream": true })),
        "approvals": { "tools": { "save_note": "ask" } }
    }))
    .await;
    let schema =
        json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] });
    register(
        &opened,
        tool("save_note", schema, "return { saved: args.text };", json!({})),
    );
    opened
}

#[wasm_bindgen_test]
async fn a_subscriber_hears_the_text_of_an_approved_turn_and_a_throwing_one_breaks_nothing() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "call_n", "name": "save_note", "arguments": { "text": "hi" } }] },
            { "text": "Saved your note.", "chunkDelayMs": 2 }
        ]))
        .await;
    let opened = open_asking(&session).await;
    let thrower = Function::new_no_args("throw new Error('listener bug')");
    let _ = opened.lectern.subscribe(thrower.into()).expect("subscribes");
    let (heard, unsubscribe, _keep) = record(&opened);
    let id = conversation(&opened).await;
    let paused = send(&opened, &id, "note hi").await.unwrap();
    assert_eq!(paused["status"], "awaitingApproval");
    assert!(heard.borrow().iter().any(|e| e["type"] == "approvalRequested"));

    let turn_id = paused["turnId"].as_str().unwrap();
    let decisions = js(json!([{ "callId": "call_n", "decision": "approve" }]));
    let done = to_json(
        &resolve(
            opened
                .lectern
                .resolve_approvals(turn_id.into(), decisions.unchecked_into(), None),
        )
        .await,
    );

    assert_eq!(done["text"], "Saved your note.");
    assert_eq!(deltas(&heard.borrow()), "Saved your note.");
    assert!(heard.borrow().iter().any(|e| e["type"] == "finish"));
    let seen = heard.borrow().len();
    unsubscribe.call0(&JsValue::NULL).unwrap();
    unsubscribe.call0(&JsValue::NULL).unwrap();
    send(&opened, &id, "again").await.unwrap();
    assert_eq!(heard.borrow().len(), seen, "nothing after unsubscribing");
    assert!(
        deltas(&opened.events.borrow()).ends_with("again"),
        "onEvent still hears the echo"
    );
    let not_a_function = opened.lectern.subscribe(JsValue::from(3)).unwrap_err();
    assert_eq!(
        to_json(&js_sys::Reflect::get(&not_a_function, &"name".into()).unwrap()),
        "ConfigError"
    );
}

#[wasm_bindgen_test]
async fn retry_answers_the_failed_turn_once_and_refuses_when_nothing_waits() {
    let session = MockSession::new();
    session
        .script(json!([
            { "fault": { "status": 401 } },
            { "text": "Now it works.", "chunkDelayMs": 1 }
        ]))
        .await;
    let opened = open_with(json!({
        "dbName": unique("retry"),
        "provider": openai_provider(&session, json!({ "stream": true, "maxRetries": 0 }))
    }))
    .await;
    let (heard, _unsubscribe, _keep) = record(&opened);
    let id = conversation(&opened).await;
    let failed = send(&opened, &id, "Hello").await.unwrap_err();
    assert_eq!(failed.name(), "AuthError");

    let done = to_json(&resolve(opened.lectern.retry(id.clone().into(), None)).await);

    assert_eq!(done["text"], "Now it works.");
    assert_eq!(deltas(&heard.borrow()), "Now it works.");
    let messages = to_json(&resolve(opened.lectern.messages(id.clone().into())).await);
    let stored = roles_and_contents(&messages);
    assert_eq!(stored, [("user", "Hello"), ("assistant", "Now it works.")]);
    let again = reject(opened.lectern.retry(id.clone().into(), None)).await;
    assert_eq!(again.name(), "ConfigError");
    assert_eq!(session.requests().await.len(), 2);
}

#[wasm_bindgen_test]
async fn retry_with_an_approval_pending_is_refused() {
    let session = MockSession::new();
    session
        .script(
            json!([{ "toolCalls": [{ "id": "call_p", "name": "save_note", "arguments": { "text": "x" } }] }]),
        )
        .await;
    let opened = open_asking(&session).await;
    let id = conversation(&opened).await;
    assert_eq!(
        send(&opened, &id, "note x").await.unwrap()["status"],
        "awaitingApproval"
    );

    let refused = reject(opened.lectern.retry(id.into(), None)).await;

    assert_eq!(refused.name(), "ApprovalPendingError");
}
