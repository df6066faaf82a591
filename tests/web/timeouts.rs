//! Time limits in headless Chromium: a call cut off by a first-chunk, idle or
//! turn timeout closes its connection (the mock server sees it), the timers of
//! a finished turn are cleared, and limits beyond what `setTimeout` takes do
//! not fire at once.

use crate::support::web;

use js_sys::Function;
use serde_json::{json, Value};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web::{conversation, open_with, openai_provider, send, sleep, MockSession};

/// Whether the mock server saw the client close the session's first request
/// before its answer ended, waiting for that up to `within_ms`.
async fn closed_early(session: &MockSession, within_ms: i32) -> bool {
    for _ in 0..within_ms / 50 {
        if session.requests().await[0]["closedEarly"] == true {
            return true;
        }
        sleep(50).await;
    }
    false
}

#[wasm_bindgen_test]
async fn a_timed_out_call_closes_its_connection() {
    let cases = [
        (
            "first chunk",
            json!({ "text": "too late", "delayMs": 12000 }),
            json!({ "timeouts": { "firstChunkMs": 300 } }),
            json!({}),
        ),
        (
            "idle",
            json!({ "text": "one two three four", "chunkDelayMs": 3000 }),
            json!({ "timeouts": { "idleMs": 300 } }),
            json!({}),
        ),
        (
            "turn",
            json!({ "text": "too late", "delayMs": 12000 }),
            json!({}),
            json!({ "turnTimeoutMs": 300 }),
        ),
    ];
    for (name, turn, timeouts, limits) in cases {
        let session = MockSession::new();
        session.script(json!([turn])).await;
        let provider = openai_provider(&session, timeouts);
        let opened = open_with(json!({ "provider": provider, "limits": limits })).await;
        let id = conversation(&opened).await;
        let error = send(&opened, &id, "Hi").await.expect_err("times out");
        assert_eq!(String::from(error.name()), "TimeoutError", "{name}");
        // Generous: WebKit on a loaded CI machine took over 2 s to close.
        // The answers above end far later, so the close is still early.
        assert!(
            closed_early(&session, 8000).await,
            "{name}: the server saw the connection closed well before it would have answered; it recorded {}",
            Value::Array(session.requests().await)
        );
    }
}

#[wasm_bindgen_test]
async fn limits_beyond_what_set_timeout_takes_do_not_fire_at_once() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "made it", "delayMs": 200 }]))
        .await;
    let huge = 1_000_000_000_000u64;
    let provider = openai_provider(
        &session,
        json!({ "timeouts": { "firstChunkMs": huge, "idleMs": huge, "totalMs": huge } }),
    );
    let opened = open_with(json!({ "provider": provider, "limits": { "turnTimeoutMs": huge } })).await;
    let id = conversation(&opened).await;
    let reply = send(&opened, &id, "Hi").await.expect("no limit fired");
    assert_eq!(reply["text"], "made it");
}

/// Wraps `setTimeout` and `clearTimeout` to track the timers that are set and
/// have neither fired nor been cleared, by delay; `restore()` undoes it.
fn track_timers() -> JsValue {
    Function::new_no_args(
        r#"
        const set = globalThis.setTimeout, clear = globalThis.clearTimeout;
        const active = new Map();
        globalThis.setTimeout = function (callback, ms, ...rest) {
          const id = set.call(globalThis, (...args) => {
            active.delete(id);
            return typeof callback === 'function' ? callback(...args) : undefined;
          }, ms, ...rest);
          active.set(id, ms);
          return id;
        };
        globalThis.clearTimeout = function (id) {
          active.delete(id);
          return clear.call(globalThis, id);
        };
        return {
          activeDelays: () => Array.from(active.values()),
          restore: () => { globalThis.setTimeout = set; globalThis.clearTimeout = clear; },
        };
        "#,
    )
    .call0(&JsValue::NULL)
    .unwrap()
}

fn call(tracker: &JsValue, method: &str) -> JsValue {
    let function: Function = js_sys::Reflect::get(tracker, &method.into()).unwrap().into();
    function.call0(tracker).unwrap()
}

#[wasm_bindgen_test]
async fn the_timers_of_a_finished_turn_are_cleared() {
    let session = MockSession::new();
    session.script(json!([{ "text": "quick" }])).await;
    let provider = openai_provider(
        &session,
        json!({ "timeouts": { "firstChunkMs": 45_678, "idleMs": 34_567, "totalMs": 56_789 } }),
    );
    let opened = open_with(json!({ "provider": provider, "limits": { "turnTimeoutMs": 61_234 } })).await;
    let id = conversation(&opened).await;
    let tracker = track_timers();
    let reply = send(&opened, &id, "Hi").await;
    let delays: Value = web::json(&call(&tracker, "activeDelays"));
    call(&tracker, "restore");
    assert_eq!(reply.expect("answered")["text"], "quick");
    let ours: Vec<&Value> = delays
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| [45_678, 34_567, 56_789, 61_234].contains(&d.as_u64().unwrap_or(0)))
        .collect();
    assert!(ours.is_empty(), "timers left running after the turn: {ours:?}");
}
