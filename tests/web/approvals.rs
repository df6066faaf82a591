//! Human in the loop through the JS API in headless Chromium: a paused turn
//! survives closing and reopening IndexedDB, approve and edit run the tool
//! exactly once, a paused conversation refuses new messages, policy
//! functions, tool-call records and headless runs.

use crate::support::web;

use js_sys::{Function, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{
    conversation, js, json as to_json, open_with, open_with_js, openai_provider, register, reject, resolve,
    send, tool, unique, MockSession, Opened,
};

fn path_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "path": { "type": "string" }, "text": { "type": "string" } },
        "required": ["path"],
        "additionalProperties": false
    })
}

/// Registers `write_file`, which counts its runs in `globalThis[counter]` and records its arguments.
fn register_writer(opened: &Opened, counter: &str) {
    let body = format!(
        "const runs = (globalThis['{counter}'] ||= []); runs.push(args); return {{ written: args.path }};"
    );
    register(opened, tool("write_file", path_schema(), &body, json!({})));
}

fn runs_of(counter: &str) -> Vec<Value> {
    let runs = Reflect::get(&js_sys::global(), &counter.into()).unwrap();
    if runs.is_undefined() {
        Vec::new()
    } else {
        to_json(&runs).as_array().unwrap().clone()
    }
}

async fn open_db(session: &MockSession, db: &str, counter: &str) -> Opened {
    let opened = open_with(json!({
        "dbName": db,
        "provider": openai_provider(session, json!({})),
        "approvals": { "tools": { "write_file": "ask" } }
    }))
    .await;
    register_writer(&opened, counter);
    opened
}

async fn resolve_approvals(opened: &Opened, turn_id: &str, decisions: Value) -> Result<Value, js_sys::Error> {
    let promise = opened
        .lectern
        .resolve_approvals(turn_id.into(), js(decisions).unchecked_into(), None);
    match wasm_bindgen_futures::JsFuture::from(promise).await {
        Ok(value) => Ok(to_json(&value)),
        Err(error) => Err(error.dyn_into().unwrap()),
    }
}

async fn pending(opened: &Opened, conversation_id: Option<&str>) -> Value {
    to_json(
        &resolve(
            opened
                .lectern
                .pending_approvals(conversation_id.map(str::to_owned)),
        )
        .await,
    )
}

