//! Spend limits and usage totals through the JS API in headless Chromium:
//! `usage(conversationId)` after a reopen of IndexedDB, a `budgetPeriod`
//! stopping the next turn with a `BudgetExceededError` that carries usage,
//! a `send` budget, `deleteAllConversations` keeping books, and a turn's
//! recorded events replayed after a reopen (`recordEvents`, `replay`).

use crate::support::web;

use js_sys::Function;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{
    conversation, js, json as to_json, open_with, openai_provider, reject, resolve, send, unique, MockSession,
};

fn usage_turn(text: &str, input: u64, output: u64) -> Value {
    json!({ "text": text, "usage": { "inputTokens": input, "outputTokens": output } })
}

#[wasm_bindgen_test]
async fn usage_totals_survive_a_reopen_and_a_conversation_budget_stops_the_next_turn() {
    let session = MockSession::new();
    session
        .script(json!([
            usage_turn("one", 300, 40),
            usage_turn("two", 500, 60),
            usage_turn("three", 1, 1)
        ]))
        .await;
    let db = unique("budget");
    let options = json!({
        "dbName": db,
        "provider": openai_provider(&session, json!({ "prices": { "gpt-4o-mini": { "inputPerMTok": 1000, "outputPerMTok": 1000 } } })),
        "budgetPeriod": { "maxTokens": 950 }
    });
    let opened = open_with(options.clone()).await;
    let id = conversation(&opened).await;
    send(&opened, &id, "first").await.unwrap();
    send(&opened, &id, "second").await.unwrap();
    resolve(opened.lectern.close()).await;

    let opened = open_with(options).await;
    let totals = to_json(&resolve(opened.lectern.usage(id.clone().into())).await);
    assert_eq!(
        (
            totals["inputTokens"].clone(),
            totals["outputTokens"].clone(),
            totals["turns"].clone()
        ),
        (json!(800), json!(100), json!(2)),
        "{totals}"
    );
    assert!(
        (totals["costUsd"].as_f64().unwrap() - 0.9).abs() < 1e-9,
        "{totals}"
    );
    let error = send(&opened, &id, "third").await.unwrap_err();
    assert_eq!(String::from(error.name()), "BudgetExceededError");
    let fields = to_json(&error);
    assert_eq!(
        (
            fields["scope"].clone(),
            fields["limit"].clone(),
            fields["spent"].clone()
        ),
        (json!("conversation"), json!("tokens"), json!(900))
    );
    assert_eq!(fields["usage"]["inputTokens"], 0, "no call was made: {fields}");
    assert_eq!(session.requests().await.len(), 2);
    let missing = reject(opened.lectern.usage("nope".into())).await;
    assert_eq!(String::from(missing.name()), "NotFoundError");
    resolve(opened.lectern.close()).await;
}

#[wasm_bindgen_test]
async fn a_send_budget_stops_the_turn_after_a_tool_step_with_its_usage() {
    let session = MockSession::new();
    session
        .script(json!([
            { "toolCalls": [{ "id": "c1", "name": "lookup", "arguments": {} }], "usage": { "inputTokens": 400, "outputTokens": 100 } },
            usage_turn("never", 1, 1)
        ]))
        .await;
    let opened = open_with(json!({ "provider": openai_provider(&session, json!({})) })).await;
    let lookup = web::tool(
        "lookup",
        json!({ "type": "object" }),
        "return 'found';",
        json!({}),
    );
    web::register(&opened, lookup);
    let id = conversation(&opened).await;
    let budget = js(json!({ "budget": { "maxTokens": 600 } })).unchecked_into();
    let error = reject(
        opened
            .lectern
            .send(id.clone().into(), "look".into(), Some(budget)),
    )
    .await;
    assert_eq!(String::from(error.name()), "BudgetExceededError");
    let fields = to_json(&error);
    assert_eq!(
        (
            fields["usage"]["inputTokens"].clone(),
            fields["usage"]["outputTokens"].clone()
        ),
        (json!(400), json!(100))
    );
    assert_eq!(fields["toolCalls"][0]["result"], "found");
    let bad = js(json!({ "budget": { "maxTokens": 0 } })).unchecked_into();
    let refused = reject(opened.lectern.send(id.into(), "again".into(), Some(bad))).await;
    assert_eq!(String::from(refused.name()), "ConfigError");
}

#[wasm_bindgen_test]
async fn delete_all_conversations_empties_the_database_but_keeps_books() {
    let session = MockSession::new();
    session.script(json!([usage_turn("one", 3, 4)])).await;
    let db = unique("delete-all");
    let options = json!({ "dbName": db, "provider": openai_provider(&session, json!({})), "embedder": { "kind": "hashed" } });
    let opened = open_with(options.clone()).await;
    let id = conversation(&opened).await;
    send(&opened, &id, "first").await.unwrap();
    let book = js(json!({ "title": "Kept", "pages": ["A page."] })).unchecked_into();
    resolve(opened.lectern.add_book(book, None)).await;
    resolve(opened.lectern.delete_all_conversations()).await;
    resolve(opened.lectern.close()).await;
    let opened = open_with(options).await;
    assert_eq!(to_json(&resolve(opened.lectern.conversations()).await), json!([]));
    let gone = reject(opened.lectern.usage(id.into())).await;
    assert_eq!(String::from(gone.name()), "NotFoundError");
    let books = to_json(&resolve(opened.lectern.books()).await);
    assert_eq!(books[0]["title"], "Kept");
    resolve(opened.lectern.close()).await;
}

/// Every event an async iterable yields, as JSON.
async fn collect(iterable: JsValue) -> Vec<Value> {
    let collect = Function::new_with_args(
        "iterable",
        "return (async () => { const out = []; for await (const ev of iterable) out.push(ev); return out; })();",
    );
    let promise: js_sys::Promise = collect.call1(&JsValue::NULL, &iterable).unwrap().unchecked_into();
    to_json(&resolve(promise).await).as_array().unwrap().clone()
}

#[wasm_bindgen_test]
async fn a_recorded_turn_replays_as_it_streamed_after_a_reopen() {
    let session = MockSession::new();
    session
        .script(json!([
            usage_turn("Hello there, reader.", 12, 5),
            usage_turn("unrecorded", 1, 1)
        ]))
        .await;
    let db = unique("replay");
    let options =
        json!({ "dbName": db, "provider": openai_provider(&session, json!({})), "recordEvents": true });
    let opened = open_with(options.clone()).await;
    let id = conversation(&opened).await;
    let live = collect(
        opened
            .lectern
            .stream(id.clone().into(), "hi".into(), None)
            .unwrap(),
    )
    .await;
    assert_eq!(live.last().unwrap()["type"], "finish", "{live:?}");
    resolve(opened.lectern.close()).await;

    let opened = open_with(options).await;
    let turns = to_json(&resolve(opened.lectern.recorded_turns(id.clone().into())).await);
    let turn_id = live[0]["turnId"].as_str().unwrap();
    assert_eq!(turns, json!([turn_id]));
    let replayed = collect(opened.lectern.replay(turn_id.into()).unwrap()).await;
    assert_eq!(replayed, live, "the same events, in the same order");
    assert!(collect(opened.lectern.replay("nope".into()).unwrap())
        .await
        .is_empty());
    resolve(opened.lectern.close()).await;

    // Off: nothing is kept.
    let plain = open_with(json!({ "provider": openai_provider(&session, json!({})) })).await;
    let id = conversation(&plain).await;
    send(&plain, &id, "again").await.unwrap();
    let turns = to_json(&resolve(plain.lectern.recorded_turns(id.into())).await);
    assert_eq!(turns, json!([]));
}
