//! The agent loop through the JS API in headless Chromium: JS tools against
//! the mock model server, events, the event stream, limits, abort.

use crate::support::web;

use js_sys::{Function, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{
    conversation, js, json as to_json, open, open_with, openai_provider as provider, register, resolve, send,
    tool, MockSession,
};

fn city_schema() -> Value {
    json!({ "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] })
}

#[wasm_bindgen_test]
async fn a_js_tool_runs_with_the_tenant_and_its_result_goes_back_to_the_model() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "call_w", "name": "weather", "arguments": { "city": "Oslo" } }] },
            { "text": "It is 21 degrees in Oslo." }
        ]))
        .await;
    let opened = open_with(json!({ "provider": provider(&session, json!({})), "userId": "tenant-9" })).await;
    register(
        &opened,
        tool(
            "weather",
            city_schema(),
            "return { city: args.city, celsius: 21, user: ctx.userId, conv: ctx.conversationId };",
            json!({}),
        ),
    );
    let id = conversation(&opened).await;
    let reply = send(&opened, &id, "Weather in Oslo?").await.expect("reply");
    assert_eq!(reply["success"], true);
    assert_eq!(reply["text"], "It is 21 degrees in Oslo.");
    assert_eq!(reply["steps"], 2);
    // The record's result is the tool's value (its text beside it, as the model read it).
    let result = reply["toolCalls"][0]["result"].clone();
    let text: Value = serde_json::from_str(reply["toolCalls"][0]["resultText"].as_str().unwrap()).unwrap();
    assert_eq!(text, result);
    assert_eq!(
        result,
        json!({ "city": "Oslo", "celsius": 21, "user": "tenant-9", "conv": id })
    );
    let requests = session.requests().await;
    assert_eq!(requests[0]["body"]["tools"][0]["function"]["name"], "weather");
    let second = &requests[1]["body"]["messages"];
    assert_eq!(second[2]["tool_calls"][0]["id"], "call_w");
    assert_eq!(second[3]["role"], "tool");
    assert_eq!(second[3]["tool_call_id"], "call_w");
    let stored = to_json(&resolve(opened.lectern.messages(id.into())).await);
    let roles: Vec<&str> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool_result", "assistant"]);
}

#[wasm_bindgen_test]
async fn failures_reach_the_model_as_results_and_the_host_as_events() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [
                { "id": "c1", "name": "explode", "arguments": {} },
                { "id": "c2", "name": "sleepy", "arguments": {} },
                { "id": "c3", "name": "ghost", "arguments": {} },
                { "id": "c4", "name": "weather", "arguments": { "town": "Oslo" } }
            ] },
            { "toolCalls": [{ "id": "c5", "name": "weather", "arguments": { "city": "Oslo" } }] },
            { "text": "Recovered." }
        ]))
        .await;
    let opened = open(None, provider(&session, json!({}))).await;
    register(
        &opened,
        tool(
            "explode",
            json!({ "type": "object" }),
            "throw new Error('kaboom');",
            json!({}),
        ),
    );
    register(
        &opened,
        tool(
            "sleepy",
            json!({ "type": "object" }),
            "return new Promise(() => {});",
            json!({ "timeoutMs": 200 }),
        ),
    );
    register(
        &opened,
        tool(
            "weather",
            city_schema(),
            "return 'sunny in ' + args.city;",
            json!({}),
        ),
    );
    let id = conversation(&opened).await;
    let reply = send(&opened, &id, "try").await.expect("reply");
    assert_eq!(reply["text"], "Recovered.");
    let errors: Vec<Value> = reply["toolCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["error"].clone())
        .collect();
    assert_eq!(errors[0], "Error: kaboom");
    assert_eq!(errors[1], "Tool timed out after 200 ms");
    assert_eq!(errors[2], "Unknown tool: ghost");
    assert_eq!(errors[3], "Invalid arguments: city: is required");
    assert_eq!(errors[4], Value::Null);
    assert_eq!(reply["toolCalls"][4]["result"], "sunny in Oslo");
    let tool_messages: Vec<Value> = session.tool_results(1).await;
    assert_eq!(tool_messages[2], r#"{"error":"Unknown tool: ghost"}"#);
    let events = opened.events.borrow();
    let failed = events
        .iter()
        .filter(|e| e["type"] == "toolResult" && !e["error"].is_null())
        .count();
    assert_eq!(failed, 4);
    assert!(events
        .iter()
        .all(|e| e["conversationId"] == id.as_str() && e["turnId"].is_string()));
}

#[wasm_bindgen_test]
async fn tools_of_one_response_run_concurrently() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "name": "left", "arguments": {} }, { "name": "right", "arguments": {} }] },
            { "text": "both" }
        ]))
        .await;
    let opened = open(None, provider(&session, json!({}))).await;
    // Each waits until both have started: only concurrent runs can finish.
    let body = |me: &str| {
        format!(
            "globalThis.__started = (globalThis.__started || 0) + 1;
             return new Promise((resolve) => {{
               const check = () => globalThis.__started >= 2 ? resolve('{me} done') : setTimeout(check, 5);
               check();
             }});"
        )
    };
    register(
        &opened,
        tool(
            "left",
            json!({ "type": "object" }),
            &body("left"),
            json!({ "timeoutMs": 2000 }),
        ),
    );
    register(
        &opened,
        tool(
            "right",
            json!({ "type": "object" }),
            &body("right"),
            json!({ "timeoutMs": 2000 }),
        ),
    );
    let id = conversation(&opened).await;
    let reply = send(&opened, &id, "both").await.expect("reply");
    let results: Vec<Value> = reply["toolCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["result"].clone())
        .collect();
    assert_eq!(results, [json!("left done"), json!("right done")]);
}

