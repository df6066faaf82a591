//! The storage conformance suite against IndexedDB, in headless Chromium.

use crate::support::conformance;
use crate::support::web;

use lectern::domain::{Conversation, Message, Role};
use lectern::storage::{Store, StoreArchive};
use lectern::web::IndexedDbStore;
use wasm_bindgen_test::*;
use web::unique;

#[wasm_bindgen_test]
async fn indexeddb_store_conforms() {
    let mut names = Vec::new();
    conformance::run_all(
        || {
            let name = unique("conformance");
            names.push(name.clone());
            async move {
                IndexedDbStore::delete_database(&name)
                    .await
                    .expect("delete before");
                IndexedDbStore::open(&name).await.expect("open")
            }
        },
        |case| web_sys::console::log_1(&format!("indexeddb store: {case}").into()),
    )
    .await;
    for name in names {
        IndexedDbStore::delete_database(&name)
            .await
            .expect("delete after");
    }
}

#[wasm_bindgen_test]
async fn data_survives_closing_and_reopening() {
    let name = unique("reopen");
    let store = IndexedDbStore::open(&name).await.unwrap();
    let conversation = Conversation {
        id: "c1".into(),
        title: "Kept".into(),
        created_at: 1.0,
        book_id: None,
        working_state: Some(serde_json::json!({"page": 12})),
    };
    store.create_conversation(&conversation).await.unwrap();
    store
        .append_messages(vec![Message::new("m1".into(), "c1", Role::User, "héllo 😀", 2.0)])
        .await
        .unwrap();
    store.close();

    let reopened = IndexedDbStore::open(&name).await.unwrap();
    assert_eq!(reopened.conversation("c1").await.unwrap(), Some(conversation));
    let messages = reopened.messages("c1").await.unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].content, "héllo 😀");
    let next = reopened
        .append_messages(vec![Message::new("m2".into(), "c1", Role::Assistant, "hi", 3.0)])
        .await
        .unwrap();
    assert_eq!(next[0].seq, 1, "seq continues after a reopen");
    reopened.close();
    IndexedDbStore::delete_database(&name).await.unwrap();
}

#[wasm_bindgen_test]
async fn database_is_created_at_the_current_schema_version() {
    let name = unique("schema");
    let store = IndexedDbStore::open(&name).await.unwrap();
    store.close();
    let factory = idb::Factory::new().unwrap();
    let db = factory.open(&name, None).unwrap().await.unwrap();
    assert_eq!(db.version().unwrap(), lectern::web::INDEXEDDB_SCHEMA_VERSION);
    let mut stores = db.store_names();
    stores.sort();
    assert_eq!(
        stores,
        [
            "approvalGrants",
            "books",
            "chunks",
            "contextSummaries",
            "conversations",
            "indexSnapshots",
            "lexicalIndexes",
            "messages",
            "openTurns",
            "pages",
            "pendingTurns",
            "runs",
            "toolCalls",
            "turnEvents",
            "usageTotals",
            "vectors"
        ]
    );
    db.close();
    IndexedDbStore::delete_database(&name).await.unwrap();
}

fn store_summaries_exist(db: &idb::Database) -> bool {
    let names = db.store_names();
    names.contains(&"contextSummaries".to_owned()) && names.contains(&"turnEvents".to_owned())
}

#[wasm_bindgen_test]
async fn a_version_1_database_is_upgraded_in_place() {
    use idb::{DatabaseEvent, KeyPath, ObjectStoreParams, TransactionMode};
    use lectern::storage::BookStore;
    let name = unique("upgrade");
    // The version-1 schema, as the first release wrote it, with one conversation in it.
    let factory = idb::Factory::new().unwrap();
    let mut request = factory.open(&name, Some(1)).unwrap();
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
    let record = web::js(serde_json::json!({"id": "old", "title": "From v1", "createdAt": 1.0}));
    tx.object_store("conversations")
        .unwrap()
        .put(&record, None)
        .unwrap()
        .await
        .unwrap();
    tx.commit().unwrap().await.unwrap();
    db.close();

    let store = IndexedDbStore::open(&name).await.expect("upgrades");
    let kept = store
        .conversation("old")
        .await
        .unwrap()
        .expect("kept across the upgrade");
    assert_eq!(kept.title, "From v1");
    assert!(
        store.books().await.unwrap().is_empty(),
        "the book stores exist now"
    );
    assert!(
        store.pending_turns(None).await.unwrap().is_empty() && store.runs().await.unwrap().is_empty(),
        "so do the turn stores"
    );
    assert!(store.tool_calls("old").await.unwrap().is_empty());
    assert_eq!(
        store.lexical_index("old").await.unwrap(),
        None,
        "and the lexical index store"
    );
    store.close();
    drop(store);
    let db = factory.open(&name, None).unwrap().await.unwrap();
    assert_eq!(db.version().unwrap(), lectern::web::INDEXEDDB_SCHEMA_VERSION);
    assert!(
        db.store_names().contains(&"pages".to_owned()),
        "the version-5 pages store exists"
    );
    assert!(
        db.store_names().contains(&"approvalGrants".to_owned())
            && db.store_names().contains(&"usageTotals".to_owned()),
        "the version-6 grants and usage stores exist"
    );
    assert!(
        store_summaries_exist(&db),
        "the version-7 context summaries and turn events stores exist"
    );
    db.close();
    IndexedDbStore::delete_database(&name).await.unwrap();
}
