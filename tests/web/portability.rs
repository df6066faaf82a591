//! `exportConversation` / `importConversation` through the JS API in headless
//! Chromium over IndexedDB: export, `deleteAllConversations`, import, and the
//! same messages (with the paused turn still resolvable); a bad import
//! rejects with `ImportError` and stores nothing.

use crate::support::web;

use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{
    conversation, js, json as to_json, open_with, openai_provider, register, reject, resolve, send, tool,
    unique, MockSession, Opened,
};

async fn open_db(session: &MockSession, db: &str) -> Opened {
    let opened = open_with(json!({
        "dbName": db,
        "provider": openai_provider(session, json!({})),
        "approvals": { "tools": { "write_file": "ask" } }
    }))
    .await;
    register(
        &opened,
        tool(
            "lookup",
            json!({ "type": "object" }),
            "return 'found';",
            json!({ "readOnly": true }),
        ),
    );
    let write = "globalThis.portabilityWrites = (globalThis.portabilityWrites || 0) + 1; return 'written';";
    register(
        &opened,
        tool("write_file", json!({ "type": "object" }), write, json!({})),
    );
    opened
}

async fn export(opened: &Opened, id: &str, format: &str) -> Value {
    let options = js(json!({ "format": format })).unchecked_into();
    to_json(&resolve(opened.lectern.export_conversation(id.into(), Some(options))).await)
}

async fn import(opened: &Opened, data: JsValue) -> String {
    let conversation = to_json(&resolve(opened.lectern.import_conversation(data)).await);
    conversation["id"].as_str().unwrap().to_owned()
}

async fn messages(opened: &Opened, id: &str) -> Value {
    to_json(&resolve(opened.lectern.messages(id.into())).await)
}

/// `messages()` without the ids an import replaces.
fn without_ids(mut messages: Value) -> Value {
    for message in messages.as_array_mut().unwrap() {
        let message = message.as_object_mut().unwrap();
        message.remove("id");
        message.remove("conversationId");
    }
    messages
}

#[wasm_bindgen_test]
async fn export_delete_all_import_gives_the_same_messages_and_a_resolvable_turn() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "c1", "name": "lookup", "arguments": {} }] },
            { "text": "Found it." },
            { "toolCalls": [{ "id": "c2", "name": "write_file", "arguments": { "path": "a" } }] },
            { "text": "Wrote it." }
        ]))
        .await;
    let db = unique("portability");
    let opened = open_db(&session, &db).await;
    let id = conversation(&opened).await;
    send(&opened, &id, "look it up").await.unwrap();
    let paused = send(&opened, &id, "write it").await.unwrap();
    assert_eq!(paused["status"], "awaitingApproval", "{paused}");
    let before = messages(&opened, &id).await;
    let bundle = export(&opened, &id, "lectern").await;
    let chat = export(&opened, &id, "openai").await;
    assert_eq!(chat[1]["tool_calls"][0]["function"]["name"], "lookup", "{chat}");

    resolve(opened.lectern.delete_all_conversations()).await;
    assert_eq!(to_json(&resolve(opened.lectern.conversations()).await), json!([]));
    let copy = import(&opened, js(bundle.clone())).await;
    assert_ne!(copy, id);
    assert_eq!(
        without_ids(messages(&opened, &copy).await),
        without_ids(before.clone())
    );
    let usage = to_json(&resolve(opened.lectern.usage(copy.clone().into())).await);
    assert_eq!(usage["turns"], bundle["usage"]["turns"]);

    // The paused turn came along and resolves through the normal API.
    let waiting = to_json(&resolve(opened.lectern.pending_approvals(Some(copy.clone()))).await);
    let turn_id = waiting[0]["turnId"].as_str().unwrap();
    let decisions = js(json!([{ "callId": "c2", "decision": "approve" }])).unchecked_into();
    let done = to_json(&resolve(opened.lectern.resolve_approvals(turn_id.into(), decisions, None)).await);
    assert_eq!(done["text"], "Wrote it.", "{done}");

    // The OpenAI array imports to the same history.
    let from_chat = import(&opened, js(chat.clone())).await;
    assert_eq!(export(&opened, &from_chat, "openai").await, chat);
    resolve(opened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn a_bad_import_rejects_with_import_error_and_stores_nothing() {
    let session = MockSession::new();
    let opened = open_db(&session, &unique("portability-bad")).await;
    let id = conversation(&opened).await;
    let before = to_json(&resolve(opened.lectern.conversations()).await);
    let unanswered = json!([
        { "role": "user", "content": "hi" },
        { "role": "tool", "tool_call_id": "call_9", "content": "ok" }
    ]);
    let error = reject(opened.lectern.import_conversation(js(unanswered))).await;
    assert_eq!(String::from(error.name()), "ImportError");
    assert_eq!(to_json(&error)["path"], "messages[1].tool_call_id");
    let error = reject(opened.lectern.import_conversation(JsValue::UNDEFINED)).await;
    assert_eq!(
        (String::from(error.name()), to_json(&error)["path"].clone()),
        ("ImportError".into(), json!(""))
    );
    let mut bundle = export(&opened, &id, "lectern").await;
    bundle["version"] = json!(9);
    let error = reject(opened.lectern.import_conversation(js(bundle))).await;
    assert_eq!(to_json(&error)["path"], "version");
    assert_eq!(to_json(&resolve(opened.lectern.conversations()).await), before);

    let missing = reject(opened.lectern.export_conversation("nope".into(), None)).await;
    assert_eq!(String::from(missing.name()), "NotFoundError");
    let options = js(json!({ "format": "yaml" })).unchecked_into();
    let bad = reject(opened.lectern.export_conversation(id.into(), Some(options))).await;
    assert_eq!(String::from(bad.name()), "ConfigError");
    resolve(opened.lectern.close()).await;
}
