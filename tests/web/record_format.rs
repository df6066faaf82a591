//! The IndexedDB record format, in headless Chromium. Records went through
//! serde-wasm-bindgen (JSON-compatible) before they went through JSON text:
//! records it wrote must still read back as they were, and records written now
//! must be the very objects it would have written.

use crate::support::web;

use idb::TransactionMode;
use js_sys::Float32Array;
use lectern::approval::{Decision, PausedStep, PendingCall, PendingStatus, PendingTurn};
use lectern::domain::Book;
use lectern::domain::Chunk;
use lectern::domain::{Conversation, Mention, Message, Role, RunError, RunRecord, RunStatus, ToolCall};
use lectern::domain::{ToolCallRecord, TurnOverrides, TurnState, Usage};
use lectern::storage::{BookStore, BookWrite, Store, StoreArchive, TurnWrite};
use lectern::web::IndexedDbStore;
use serde::Serialize;
use serde_json::json;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web::unique;

/// A value as the earlier encoder wrote it.
fn earlier<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .expect("encodes")
}

fn text(value: &JsValue) -> String {
    js_sys::JSON::stringify(value).expect("stringify").into()
}

fn conversation() -> Conversation {
    Conversation {
        id: "c1".into(),
        title: "Ünïcode ✓ 😀".into(),
        created_at: 1_700_000_000_123.5,
        book_id: Some("b1".into()),
        working_state: Some(json!({"page": 12, "ratio": 0.25, "tags": ["a", null], "deep": {"ok": true}})),
    }
}

fn messages() -> Vec<Message> {
    let mut asked = Message::new("m1".into(), "c1", Role::Assistant, "Let me look — 😀", 2.0);
    asked.tool_calls = vec![ToolCall {
        id: "call_1".into(),
        name: "write".into(),
        arguments: r#"{"path":"a"}"#.into(),
    }];
    let mut answer = Message::new("m2".into(), "c1", Role::ToolResult, "done", 3.0);
    answer.seq = 1;
    answer.tool_call_id = Some("call_1".into());
    let mut cut = Message::new("m3".into(), "c1", Role::Assistant, "half", 4.0);
    cut.seq = 2;
    cut.interrupted = true;
    vec![asked, answer, cut]
}

fn record(position: u32) -> ToolCallRecord {
    let call = ToolCall {
        id: format!("call_{position}"),
        name: "write".into(),
        arguments: "{}".into(),
    };
    let mut record = ToolCallRecord::not_run(&call, "{}".into(), Decision::Rejected, "No".into(), 5.0);
    record.conversation_id = "c1".into();
    record.turn_id = "t1".into();
    record.position = position;
    record.reason = Some("not now".into());
    record
}

fn pending() -> PendingTurn {
    PendingTurn {
        turn_id: "t1".into(),
        conversation_id: "c1".into(),
        calls: vec![PendingCall {
            call_id: "call_1".into(),
            tool_name: "write".into(),
            arguments: json!({"path": "a", "n": 3}),
        }],
        created_at: 10.0,
        expires_at: 1010.0,
        status: PendingStatus::Awaiting,
        revision: 0,
        step: PausedStep {
            text: "Writing.".into(),
            reasoning: Vec::new(),
            calls: messages()[0].tool_calls.clone(),
            settled: Vec::new(),
            running: Vec::new(),
            claim_expires_at: Some(99.5),
            offered: vec!["write".into()],
            over_limit: false,
            state: TurnState {
                steps: 1,
                usage: Usage {
                    input_tokens: 12,
                    output_tokens: 3,
                    cached_input_tokens: 0,
                    estimated: false,
                },
                records: vec![record(7)],
                user_id: Some("u1".into()),
                mentions: vec![(
                    Mention {
                        kind: "note".into(),
                        id: "n1".into(),
                    },
                    "text".into(),
                )],
                overrides: TurnOverrides {
                    tools: Some(vec!["write".into()]),
                    turn_timeout_ms: Some(60_000),
                    ..TurnOverrides::default()
                },
                ..TurnState::default()
            },
        },
    }
}

fn run() -> RunRecord {
    let mut run = RunRecord::started("r1".into(), "c1", "do it", 20.0);
    run.status = RunStatus::Failed;
    run.error = Some(RunError {
        name: "TimeoutError".into(),
        message: "too slow".into(),
    });
    run.log = messages();
    run.tool_calls = vec![record(0)];
    run.usage.cost_usd = Some(0.0125);
    run.finished_at = Some(25.0);
    run
}

fn book() -> (Book, Vec<Chunk>) {
    let book = Book {
        id: "b1".into(),
        title: "The Man Who Was Thursday".into(),
        author: Some("G. K. Chesterton".into()),
        page_count: 3,
        chunk_count: 2,
        current_page: 1,
        embedder: "test/2".into(),
        dimensions: 2,
        chapters: vec!["CHAPTER I".into()],
        created_at: 5.0,
    };
    let chunk = |ordinal: u32, chapter: Option<&str>| Chunk {
        ordinal,
        text: format!("Passage {ordinal} — ✓"),
        start_page: 1,
        end_page: 2,
        chapter: chapter.map(str::to_owned),
    };
    (book, vec![chunk(0, Some("CHAPTER I")), chunk(1, None)])
}

/// The database `name`, opened directly (not through Lectern).
async fn open_raw(name: &str) -> idb::Database {
    idb::Factory::new()
        .unwrap()
        .open(name, None)
        .unwrap()
        .await
        .unwrap()
}

