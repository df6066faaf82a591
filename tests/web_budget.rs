//! Spend limits and usage totals through the JS API in headless Chromium:
//! `usage(conversationId)` after a reopen of IndexedDB, a `budgetPeriod`
//! stopping the next turn with a `BudgetExceededError` that carries usage,
//! a `send` budget, and `deleteAllConversations` keeping books.
#![cfg(target_arch = "wasm32")]

mod web_support;

use serde_json::{json, Value};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_support::{
    conversation, js, json as to_json, open_with, openai_provider, reject, resolve, send, unique, MockSession,
};

wasm_bindgen_test_configure!(run_in_browser);

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
    let lookup = web_support::tool(
        "lookup",
        json!({ "type": "object" }),
        "return 'found';",
        json!({}),
    );
    web_support::register(&opened, lookup);
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
