//! IndexedDB between tabs, in headless Chromium: a newer version opened
//! elsewhere closes this connection (`storageClosed`, then `closed` errors), an
//! upgrade blocked by a connection that never closes rejects in bounded time,
//! and a failing upgrade step leaves the database at its old version, intact.

use crate::support::web;

use std::future::{Future, IntoFuture};

use futures::future::{select, Either};
use idb::{DatabaseEvent, Factory, KeyPath, ObjectStoreParams, TransactionMode};
use lectern::error::StorageReason;
use lectern::storage::{Store, StoreArchive};
use lectern::wasm::Lectern;
use lectern::web::{IndexedDbOptions, IndexedDbStore, INDEXEDDB_SCHEMA_VERSION};
use serde_json::json;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web::{js, json as to_json, open, reject, sleep, unique, MockSession};

/// `work`'s output, or `None` if it has not finished after `ms` (a hang fails the test instead of stalling it).
async fn within<T>(ms: i32, work: impl Future<Output = T>) -> Option<T> {
    match select(Box::pin(work), Box::pin(sleep(ms))).await {
        Either::Left((value, _)) => Some(value),
        Either::Right(_) => None,
    }
}

/// The `reason` property of a rejection.
fn reason(error: &JsValue) -> String {
    js_sys::Reflect::get(error, &"reason".into())
        .ok()
        .and_then(|r| r.as_string())
        .unwrap_or_default()
}

/// A raw connection at version 1 (the first release's schema) holding one
/// conversation; it does not close on `versionchange`, like a stale tab.
async fn version_1_with_a_conversation(name: &str) -> idb::Database {
    let factory = Factory::new().unwrap();
    let mut request = factory.open(name, Some(1)).unwrap();
    request.on_upgrade_needed(|event| {
        let db = event.database().unwrap();
        let mut params = ObjectStoreParams::new();
        params.key_path(Some(KeyPath::new_single("id")));
        db.create_object_store("conversations", params).unwrap();
        let mut params = ObjectStoreParams::new();
        params.key_path(Some(KeyPath::new_array(["conversationId", "seq"])));
        db.create_object_store("messages", params).unwrap();
    });
    let db = request.await.unwrap();
    let tx = db
        .transaction(&["conversations"], TransactionMode::ReadWrite)
        .unwrap();
    let record = js(json!({"id": "old", "title": "From v1", "createdAt": 1.0}));
    tx.object_store("conversations")
        .unwrap()
        .put(&record, None)
        .unwrap()
        .await
        .unwrap();
    tx.commit().unwrap().await.unwrap();
    db
}

/// Opens `name` at whatever version it has: (version, sorted store names, conversation titles).
async fn inspect(name: &str) -> (u32, Vec<String>, Vec<String>) {
    let db = Factory::new().unwrap().open(name, None).unwrap().await.unwrap();
    let version = db.version().unwrap();
    let mut stores = db.store_names();
    stores.sort();
    let mut titles = Vec::new();
    if stores.iter().any(|s| s == "conversations") {
        let tx = db
            .transaction(&["conversations"], TransactionMode::ReadOnly)
            .unwrap();
        let all = tx
            .object_store("conversations")
            .unwrap()
            .get_all(None, None)
            .unwrap()
            .await
            .unwrap();
        titles = all
            .iter()
            .map(|c| to_json(c)["title"].as_str().unwrap().to_owned())
            .collect();
    }
    db.close();
    (version, stores, titles)
}

/// Opens `name` one version above ours, as a newer release in another tab would.
async fn open_newer(name: &str) -> Option<idb::Database> {
    let request = Factory::new()
        .unwrap()
        .open(name, Some(INDEXEDDB_SCHEMA_VERSION + 1))
        .unwrap();
    within(3000, request.into_future())
        .await
        .map(|db| db.expect("the newer open succeeds"))
}