/// Sends, closes the database, reopens it, finds the pending turn and decides it with `decision`.
async fn pause_reload_and_decide(decision: Value, expected_args: Value) {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "call_w", "name": "write_file", "arguments": { "path": "notes.txt", "text": "hi" } }] },
            { "text": "The file is written." }
        ]))
        .await;
    let db = unique("approvals");
    let counter = unique("runs");
    let first = open_db(&session, &db, &counter).await;
    let id = conversation(&first).await;
    let paused = send(&first, &id, "write my notes").await.unwrap();
    assert_eq!(paused["status"], "awaitingApproval");
    assert_eq!(paused["pending"][0]["callId"], "call_w");
    assert_eq!(
        paused["pending"][0]["arguments"],
        json!({ "path": "notes.txt", "text": "hi" })
    );
    let turn_id = paused["turnId"].as_str().unwrap().to_owned();
    let requested = first.events_of("approvalRequested");
    assert_eq!(requested.len(), 1);
    assert_eq!(requested[0]["turnId"], turn_id.as_str());
    assert!(runs_of(&counter).is_empty(), "nothing ran before the decision");
    resolve(first.lectern.close()).await;
    drop(first);

    let second = open_db(&session, &db, &counter).await;
    let listed = pending(&second, None).await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["turnId"], turn_id.as_str());
    assert_eq!(listed[0]["conversationId"], id.as_str());
    assert_eq!(listed[0]["calls"][0]["toolName"], "write_file");
    assert!(listed[0]["expiresAt"].as_f64().unwrap() > listed[0]["createdAt"].as_f64().unwrap());

    let mut choice = json!({ "callId": "call_w" });
    choice
        .as_object_mut()
        .unwrap()
        .extend(decision.as_object().unwrap().clone());
    let done = resolve_approvals(&second, &turn_id, json!([choice]))
        .await
        .unwrap();
    assert_eq!(done["status"], "completed");
    assert_eq!(done["text"], "The file is written.");
    assert_eq!(
        runs_of(&counter),
        std::slice::from_ref(&expected_args),
        "the tool ran exactly once"
    );

    // The model saw the call with the arguments that ran, and its result.
    let requests = session.requests().await;
    assert_eq!(requests.len(), 2);
    let messages = &requests[1]["body"]["messages"];
    let call = &messages[2]["tool_calls"][0];
    assert_eq!(call["id"], "call_w");
    let sent: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(sent, expected_args);
    assert_eq!(messages[3]["role"], "tool");

    let twice = resolve_approvals(&second, &turn_id, json!([choice]))
        .await
        .unwrap_err();
    assert_eq!(String::from(twice.name()), "AlreadyResolvedError");
    assert_eq!(runs_of(&counter).len(), 1, "still once");
    assert_eq!(pending(&second, Some(&id)).await, json!([]));

    let records = to_json(&resolve(second.lectern.tool_calls(id.clone().into())).await);
    assert_eq!(records.as_array().unwrap().len(), 1);
    let record = &records[0];
    let decided = if decision["decision"] == "edit" {
        "edited"
    } else {
        "approved"
    };
    assert_eq!(record["decision"], decided);
    // Objects, as the toolInvocation event's, with the JSON text beside them.
    assert_eq!(
        record["originalArguments"],
        json!({ "path": "notes.txt", "text": "hi" })
    );
    assert_eq!(record["arguments"], expected_args);
    let ran_text: Value = serde_json::from_str(record["argumentsText"].as_str().unwrap()).unwrap();
    let original_text: Value =
        serde_json::from_str(record["originalArgumentsText"].as_str().unwrap()).unwrap();
    assert_eq!(
        (ran_text, original_text),
        (expected_args.clone(), record["originalArguments"].clone())
    );
    assert!(record["durationMs"].as_f64().is_some() && record["startedAt"].as_f64().is_some());
    resolve(second.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn a_paused_turn_survives_a_reopen_and_an_approval_runs_the_tool_once() {
    pause_reload_and_decide(
        json!({ "decision": "approve" }),
        json!({ "path": "notes.txt", "text": "hi" }),
    )
    .await;
}

#[wasm_bindgen_test]
async fn an_edit_after_a_reopen_runs_the_edited_arguments_once() {
    pause_reload_and_decide(
        json!({ "decision": "edit", "arguments": { "path": "notes-v2.txt", "text": "hi" } }),
        json!({ "path": "notes-v2.txt", "text": "hi" }),
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_paused_conversation_refuses_a_new_send_until_cancelled() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "call_w", "name": "write_file", "arguments": { "path": "a.txt", "text": "x" } }] },
            { "text": "Fine, I will not write it." }
        ]))
        .await;
    let db = unique("approvals");
    let counter = unique("runs");
    let opened = open_db(&session, &db, &counter).await;
    let id = conversation(&opened).await;
    let paused = send(&opened, &id, "write a").await.unwrap();
    let turn_id = paused["turnId"].as_str().unwrap().to_owned();

    let refused = send(&opened, &id, "are you there?").await.unwrap_err();
    assert_eq!(String::from(refused.name()), "ApprovalPendingError");
    assert_eq!(
        to_json(&Reflect::get(&refused, &"turnId".into()).unwrap()),
        json!(turn_id)
    );
    assert_eq!(
        session.requests().await.len(),
        1,
        "the refused send reached no model"
    );

    let bad_edit = resolve_approvals(
        &opened,
        &turn_id,
        json!([{ "callId": "call_w", "decision": "edit", "arguments": { "path": 3 } }]),
    )
    .await
    .unwrap_err();
    assert_eq!(String::from(bad_edit.name()), "InvalidArgumentsError");
    let wrong_call = resolve_approvals(
        &opened,
        &turn_id,
        json!([{ "callId": "nope", "decision": "approve" }]),
    )
    .await
    .unwrap_err();
    assert_eq!(String::from(wrong_call.name()), "CallNotPendingError");

    resolve(opened.lectern.cancel_pending(turn_id.clone().into())).await;
    assert!(runs_of(&counter).is_empty());
    let answer = send(&opened, &id, "never mind").await.unwrap();
    assert_eq!(answer["text"], "Fine, I will not write it.");
    let cancel_again = reject(opened.lectern.cancel_pending(turn_id.into())).await;
    assert_eq!(String::from(cancel_again.name()), "AlreadyResolvedError");
    let records = to_json(&resolve(opened.lectern.tool_calls(id.into())).await);
    assert_eq!(records[0]["decision"], "cancelled");
    resolve(opened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn a_policy_function_asks_for_writes_and_rejections_reach_the_model() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [
                { "id": "call_r", "name": "file", "arguments": { "path": "a.txt" } },
                { "id": "call_w", "name": "file", "arguments": { "path": "a.txt", "text": "new" } }
            ] },
            { "text": "I read it and left it unchanged." }
        ]))
        .await;
    let counter = unique("runs");
    let options = js(json!({
        "provider": openai_provider(&session, json!({})),
        "approvals": { "default": "deny", "tools": {} }
    }));
    let policy = Function::new_with_args(
        "args, ctx",
        "return ctx.toolName === 'file' && args.text === undefined ? 'auto' : 'ask';",
    );
    let tools = Reflect::get(
        &Reflect::get(&options, &"approvals".into()).unwrap(),
        &"tools".into(),
    )
    .unwrap();
    Reflect::set(&tools, &"file".into(), &policy).unwrap();
    let opened = open_with_js(options).await;
    let body = format!("(globalThis['{counter}'] ||= []).push(args); return 'contents of ' + args.path;");
    register(&opened, tool("file", path_schema(), &body, json!({})));
    let id = conversation(&opened).await;
    let paused = send(&opened, &id, "check a.txt").await.unwrap();
    assert_eq!(paused["status"], "awaitingApproval");
    assert_eq!(paused["pending"].as_array().unwrap().len(), 1);
    assert_eq!(paused["pending"][0]["callId"], "call_w");
    assert_eq!(
        runs_of(&counter),
        [json!({ "path": "a.txt" })],
        "the read ran without asking"
    );
    let done = resolve_approvals(
        &opened,
        paused["turnId"].as_str().unwrap(),
        json!([{ "callId": "call_w", "decision": "reject", "reason": "keep it" }]),
    )
    .await
    .unwrap();
    assert_eq!(done["text"], "I read it and left it unchanged.");
    assert_eq!(runs_of(&counter).len(), 1);
    let tool_messages: Vec<Value> = session.tool_results(1).await;
    assert_eq!(tool_messages[1], "User rejected this action: keep it");
}

