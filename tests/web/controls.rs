//! Approval controls through the JS API in headless Chromium: an "always
//! allow" grant surviving close() and a reopen, `onNewMessage: 'reject'`,
//! `setApprovals` switching auto-approval without a reopen, and the
//! `current_datetime` built-in tool with the browser's real `Intl`, and
//! `send`'s `responseSchema` (structured output) on both wire formats.

use crate::support::web;

use js_sys::Reflect;
use serde_json::{json, Value};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web::writer::{open_with_writer, runs_of};
use web::{
    conversation, js, json as to_json, open_with, openai_provider, register, reject, resolve, send, tool,
    unique, MockSession, Opened,
};

fn write_call(id: &str) -> Value {
    json!({ "toolCalls": [{ "id": id, "name": "write_file", "arguments": { "path": "a.txt" } }] })
}

async fn resolve_approvals(opened: &Opened, turn_id: &Value, decisions: Value) -> Value {
    let promise = opened.lectern.resolve_approvals(
        turn_id.as_str().unwrap().into(),
        js(decisions).unchecked_into(),
        None,
    );
    to_json(&resolve(promise).await)
}

#[wasm_bindgen_test]
async fn an_always_allow_grant_survives_close_and_reopen_until_reset() {
    let session = MockSession::new();
    session
        .script(json!([
            write_call("call_1"), { "text": "one" },
            write_call("call_2"), { "text": "two" },
            write_call("call_3")
        ]))
        .await;
    let (db, counter) = (unique("grants"), unique("runs"));
    let ask = json!({ "tools": { "write_file": "ask" } });
    let first = open_with_writer(&session, &db, &counter, ask.clone()).await;
    let id = conversation(&first).await;
    let paused = send(&first, &id, "write").await.unwrap();
    assert_eq!(paused["status"], "awaitingApproval");
    let done = resolve_approvals(
        &first,
        &paused["turnId"],
        json!([{ "callId": "call_1", "decision": "approveAlways" }]),
    )
    .await;
    assert_eq!(done["text"], "one");
    let records = to_json(&resolve(first.lectern.tool_calls(id.clone().into())).await);
    assert_eq!(records[0]["decision"], "approvedAlways");
    resolve(first.lectern.close()).await;
    drop(first);

    let second = open_with_writer(&session, &db, &counter, ask).await;
    let again = send(&second, &id, "write again").await.unwrap();
    assert_eq!(again["status"], "completed", "{again}");
    assert_eq!(again["text"], "two");
    assert_eq!(runs_of(&counter), 2);
    resolve(second.lectern.reset_approvals(id.clone().into())).await;
    let asked = send(&second, &id, "and again").await.unwrap();
    assert_eq!(asked["status"], "awaitingApproval", "revoked: it asks again");
    assert_eq!(runs_of(&counter), 2);
    let err = reject(second.lectern.reset_approvals("nope".into())).await;
    assert_eq!(String::from(err.name()), "NotFoundError");
    resolve(second.lectern.close()).await;
}

/// Sends with JS options; the result as JSON, or the rejection.
async fn send_with(opened: &Opened, id: &str, text: &str, options: Value) -> Result<Value, js_sys::Error> {
    let promise = opened
        .lectern
        .send(id.into(), text.into(), Some(js(options).unchecked_into()));
    match wasm_bindgen_futures::JsFuture::from(promise).await {
        Ok(value) => Ok(to_json(&value)),
        Err(error) => Err(error.dyn_into().unwrap()),
    }
}