/// Puts `records` into `store` of the database `name`, bypassing Lectern.
async fn put_raw(name: &str, store: &str, records: &[JsValue]) {
    let db = open_raw(name).await;
    let tx = db.transaction(&[store], TransactionMode::ReadWrite).unwrap();
    let objects = tx.object_store(store).unwrap();
    for record in records {
        objects.put(record, None).unwrap().await.unwrap();
    }
    tx.commit().unwrap().await.unwrap();
    db.close();
}

/// Every record of `store` in the database `name`, as JSON text, bypassing Lectern.
async fn raw_texts(name: &str, store: &str) -> Vec<String> {
    let db = open_raw(name).await;
    let tx = db.transaction(&[store], TransactionMode::ReadOnly).unwrap();
    let all = tx
        .object_store(store)
        .unwrap()
        .get_all(None, None)
        .unwrap()
        .await
        .unwrap();
    db.close();
    all.iter().map(text).collect()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChunkBatch<'a> {
    book_id: &'a str,
    batch: u32,
    chunks: &'a [Chunk],
}

#[wasm_bindgen_test]
async fn records_the_earlier_encoder_wrote_read_back_unchanged() {
    let name = unique("format-read");
    IndexedDbStore::open(&name).await.unwrap().close();
    let (book, chunks) = book();
    let vectors = js_sys::Object::new();
    for (key, value) in [
        ("bookId", JsValue::from("b1")),
        ("batch", 0.into()),
        ("dims", 2.into()),
        ("data", Float32Array::from(&[0.5f32, 1.0, -2.0, 0.25][..]).into()),
    ] {
        js_sys::Reflect::set(&vectors, &key.into(), &value).unwrap();
    }
    put_raw(&name, "conversations", &[earlier(&conversation())]).await;
    let stored: Vec<JsValue> = messages().iter().map(earlier).collect();
    put_raw(&name, "messages", &stored).await;
    put_raw(&name, "pendingTurns", &[earlier(&pending())]).await;
    put_raw(&name, "toolCalls", &[earlier(&record(0)), earlier(&record(1))]).await;
    put_raw(&name, "runs", &[earlier(&run())]).await;
    put_raw(&name, "books", &[earlier(&book)]).await;
    let batch = ChunkBatch {
        book_id: "b1",
        batch: 0,
        chunks: &chunks,
    };
    put_raw(&name, "chunks", &[earlier(&batch)]).await;
    put_raw(&name, "vectors", &[vectors.into()]).await;

    let store = IndexedDbStore::open(&name).await.unwrap();
    assert_eq!(store.conversation("c1").await.unwrap(), Some(conversation()));
    assert_eq!(store.conversations().await.unwrap(), vec![conversation()]);
    assert_eq!(store.messages("c1").await.unwrap(), messages());
    assert_eq!(
        store.recent_messages("c1", None, 2).await.unwrap(),
        messages()[1..]
    );
    assert_eq!(store.pending_turn("t1").await.unwrap(), Some(pending()));
    assert_eq!(store.pending_turns(Some("c1")).await.unwrap(), vec![pending()]);
    assert_eq!(store.tool_calls("c1").await.unwrap(), vec![record(0), record(1)]);
    assert_eq!(store.run("r1").await.unwrap(), Some(run()));
    assert_eq!(store.book("b1").await.unwrap(), Some(book));
    let (read_chunks, read_vectors) = store.book_content("b1").await.unwrap();
    assert_eq!(read_chunks, chunks);
    assert_eq!(read_vectors.flat(), [0.5, 1.0, -2.0, 0.25]);
    store.close();
    IndexedDbStore::delete_database(&name).await.unwrap();
}

#[wasm_bindgen_test]
async fn records_written_now_are_what_the_earlier_encoder_wrote() {
    let name = unique("format-write");
    let store = IndexedDbStore::open(&name).await.unwrap();
    store.create_conversation(&conversation()).await.unwrap();
    let write = TurnWrite {
        messages: messages(),
        tool_calls: vec![record(0), record(1)],
        pending: Some(pending()),
        ..TurnWrite::default()
    };
    store.commit(write).await.unwrap();
    store.put_run(&run()).await.unwrap();
    let (book, chunks) = book();
    let mut vectors = lectern::domain::StoredVectors::empty(2);
    vectors.push(&[0.5, 1.0]);
    vectors.push(&[-2.0, 0.25]);
    store
        .put_book(BookWrite::new(&book, &chunks, &vectors))
        .await
        .unwrap();

    let expected = |values: Vec<JsValue>| values.iter().map(text).collect::<Vec<_>>();
    let conversations = store.conversations().await.unwrap();
    assert_eq!(
        raw_texts(&name, "conversations").await,
        expected(vec![earlier(&conversations[0])])
    );
    let messages: Vec<JsValue> = store.messages("c1").await.unwrap().iter().map(earlier).collect();
    assert_eq!(raw_texts(&name, "messages").await, expected(messages));
    let pending = store.pending_turn("t1").await.unwrap().unwrap();
    assert_eq!(
        raw_texts(&name, "pendingTurns").await,
        expected(vec![earlier(&pending)])
    );
    let records: Vec<JsValue> = store
        .tool_calls("c1")
        .await
        .unwrap()
        .iter()
        .map(earlier)
        .collect();
    assert_eq!(raw_texts(&name, "toolCalls").await, expected(records));
    assert_eq!(raw_texts(&name, "runs").await, expected(vec![earlier(&run())]));
    assert_eq!(raw_texts(&name, "books").await, expected(vec![earlier(&book)]));
    let batch = ChunkBatch {
        book_id: "b1",
        batch: 0,
        chunks: &chunks,
    };
    assert_eq!(raw_texts(&name, "chunks").await, expected(vec![earlier(&batch)]));
    store.close();
    IndexedDbStore::delete_database(&name).await.unwrap();
}
