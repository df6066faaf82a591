//! A `write_file` tool for the browser tests that counts its runs in
//! `globalThis[counter]`, and an instance opened with it on a database.

use js_sys::Reflect;
use serde_json::{json, Value};

use super::{open_with, openai_provider, register, tool, MockSession, Opened};

/// Registers `write_file`, which counts its runs in `globalThis[counter]`.
pub fn register_writer(opened: &Opened, counter: &str) {
    let body =
        format!("globalThis['{counter}'] = (globalThis['{counter}'] || 0) + 1; return {{ ok: true }};");
    register(
        opened,
        tool("write_file", json!({ "type": "object" }), &body, json!({})),
    );
}

/// How many times `write_file` ran for `counter`.
pub fn runs_of(counter: &str) -> u64 {
    let runs = Reflect::get(&js_sys::global(), &counter.into()).unwrap();
    runs.as_f64().map_or(0, |n| n as u64)
}

/// Opens `db` on the session's mock provider with `approvals`, and registers `write_file`.
pub async fn open_with_writer(session: &MockSession, db: &str, counter: &str, approvals: Value) -> Opened {
    let opened = open_with(json!({
        "dbName": db,
        "provider": openai_provider(session, json!({})),
        "approvals": approvals
    }))
    .await;
    register_writer(&opened, counter);
    opened
}