#[wasm_bindgen_test]
async fn on_new_message_reject_closes_the_paused_turn_and_answers_the_new_message() {
    let session = MockSession::new();
    session
        .script(json!([write_call("call_1"), { "text": "Something else, then." }]))
        .await;
    let counter = unique("runs");
    let approvals = json!({ "tools": { "write_file": "ask" }, "onNewMessage": "reject" });
    let opened = open_with_writer(&session, &unique("moved"), &counter, approvals).await;
    let id = conversation(&opened).await;
    let paused = send(&opened, &id, "write").await.unwrap();
    assert_eq!(paused["status"], "awaitingApproval");
    let done = send(&opened, &id, "never mind").await.unwrap();
    assert_eq!(done["text"], "Something else, then.");
    assert_eq!(runs_of(&counter), 0);
    let messages = to_json(&resolve(opened.lectern.messages(id.clone().into())).await);
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool_result", "user", "assistant"]);
    assert_eq!(messages[2]["content"], "The user moved on without approving");
    let records = to_json(&resolve(opened.lectern.tool_calls(id.clone().into())).await);
    assert_eq!(records[0]["decision"], "movedOn");
    let requests = session.requests().await;
    let sent = &requests[1]["body"]["messages"];
    let last = sent.as_array().unwrap().len() - 1;
    assert_eq!(sent[last - 1]["content"], "The user moved on without approving");
    assert_eq!(sent[last]["content"], "never mind");
    resolve(opened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn set_approvals_toggles_auto_approve_and_a_send_can_refuse_per_message() {
    let session = MockSession::new();
    session
        .script(
            json!([write_call("call_1"), write_call("call_2"), { "text": "written" }, write_call("call_3")]),
        )
        .await;
    let counter = unique("runs");
    let opened = open_with_writer(
        &session,
        &unique("toggle"),
        &counter,
        json!({ "tools": { "write_file": "ask" } }),
    )
    .await;
    let id = conversation(&opened).await;
    let paused = send(&opened, &id, "write").await.unwrap();
    assert_eq!(paused["status"], "awaitingApproval");
    // The default, said per send: it refuses.
    let err = send_with(
        &opened,
        &id,
        "again",
        json!({ "approvals": { "onNewMessage": "refuse" } }),
    )
    .await
    .unwrap_err();
    assert_eq!(String::from(err.name()), "ApprovalPendingError");
    // The widget's "auto-approve" toggle: no reopen.
    opened
        .lectern
        .set_approvals(js(
            json!({ "tools": { "write_file": "ask" }, "autoApprove": true, "onNewMessage": "reject" }),
        ))
        .unwrap();
    let done = send(&opened, &id, "write it anyway").await.unwrap();
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(runs_of(&counter), 1);
    opened
        .lectern
        .set_approvals(js(json!({ "tools": { "write_file": "ask" } })))
        .unwrap();
    let asked = send(&opened, &id, "once more").await.unwrap();
    assert_eq!(asked["status"], "awaitingApproval", "toggled off: it asks again");
    let bad = opened
        .lectern
        .set_approvals(js(json!({ "onNewMessage": "ignore" })))
        .unwrap_err();
    assert_eq!(
        to_json(&Reflect::get(&bad, &"name".into()).unwrap()),
        "ConfigError"
    );
    let bad = send_with(
        &opened,
        &id,
        "x",
        json!({ "approvals": { "autoApprove": "yes" } }),
    )
    .await
    .unwrap_err();
    assert_eq!(String::from(bad.name()), "ConfigError");
    resolve(opened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn current_datetime_reads_real_intl_zones_and_a_bad_zone_is_a_tool_error() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [
                { "id": "call_t", "name": "current_datetime", "arguments": { "timeZone": "Asia/Tokyo" } },
                { "id": "call_r", "name": "current_datetime", "arguments": {} },
                { "id": "call_x", "name": "current_datetime", "arguments": { "timeZone": "Nowhere/Atlantis" } }
            ] },
            { "text": "It is evening in Tokyo." }
        ]))
        .await;
    let opened = open_with(json!({
        "provider": openai_provider(&session, json!({})),
        "builtinTools": ["current_datetime"]
    }))
    .await;
    let id = conversation(&opened).await;
    let done = send(&opened, &id, "time in Tokyo?").await.unwrap();
    assert_eq!(done["text"], "It is evening in Tokyo.");
    let results = session.tool_results(1).await;
    let tokyo: Value = serde_json::from_str(results[0].as_str().unwrap()).unwrap();
    assert_eq!(tokyo["timeZone"], "Asia/Tokyo");
    assert_eq!(tokyo["utcOffset"], "+09:00");
    let iso = tokyo["iso"].as_str().unwrap();
    assert!(
        iso.ends_with("+09:00") && iso.starts_with(tokyo["date"].as_str().unwrap()),
        "{iso}"
    );
    // The same instant as the page's clock, read in Tokyo.
    let parsed = js_sys::Date::parse(iso);
    assert!((js_sys::Date::now() - parsed).abs() < 60_000.0, "{iso}");
    let reader: Value = serde_json::from_str(results[1].as_str().unwrap()).unwrap();
    assert!(
        reader["timeZone"].as_str().is_some_and(|z| !z.is_empty()),
        "{reader}"
    );
    let bad: Value = serde_json::from_str(results[2].as_str().unwrap()).unwrap();
    assert_eq!(
        bad["error"],
        r#"Unknown time zone: "Nowhere/Atlantis" (use an IANA name such as Europe/Paris)"#
    );
    let host = tool(
        "current_datetime",
        json!({ "type": "object" }),
        "return 'noon';",
        json!({}),
    );
    let err = opened.lectern.register_tool(host.unchecked_into()).unwrap_err();
    assert_eq!(
        to_json(&Reflect::get(&err, &"name".into()).unwrap()),
        "ConfigError"
    );
    resolve(opened.lectern.close()).await;

    let unknown =
        js(json!({ "provider": openai_provider(&session, json!({})), "builtinTools": ["weather"] }));
    let refused: js_sys::Error = match lectern::wasm::Lectern::connect(unknown).await {
        Ok(_) => panic!("an unknown built-in tool was accepted"),
        Err(error) => error.unchecked_into(),
    };
    assert_eq!(String::from(refused.name()), "ConfigError");
    assert!(String::from(refused.message()).contains("weather"));
}

