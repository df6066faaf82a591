//! Two tabs on one database in headless Chromium — two `Lectern` instances on
//! one IndexedDB database — sending to one conversation: a Web Lock per
//! conversation keeps their turns apart, and `limits.lockWaitMs` bounds the
//! wait for the other tab.

use crate::support::web;

use std::cell::Cell;

use js_sys::Function;
use lectern::web::IndexedDbStore;
use serde_json::json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web::{
    conversation, json as to_json, open_with, openai_provider, resolve, roles_and_contents, send, unique,
    MockSession,
};

#[wasm_bindgen_test]
async fn two_tabs_sending_at_the_same_moment_take_turns() {
    let session = MockSession::new();
    session
        .script(json!([
            { "text": "first answer", "delayMs": 300 },
            { "text": "second answer", "delayMs": 300 }
        ]))
        .await;
    let db = unique("db-tabs");
    let options = json!({ "dbName": db, "provider": openai_provider(&session, json!({})) });
    let tab_a = open_with(options.clone()).await;
    let tab_b = open_with(options).await;
    let id = conversation(&tab_a).await;
    let (one, two) = futures::join!(send(&tab_a, &id, "one"), send(&tab_b, &id, "two"));
    assert_eq!(one.expect("tab a answered")["text"], "first answer");
    assert_eq!(two.expect("tab b answered")["text"], "second answer");
    let messages = to_json(&resolve(tab_b.lectern.messages(id.clone().into())).await);
    let stored = roles_and_contents(&messages);
    assert_eq!(
        stored,
        [
            ("user", "one"),
            ("assistant", "first answer"),
            ("user", "two"),
            ("assistant", "second answer")
        ],
        "strictly one turn after the other"
    );
    // The second turn's model call saw the first turn whole.
    let requests = session.requests().await;
    assert_eq!(requests[1]["body"]["messages"].as_array().unwrap().len(), 4);
    resolve(tab_a.lectern.close()).await;
    resolve(tab_b.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_tab_waits_for_the_other_no_longer_than_lock_wait_ms() {
    let session = MockSession::new();
    session
        .script(json!([
            { "text": "slow answer", "delayMs": 1500 },
            { "text": "later answer" }
        ]))
        .await;
    let db = unique("db-tabs-busy");
    let provider = openai_provider(&session, json!({}));
    let tab_a = open_with(json!({ "dbName": db, "provider": provider })).await;
    let tab_b =
        open_with(json!({ "dbName": db, "provider": provider, "limits": { "lockWaitMs": 200 } })).await;
    let id = conversation(&tab_a).await;
    let a_done = Cell::new(false);
    let first = async {
        let outcome = send(&tab_a, &id, "one").await;
        a_done.set(true);
        outcome
    };
    let second = async {
        web::sleep(50).await;
        let outcome = send(&tab_b, &id, "two").await;
        (outcome, a_done.get())
    };
    let (one, (two, a_was_done)) = futures::join!(first, second);
    assert_eq!(one.expect("tab a answered")["text"], "slow answer");
    let busy = two.expect_err("tab b gave up waiting");
    assert_eq!(String::from(busy.name()), "ConversationBusyError");
    assert!(!a_was_done, "tab b gave up while tab a's turn still ran");
    // The withdrawn request holds nothing: tab b can take the conversation now.
    let later = send(&tab_b, &id, "three")
        .await
        .expect("the conversation is free");
    assert_eq!(later["text"], "later answer");
    let messages = to_json(&resolve(tab_a.lectern.messages(id.clone().into())).await);
    assert_eq!(
        messages.as_array().unwrap().len(),
        4,
        "the refused message was not stored"
    );
    resolve(tab_a.lectern.close()).await;
    resolve(tab_b.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}

/// Hides `navigator.locks` (as a browser without Web Locks would) until `restore()` is called.
fn hide_web_locks() -> Function {
    Function::new_no_args(
        r#"
        Object.defineProperty(navigator, 'locks', { get: () => undefined, configurable: true });
        return () => delete navigator.locks;
        "#,
    )
    .call0(&JsValue::NULL)
    .unwrap()
    .unchecked_into()
}

#[wasm_bindgen_test]
async fn without_web_locks_turns_queue_in_the_tab_and_one_warning_says_tabs_are_not_kept_apart() {
    let session = MockSession::new();
    session
        .script(json!([
            { "text": "first answer", "delayMs": 200 },
            { "text": "second answer" }
        ]))
        .await;
    let restore = hide_web_locks();
    let db = unique("db-nolocks");
    let opened = open_with(json!({ "dbName": db, "provider": openai_provider(&session, json!({})) })).await;
    let id = conversation(&opened).await;
    let (one, two) = futures::join!(send(&opened, &id, "one"), send(&opened, &id, "two"));
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(one.expect("first")["text"], "first answer");
    assert_eq!(two.expect("second")["text"], "second answer");
    let warnings = opened.events_of("warning");
    assert_eq!(warnings.len(), 1, "one warning for the instance: {warnings:?}");
    assert_eq!(warnings[0]["code"], "webLocksUnavailable");
    assert!(warnings[0]["message"].as_str().unwrap().contains("other tabs"));
    resolve(opened.lectern.close()).await;
    IndexedDbStore::delete_database(&db).await.unwrap();
}