#[wasm_bindgen_test]
async fn a_headless_run_completes_and_is_kept_for_review() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "call_w", "name": "write_file", "arguments": { "path": "r.txt", "text": "r" } }] },
            { "text": "Report saved." }
        ]))
        .await;
    let db = unique("runs-db");
    let counter = unique("runs");
    let opened = open_db(&session, &db, &counter).await;
    let run = to_json(
        &resolve(opened.lectern.run_headless(
            js(json!({ "instruction": "save the report", "maxIterations": 3 })).unchecked_into(),
        ))
        .await,
    );
    assert_eq!(
        run["status"], "proposed",
        "a tool that is not read-only ran: {run}"
    );
    assert_eq!(run["text"], "Report saved.");
    assert_eq!(run["error"], Value::Null);
    assert_eq!(run["log"].as_array().unwrap().len(), 4);
    assert_eq!(run["toolCalls"][0]["decision"], "auto");
    assert_eq!(runs_of(&counter).len(), 1, "ask was auto-approved");
    let run_id = run["runId"].as_str().unwrap().to_owned();
    resolve(opened.lectern.close()).await;

    let reopened = open_db(&session, &db, &counter).await;
    let stored = to_json(&resolve(reopened.lectern.run(run_id.clone().into())).await);
    assert_eq!(stored, run);
    let all = to_json(&resolve(reopened.lectern.runs()).await);
    assert_eq!(all.as_array().unwrap().len(), 1);
    let missing = reject(reopened.lectern.run("nope".into())).await;
    assert_eq!(String::from(missing.name()), "NotFoundError");
    let reviewed = to_json(
        &resolve(reopened.lectern.review_run(
            run_id.clone().into(),
            "reject".into(),
            "not this report".into(),
        ))
        .await,
    );
    assert_eq!(reviewed["status"], "rejected");
    assert_eq!(reviewed["review"]["note"], "not this report");
    assert_eq!(reviewed["log"], run["log"], "the log is kept");
    let stored = to_json(&resolve(reopened.lectern.run(run_id.clone().into())).await);
    assert_eq!(stored, reviewed);
    let twice = reject(
        reopened
            .lectern
            .review_run(run_id.into(), "accept".into(), JsValue::UNDEFINED),
    )
    .await;
    assert_eq!(String::from(twice.name()), "ConfigError");
    let bad = reject(
        reopened
            .lectern
            .run_headless(js(json!({ "instruction": "" })).unchecked_into()),
    )
    .await;
    assert_eq!(String::from(bad.name()), "ConfigError");
    resolve(reopened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn two_tabs_resolving_at_once_run_the_tool_once() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "call_w", "name": "write_file", "arguments": { "path": "a.txt", "text": "x" } }] },
            { "text": "Written once." }
        ]))
        .await;
    let db = unique("approvals");
    let counter = unique("runs");
    // Two connections to one database: two tabs of the same site.
    let tab_a = open_db(&session, &db, &counter).await;
    let tab_b = open_db(&session, &db, &counter).await;
    let id = conversation(&tab_a).await;
    let paused = send(&tab_a, &id, "write a").await.unwrap();
    let turn_id = paused["turnId"].as_str().unwrap().to_owned();
    let approve = json!([{ "callId": "call_w", "decision": "approve" }]);
    let (a, b) = futures::join!(
        resolve_approvals(&tab_a, &turn_id, approve.clone()),
        resolve_approvals(&tab_b, &turn_id, approve.clone())
    );
    let (won, lost) = match (a, b) {
        (Ok(won), Err(lost)) | (Err(lost), Ok(won)) => (won, lost),
        (a, b) => panic!("exactly one tab should win: {a:?} / {b:?}"),
    };
    assert_eq!(won["text"], "Written once.");
    assert_eq!(String::from(lost.name()), "AlreadyResolvedError");
    assert_eq!(runs_of(&counter).len(), 1, "the tool ran once");
    resolve(tab_a.lectern.close()).await;
    resolve(tab_b.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn a_turn_pauses_twice_with_an_auto_tool_beside_and_runs_each_tool_once() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "w1", "name": "write_file", "arguments": { "path": "a.txt", "text": "1" } }] },
            { "toolCalls": [
                { "id": "r2", "name": "read_file", "arguments": { "path": "a.txt" } },
                { "id": "w2", "name": "write_file", "arguments": { "path": "b.txt", "text": "2" } }
            ] },
            { "text": "Both files are written." }
        ]))
        .await;
    let db = unique("twice");
    let counter = unique("runs");
    let reads = unique("reads");
    let open = || async {
        let opened = open_db(&session, &db, &counter).await;
        let body = format!("(globalThis['{reads}'] ||= []).push(args); return {{ read: args.path }};");
        register(
            &opened,
            tool("read_file", path_schema(), &body, json!({ "readOnly": true })),
        );
        opened
    };
    let first = open().await;
    let id = conversation(&first).await;
    let paused = send(&first, &id, "write two files").await.unwrap();
    let turn_id = paused["turnId"].as_str().unwrap().to_owned();
    let again = resolve_approvals(
        &first,
        &turn_id,
        json!([{ "callId": "w1", "decision": "approve" }]),
    )
    .await
    .unwrap();
    assert_eq!(again["status"], "awaitingApproval", "{again}");
    assert_eq!(again["turnId"], turn_id.as_str());
    assert_eq!(again["pending"][0]["callId"], "w2");
    assert_eq!(runs_of(&reads).len(), 1, "the auto tool ran once");
    resolve(first.lectern.close()).await;
    drop(first);

    let second = open().await;
    let listed = pending(&second, Some(&id)).await;
    assert_eq!(listed[0]["calls"][0]["callId"], "w2", "{listed}");
    let done = resolve_approvals(
        &second,
        &turn_id,
        json!([{ "callId": "w2", "decision": "approve" }]),
    )
    .await
    .unwrap();
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["text"], "Both files are written.");
    assert_eq!(runs_of(&counter).len(), 2, "each write ran once");
    assert_eq!(runs_of(&reads).len(), 1, "the read ran once");
    let records = to_json(&resolve(second.lectern.tool_calls(id.as_str().into())).await);
    let ids: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["w1", "r2", "w2"], "every record kept");
    assert_eq!(session.requests().await.len(), 3);
}