#[wasm_bindgen_test]
async fn iteration_limit_rejects_with_what_was_done() {
    let session = MockSession::new();
    let call = json!({ "toolCalls": [{ "name": "weather", "arguments": { "city": "A" } }] });
    session.script(json!([call, call, call])).await;
    let opened =
        open_with(json!({ "provider": provider(&session, json!({})), "limits": { "maxIterations": 2 } }))
            .await;
    register(&opened, tool("weather", city_schema(), "return 'ok';", json!({})));
    let id = conversation(&opened).await;
    let error = send(&opened, &id, "loop").await.expect_err("limited");
    assert_eq!(String::from(error.name()), "MaxIterationsError");
    assert_eq!(Reflect::get(&error, &"steps".into()).unwrap().as_f64(), Some(2.0));
    let calls = to_json(&Reflect::get(&error, &"toolCalls".into()).unwrap());
    assert_eq!(calls.as_array().unwrap().len(), 2);
    let stored = to_json(&resolve(opened.lectern.messages(id.into())).await);
    assert_eq!(
        stored.as_array().unwrap().len(),
        5,
        "user, then two persisted tool steps"
    );
}

#[wasm_bindgen_test]
async fn the_event_stream_yields_the_turn_in_order() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "name": "weather", "arguments": { "city": "Oslo" } }] },
            { "text": "Sunny and mild." }
        ]))
        .await;
    let opened = open(None, provider(&session, json!({}))).await;
    register(
        &opened,
        tool("weather", city_schema(), "return 'sunny';", json!({})),
    );
    let id = conversation(&opened).await;
    let iterable = opened
        .lectern
        .stream(id.clone().into(), "weather?".into(), None)
        .expect("streams");
    let collect = Function::new_with_args(
        "iterable",
        "return (async () => { const out = []; for await (const ev of iterable) out.push(ev.type); return out; })();",
    );
    let promise: js_sys::Promise = collect.call1(&JsValue::NULL, &iterable).unwrap().unchecked_into();
    let types = to_json(&resolve(promise).await);
    let types: Vec<&str> = types
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"stepStart"));
    assert_eq!(types.last(), Some(&"finish"));
    let position = |t: &str| types.iter().position(|x| *x == t).unwrap();
    assert!(position("toolCallDelta") < position("toolInvocation"));
    assert!(position("toolInvocation") < position("toolResult"));
    assert!(position("toolResult") < position("textDelta"));
    assert_eq!(types.iter().filter(|t| **t == "stepFinish").count(), 2);

    let missing = opened
        .lectern
        .stream("no-such-id".into(), "hi".into(), None)
        .expect("streams");
    let promise: js_sys::Promise = Function::new_with_args(
        "iterable",
        "return (async () => { const out = []; for await (const ev of iterable) out.push(ev.type + ':' + (ev.name || '')); return out; })();",
    )
    .call1(&JsValue::NULL, &missing)
    .unwrap()
    .unchecked_into();
    assert_eq!(to_json(&resolve(promise).await), json!(["error:NotFoundError"]));
}