#[wasm_bindgen_test]
async fn a_js_tool_with_retries_runs_again_after_errors() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "call_f", "name": "fetch_page", "arguments": {} }] },
            { "text": "fetched" }
        ]))
        .await;
    let counter = unique("flaky");
    let opened = open_with(json!({ "provider": openai_provider(&session, json!({})) })).await;
    let body = format!(
        "const n = (globalThis['{counter}'] = (globalThis['{counter}'] || 0) + 1); \
         if (n < 3) throw new Error('HTTP 503'); return {{ run: n }};"
    );
    register(
        &opened,
        tool(
            "fetch_page",
            json!({ "type": "object" }),
            &body,
            json!({ "retries": 2, "retryDelayMs": 5 }),
        ),
    );
    let id = conversation(&opened).await;
    let done = send(&opened, &id, "fetch").await.unwrap();
    assert_eq!(done["text"], "fetched");
    assert_eq!(runs_of(&counter), 3);
    assert_eq!(done["toolCalls"][0]["attempts"], 3);
    let event = opened
        .events
        .borrow()
        .iter()
        .find(|e| e["type"] == "toolResult")
        .cloned()
        .unwrap();
    assert_eq!(event["attempts"], 3);
    let too_many = tool(
        "other",
        json!({ "type": "object" }),
        "return 1;",
        json!({ "retries": 6 }),
    );
    let err = opened
        .lectern
        .register_tool(too_many.unchecked_into())
        .unwrap_err();
    assert_eq!(
        to_json(&Reflect::get(&err, &"name".into()).unwrap()),
        "ConfigError"
    );
    resolve(opened.lectern.close()).await;
}

fn city_schema() -> Value {
    json!({
        "name": "city_weather",
        "schema": {
            "type": "object",
            "properties": { "city": { "type": "string" }, "temperatureC": { "type": "number" } },
            "required": ["city", "temperatureC"]
        }
    })
}

#[wasm_bindgen_test]
async fn a_response_schema_resolves_data_on_openai_and_is_checked_at_send() {
    let session = MockSession::new();
    session
        .script(json!([{ "text": "```json\n{\"city\": \"Tromsø\", \"temperatureC\": -4}\n```" }]))
        .await;
    let opened = open_with(json!({ "provider": openai_provider(&session, json!({})) })).await;
    let id = conversation(&opened).await;
    let done = send_with(
        &opened,
        &id,
        "Weather?",
        json!({ "responseSchema": city_schema() }),
    )
    .await
    .unwrap();
    let data = json!({ "city": "Tromsø", "temperatureC": -4 });
    assert_eq!(done["data"], data);
    assert_eq!(done["text"], r#"{"city": "Tromsø", "temperatureC": -4}"#);
    let finish = opened
        .events
        .borrow()
        .iter()
        .find(|e| e["type"] == "finish")
        .cloned()
        .unwrap();
    assert_eq!(finish["data"], data);
    let requests = session.requests().await;
    assert_eq!(
        requests[0]["body"]["response_format"],
        json!({ "type": "json_schema", "json_schema": {
            "name": "city_weather", "schema": city_schema()["schema"], "strict": false
        } })
    );
    for bad in [
        json!({ "name": "city weather", "schema": { "type": "object" } }),
        json!({ "schema": { "type": "string" } }),
        json!({ "schema": { "type": "object" }, "strict": "yes" }),
    ] {
        let err = send_with(&opened, &id, "again", json!({ "responseSchema": bad }))
            .await
            .unwrap_err();
        assert_eq!(String::from(err.name()), "ConfigError", "{bad}");
    }
    assert_eq!(session.requests().await.len(), 1, "refused before any request");
    resolve(opened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn two_answers_off_the_schema_reject_with_structured_output_error_on_anthropic() {
    let session = MockSession::new();
    let answer = |input: Value| json!({ "toolCalls": [{ "name": "lectern_response", "arguments": input }] });
    session
        .script(json!([
            answer(json!({ "city": "Tromsø" })),
            answer(json!({ "city": "Tromsø", "temperatureC": "cold" }))
        ]))
        .await;
    let provider = json!({
        "kind": "anthropic", "baseUrl": session.base_url(), "model": "claude-x", "apiKey": "k"
    });
    let opened = open_with(json!({ "provider": provider })).await;
    let id = conversation(&opened).await;
    let err = send_with(
        &opened,
        &id,
        "Weather?",
        json!({ "responseSchema": city_schema() }),
    )
    .await
    .unwrap_err();
    assert_eq!(String::from(err.name()), "StructuredOutputError");
    let field = |name: &str| to_json(&Reflect::get(&err, &name.into()).unwrap());
    assert_eq!(
        field("validationError"),
        "temperatureC: must be a number, got \"cold\""
    );
    assert_eq!(field("text"), r#"{"city":"Tromsø","temperatureC":"cold"}"#);
    assert_eq!(field("steps"), 2);
    assert!(field("usage")["inputTokens"].as_u64().unwrap() > 0);
    let requests = session.requests().await;
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0]["body"]["tool_choice"],
        json!({ "type": "tool", "name": "lectern_response", "disable_parallel_tool_use": true })
    );
    let note = requests[1]["body"]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(note["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("temperatureC: is required"));
    let messages = to_json(&resolve(opened.lectern.messages(id.clone().into())).await);
    assert_eq!(
        messages.as_array().unwrap().len(),
        1,
        "only the user message is stored"
    );
    resolve(opened.lectern.close()).await;
}