#[wasm_bindgen_test]
async fn a_newer_version_elsewhere_closes_this_connection_and_says_so() {
    let session = MockSession::new();
    let name = unique("versionchange");
    let opened = open(Some(&name), web::openai_provider(&session, json!({}))).await;
    let conversation = web::conversation(&opened).await;

    let newer = open_newer(&name)
        .await
        .expect("the old connection closes itself instead of blocking the newer tab");
    let closed = opened.events_of("storageClosed");
    assert_eq!(
        closed,
        [
            json!({"type": "storageClosed", "dbName": name, "reason": "versionChange", "newVersion": INDEXEDDB_SCHEMA_VERSION + 1})
        ]
    );
    for call in [
        opened.lectern.conversations(),
        opened.lectern.messages(conversation.clone().into()),
        opened.lectern.create_conversation(None),
    ] {
        let error = reject(call).await;
        assert_eq!(String::from(error.name()), "StorageError");
        assert_eq!(reason(&error), "closed", "{:?}", error.message());
    }
    assert_eq!(newer.version().unwrap(), INDEXEDDB_SCHEMA_VERSION + 1);
    newer.close();

    // This code, opening the database a newer release left behind, is told why it cannot.
    let options = js(json!({ "dbName": name, "provider": web::openai_provider(&session, json!({})) }));
    let error = match Lectern::connect(options).await {
        Ok(_) => panic!("an older schema cannot open a newer database"),
        Err(error) => error,
    };
    assert_eq!(reason(&error), "version");
    IndexedDbStore::delete_database(&name).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_store_closed_by_another_connection_or_by_close_refuses_calls_as_closed() {
    let name = unique("closed");
    let store = IndexedDbStore::open(&name).await.unwrap();
    let newer = open_newer(&name).await.expect("not blocked");
    assert!(store.is_closed());
    for error in [
        store.conversations().await.expect_err("closed"),
        store.conversation("x").await.expect_err("closed"),
        store.recent_messages("x", None, 10).await.expect_err("closed"),
        store.has_pending_turns("x").await.expect_err("closed"),
        store.has_open_turns("x").await.expect_err("closed"),
    ] {
        assert_eq!(error.storage_reason(), Some(StorageReason::Closed), "{error}");
    }
    newer.close();
    IndexedDbStore::delete_database(&name).await.unwrap();

    let other = unique("closed-by-close");
    let store = IndexedDbStore::open(&other).await.unwrap();
    store.close();
    for error in [
        store.runs().await.expect_err("closed"),
        store.recent_messages("x", None, 10).await.expect_err("closed"),
    ] {
        assert_eq!(error.storage_reason(), Some(StorageReason::Closed), "{error}");
    }
    drop(store);
    IndexedDbStore::delete_database(&other).await.unwrap();
}

#[wasm_bindgen_test]
async fn an_upgrade_blocked_by_a_tab_that_never_closes_rejects_within_the_bound() {
    let session = MockSession::new();
    let name = unique("blocked");
    let stale = version_1_with_a_conversation(&name).await;

    let options = js(json!({
        "dbName": name,
        "provider": web::openai_provider(&session, json!({})),
        "blockedTimeoutMs": 300,
    }));
    let started = js_sys::Date::now();
    let outcome = within(3000, Lectern::connect(options))
        .await
        .expect("a blocked open gives up after blockedTimeoutMs");
    let waited = js_sys::Date::now() - started;
    let error = match outcome {
        Ok(_) => panic!("the upgrade cannot happen while the stale tab holds the database"),
        Err(error) => error,
    };
    let error: js_sys::Error = error.into();
    assert_eq!(String::from(error.name()), "StorageError");
    assert_eq!(reason(&error), "blocked", "{:?}", error.message());
    assert!((300.0..2500.0).contains(&waited), "waited {waited} ms");

    // When the stale tab finally closes, the abandoned open changes nothing.
    stale.close();
    sleep(100).await;
    let (version, stores, titles) = inspect(&name).await;
    assert_eq!(
        (version, stores, titles),
        (
            1,
            vec!["conversations".into(), "messages".into()],
            vec!["From v1".into()]
        )
    );
    IndexedDbStore::delete_database(&name).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_failing_upgrade_step_leaves_the_old_version_intact() {
    let name = unique("failing-upgrade");
    version_1_with_a_conversation(&name).await.close();

    let failing = IndexedDbOptions {
        fail_upgrade_to: Some(INDEXEDDB_SCHEMA_VERSION),
        ..IndexedDbOptions::default()
    };
    let error = IndexedDbStore::open_with(&name, &failing)
        .await
        .expect_err("the upgrade fails");
    assert_eq!(error.storage_reason(), Some(StorageReason::Upgrade), "{error}");

    let (version, stores, titles) = inspect(&name).await;
    assert_eq!(version, 1, "the version change was rolled back");
    assert_eq!(stores, ["conversations", "messages"], "no step of it was kept");
    assert_eq!(titles, ["From v1"]);

    let store = IndexedDbStore::open(&name)
        .await
        .expect("a working upgrade still applies");
    assert_eq!(store.conversation("old").await.unwrap().unwrap().title, "From v1");
    drop(store);
    IndexedDbStore::delete_database(&name).await.unwrap();
}

/// A write whose future is dropped midway — a turn cut off by its time limit
/// while its step is being stored — must leave nothing: IndexedDB would
/// otherwise commit the requests already made, half a step.
#[wasm_bindgen_test]
async fn a_write_dropped_midway_stores_nothing_of_it() {
    use lectern::domain::{Conversation, Message, Role};

    let name = unique("dropped-write");
    let store = IndexedDbStore::open(&name).await.unwrap();
    let conversation = Conversation {
        id: "c".into(),
        title: "Dropped".into(),
        created_at: 1.0,
        book_id: None,
        working_state: None,
    };
    store.create_conversation(&conversation).await.unwrap();
    let messages: Vec<Message> = (0..2000)
        .map(|i| Message::new(format!("m{i}"), "c", Role::User, format!("message {i}"), 2.0))
        .collect();
    // Let the write make its first requests (2,000 adds take far longer), then give up on it.
    let write = store.append_messages(messages);
    match select(write, Box::pin(sleep(20))).await {
        Either::Left(_) => panic!("the write finished before it could be dropped"),
        Either::Right((_, write)) => drop(write),
    }
    sleep(50).await;
    let stored = store.messages("c").await.unwrap();
    assert!(
        stored.is_empty(),
        "{} of 2,000 messages were stored by a dropped write",
        stored.len()
    );
    drop(store);
    IndexedDbStore::delete_database(&name).await.unwrap();
}