#[wasm_bindgen_test]
async fn abort_reaches_a_running_tool_through_its_signal() {
    let session = MockSession::new();
    session
        .script(json!([{ "toolCalls": [{ "name": "wait", "arguments": {} }] }]))
        .await;
    let opened = open(None, provider(&session, json!({}))).await;
    register(
        &opened,
        tool(
            "wait",
            json!({ "type": "object" }),
            "return new Promise((resolve) => ctx.signal.addEventListener('abort', () => { globalThis.__toolSawAbort = true; resolve('stopped'); }));",
            json!({ "timeoutMs": 5000 }),
        ),
    );
    let id = conversation(&opened).await;
    let controller = web_sys::AbortController::new().unwrap();
    let options = js(json!({}));
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let pending = wasm_bindgen_futures::JsFuture::from(opened.lectern.send(
        id.clone().into(),
        "wait".into(),
        Some(options.unchecked_into()),
    ));
    let aborter = async {
        web::sleep(200).await;
        controller.abort();
    };
    let (outcome, ()) = futures::join!(pending, aborter);
    let error: js_sys::Error = outcome.expect_err("aborted").unchecked_into();
    assert_eq!(String::from(error.name()), "AbortError");
    assert_eq!(
        Reflect::get(&js_sys::global(), &"__toolSawAbort".into()).unwrap(),
        JsValue::TRUE
    );
    let stored = to_json(&resolve(opened.lectern.messages(id.into())).await);
    let roles: Vec<&str> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool_result"],
        "the tool step is kept, every call has its result"
    );
}

#[wasm_bindgen_test]
async fn friendly_errors_resolve_with_a_message_for_people() {
    let session = MockSession::new();
    session
        .script(json!([{ "fault": { "status": 401, "body": { "error": { "message": "bad key" } } } }]))
        .await;
    let options = js(json!({ "provider": provider(&session, json!({})), "friendlyErrors": true }));
    let lectern = lectern::wasm::Lectern::connect(options).await.unwrap();
    let conv = to_json(&resolve(lectern.create_conversation(None)).await);
    let outcome = resolve(lectern.send(conv["id"].as_str().unwrap().into(), "hi".into(), None)).await;
    assert_eq!(Reflect::get(&outcome, &"success".into()).unwrap(), JsValue::FALSE);
    let text = Reflect::get(&outcome, &"text".into())
        .unwrap()
        .as_string()
        .unwrap();
    assert!(text.contains("not set up correctly"), "{text}");
    let error: js_sys::Error = Reflect::get(&outcome, &"error".into()).unwrap().unchecked_into();
    assert_eq!(String::from(error.name()), "AuthError");
}

#[wasm_bindgen_test]
async fn working_state_and_mentions_reach_the_model_and_config_is_validated() {
    let session = MockSession::new();
    session.script(json!([{ "text": "Noted." }])).await;
    let options = js(json!({
        "provider": provider(&session, json!({})),
        "persona": { "systemPrompt": "You help {{user_id}}.", "tools": ["weather", "ghost"] },
        "userId": "ann"
    }));
    let resolver = Function::new_with_args(
        "mention",
        "return Promise.resolve('Text of ' + mention.type + ' ' + mention.id);",
    );
    Reflect::set(&options, &"resolveMention".into(), &resolver).unwrap();
    let lectern = lectern::wasm::Lectern::connect(options).await.unwrap();
    lectern
        .register_tool(tool("weather", city_schema(), "return 'ok';", json!({})).unchecked_into())
        .unwrap();
    let conv = to_json(&resolve(lectern.create_conversation(None)).await);
    let id = conv["id"].as_str().unwrap().to_owned();
    resolve(lectern.set_working_state(id.clone().into(), js(json!({ "chapter": 3 })))).await;
    assert_eq!(
        to_json(&resolve(lectern.working_state(id.clone().into())).await),
        json!({ "chapter": 3 })
    );
    let send_options = js(json!({ "mentions": [{ "type": "note", "id": "n7" }] }));
    resolve(lectern.send(id.into(), "remember".into(), Some(send_options.unchecked_into()))).await;
    let system = session.requests().await[0]["body"]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(system.starts_with("You help ann."), "{system}");
    assert!(
        system.contains("Text of note n7") && system.contains("\"chapter\": 3"),
        "{system}"
    );

    let report = to_json(&lectern.validate_config().unwrap());
    assert_eq!(report["valid"], false);
    assert_eq!(
        report["errors"],
        json!(["persona.tools names \"ghost\", which is not a registered tool"])
    );

    let bad =
        lectern.register_tool(js(json!({ "name": "no spaces allowed", "parameters": {} })).unchecked_into());
    let error: js_sys::Error = bad.expect_err("refused").unchecked_into();
    assert_eq!(String::from(error.name()), "ConfigError");
}

#[wasm_bindgen_test]
async fn cached_results_are_shared_only_within_their_scope() {
    let session = MockSession::new();
    let call = |name: &str| json!({ "toolCalls": [{ "id": "c", "name": name, "arguments": {} }] });
    session
        .script(json!([
            call("profile"), { "text": "a" }, call("profile"), { "text": "b" },
            call("profile"), { "text": "a" }, call("rate"), { "text": "r" }, call("rate"), { "text": "r" }
        ]))
        .await;
    let opened = open_with(json!({ "provider": provider(&session, json!({})) })).await;
    let object = json!({ "type": "object" });
    let counted = "globalThis.__lecternRuns = (globalThis.__lecternRuns || 0) + 1;";
    let profile = format!("{counted} return {{ user: ctx.userId }};");
    register(
        &opened,
        tool(
            "profile",
            object.clone(),
            &profile,
            json!({ "cacheTtlMs": 60000 }),
        ),
    );
    let rate = format!("{counted} return {{ rate: 1.08, asked: ctx.userId }};");
    let global = json!({ "cacheTtlMs": 60000, "cacheScope": "global" });
    register(&opened, tool("rate", object.clone(), &rate, global));
    let id = conversation(&opened).await;
    let mut seen = Vec::new();
    for user in ["alice", "bob", "alice", "alice", "bob"] {
        let options = js(json!({ "userId": user })).unchecked_into();
        let reply =
            to_json(&resolve(opened.lectern.send(id.clone().into(), "hi".into(), Some(options))).await);
        let call = &reply["toolCalls"][0];
        seen.push((
            call["resultText"].as_str().unwrap().to_owned(),
            call["cached"].as_bool().unwrap(),
        ));
    }
    let expected = [
        (r#"{"user":"alice"}"#, false),
        (r#"{"user":"bob"}"#, false),
        (r#"{"user":"alice"}"#, true),
        (r#"{"asked":"alice","rate":1.08}"#, false),
        (r#"{"asked":"alice","rate":1.08}"#, true),
    ];
    let expected: Vec<(String, bool)> = expected.iter().map(|(r, c)| (r.to_string(), *c)).collect();
    assert_eq!(
        seen, expected,
        "per user by default, shared with cacheScope 'global'"
    );
    let runs = Reflect::get(&js_sys::global(), &"__lecternRuns".into()).unwrap();
    assert_eq!(runs.as_f64(), Some(3.0));

    let bad = tool("odd", object, "return 1;", json!({ "cacheScope": "everyone" }));
    let error: js_sys::Error = opened
        .lectern
        .register_tool(bad.unchecked_into())
        .expect_err("refused")
        .unchecked_into();
    assert_eq!(String::from(error.name()), "ConfigError");
    let message = String::from(error.message());
    assert!(message.contains("everyone"), "{message}");
}

#[wasm_bindgen_test]
async fn a_long_tool_result_reaches_the_model_cut_and_the_record_keeps_it_whole() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "c1", "name": "dump", "arguments": {} }] },
            { "text": "Read it." }
        ]))
        .await;
    let options = json!({ "provider": provider(&session, json!({})), "maxToolResultChars": 20 });
    let opened = open_with(options).await;
    register(
        &opened,
        tool(
            "dump",
            json!({ "type": "object" }),
            "return 'é'.repeat(30);",
            json!({}),
        ),
    );
    let id = conversation(&opened).await;
    let reply = send(&opened, &id, "dump it").await.expect("completes");
    assert_eq!(reply["toolCalls"][0]["result"], "é".repeat(30));
    let cut = format!("{}\n\n[truncated: 20 of 30 characters shown]", "é".repeat(20));
    assert_eq!(session.tool_results(1).await, [json!(cut)]);

    let zero = js(json!({ "provider": provider(&session, json!({})), "maxToolResultChars": 0 }));
    let error: js_sys::Error = match lectern::wasm::Lectern::connect(zero).await {
        Ok(_) => panic!("maxToolResultChars: 0 was accepted"),
        Err(error) => error.unchecked_into(),
    };
    assert_eq!(String::from(error.name()), "ConfigError");
    assert!(String::from(error.message()).contains("maxToolResultChars"));
}
