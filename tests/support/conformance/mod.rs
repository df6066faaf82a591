//! The behaviour every [`Store`] must show, as one suite of async checks.
//!
//! Native tests run it against [`MemoryStore`](lectern::storage::MemoryStore); browser
//! tests run the same functions against `lectern::web::IndexedDbStore`. Each case gets a
//! fresh, empty store from the factory and panics with its name on failure.
#![allow(dead_code)]

use std::future::Future;

use futures::future::LocalBoxFuture;

mod grants;
mod import;
mod ledger_v7;
mod lexical;
mod open_turns;
mod pages;
mod synced;
mod turns;
mod usage;

use lectern::domain::Book;
use lectern::domain::Chunk;
use lectern::domain::StoredVectors;
use lectern::domain::{Conversation, Message, Role, ToolCall};
use lectern::error::{Error, StorageReason};
use lectern::storage::{BookStore, BookWrite, Store, StoreArchive, VECTOR_BATCH};

/// One conformance case: a name and a check over a fresh store.
pub type Case<S> = (&'static str, fn(S) -> LocalBoxFuture<'static, ()>);

/// Every case, in a stable order.
pub fn cases<S: Store + StoreArchive + BookStore + 'static>() -> Vec<Case<S>> {
    vec![
        ("creates and reads a conversation", |s| {
            Box::pin(creates_and_reads_a_conversation(s))
        }),
        ("missing conversation is None", |s| {
            Box::pin(missing_conversation_is_none(s))
        }),
        ("duplicate conversation id is refused", |s| {
            Box::pin(duplicate_conversation_is_refused(s))
        }),
        ("lists conversations oldest first", |s| {
            Box::pin(lists_conversations_oldest_first(s))
        }),
        ("appends messages with increasing seq", |s| {
            Box::pin(appends_messages_in_order(s))
        }),
        ("keeps conversations' messages apart", |s| {
            Box::pin(keeps_conversations_apart(s))
        }),
        ("round-trips tool calls and results", |s| {
            Box::pin(round_trips_tool_calls(s))
        }),
        ("append to a missing conversation writes nothing", |s| {
            Box::pin(append_to_missing_writes_nothing(s))
        }),
        ("messages of a missing conversation is NotFound", |s| {
            Box::pin(messages_of_missing_is_not_found(s))
        }),
        ("reads the newest messages before a seq, in order", |s| {
            Box::pin(reads_the_newest_messages(s))
        }),
        ("delete removes the conversation and its messages", |s| {
            Box::pin(delete_removes_everything(s))
        }),
        ("update replaces the record, not the messages", |s| {
            Box::pin(update_replaces_the_record(s))
        }),
        ("a book round-trips with its chunks, vectors and snapshot", |s| {
            Box::pin(book_round_trips(s))
        }),
        ("a duplicate book id is refused and writes nothing", |s| {
            Box::pin(duplicate_book_is_refused(s))
        }),
        ("updating a book keeps its content", |s| {
            Box::pin(update_book_keeps_content(s))
        }),
        ("deleting a book removes all of it", |s| {
            Box::pin(delete_book_removes_everything(s))
        }),
        ("an index snapshot is saved and replaced", |s| {
            Box::pin(snapshot_is_saved_and_replaced(s))
        }),
        ("a book without vectors round-trips with its lexical index", |s| {
            Box::pin(lexical::a_book_without_vectors_round_trips_with_its_lexical_index(s))
        }),
        (
            "a lexical index is saved, replaced and deleted with its book",
            |s| Box::pin(lexical::a_lexical_index_is_saved_replaced_and_deleted(s)),
        ),
        (
            "a book stored before its vectors gets them once, record and all",
            |s| Box::pin(lexical::a_book_stored_before_its_vectors_gets_them_once(s)),
        ),
        ("pages are stored, read and deleted with their book", |s| {
            Box::pin(pages::pages_are_stored_read_and_deleted_with_their_book(s))
        }),
        ("a refused book writes no pages", |s| {
            Box::pin(pages::a_refused_book_writes_no_pages(s))
        }),
        (
            "commit writes messages, records and the paused turn together",
            |s| Box::pin(turns::commit_writes_all_parts_together(s)),
        ),
        ("a stale paused-turn revision writes nothing", |s| {
            Box::pin(turns::a_stale_revision_writes_nothing(s))
        }),
        ("a settled paused turn is kept as a tombstone", |s| {
            Box::pin(turns::a_settled_turn_is_kept_as_a_tombstone(s))
        }),
        (
            "lists paused turns by conversation, in (time-ordered) id order",
            |s| Box::pin(turns::lists_paused_turns_by_conversation_in_id_order(s)),
        ),
        ("tool-call records come back by turn and position", |s| {
            Box::pin(turns::tool_call_records_come_back_by_turn_and_position(s))
        }),
        (
            "deleting a conversation removes its paused turns and records",
            |s| Box::pin(turns::deleting_a_conversation_removes_its_turn_records(s)),
        ),
        ("runs round-trip, in (time-ordered) id order", |s| {
            Box::pin(turns::runs_round_trip(s))
        }),
        ("deleting all conversations removes every record of them", |s| {
            Box::pin(turns::deleting_all_conversations_removes_every_record(s))
        }),
        ("usage totals add up by conversation", |s| {
            Box::pin(usage::usage_totals_add_up_by_conversation(s))
        }),
        ("usage totals need their conversation", |s| {
            Box::pin(usage::usage_totals_need_their_conversation(s))
        }),
        ("grants are written with a commit and read back", |s| {
            Box::pin(grants::grants_are_written_with_a_commit_and_read_back(s))
        }),
        ("a refused commit writes no grant", |s| {
            Box::pin(grants::a_refused_commit_writes_no_grant(s))
        }),
        ("grants are cleared, and deleted with their conversation", |s| {
            Box::pin(grants::grants_are_cleared_and_deleted_with_their_conversation(s))
        }),
        ("a summary is saved, replaced and read back", |s| {
            Box::pin(ledger_v7::a_summary_is_saved_replaced_and_read_back(s))
        }),
        ("summaries need their conversation", |s| {
            Box::pin(ledger_v7::summaries_need_their_conversation(s))
        }),
        (
            "recorded events append in order and go with their conversation",
            |s| Box::pin(ledger_v7::recorded_events_append_in_order_and_go_with_their_conversation(s)),
        ),
        ("an import writes every part in one step", |s| {
            Box::pin(import::an_import_writes_every_part(s))
        }),
        ("a refused import writes nothing", |s| {
            Box::pin(import::a_refused_import_writes_nothing(s))
        }),
        ("synced messages replace a conversation's, in their order", |s| {
            Box::pin(synced::synced_messages_replace_a_conversations_in_their_order(s))
        }),
        ("synced messages create a missing conversation", |s| {
            Box::pin(synced::synced_messages_create_a_missing_conversation(s))
        }),
        ("refused synced messages write nothing", |s| {
            Box::pin(synced::refused_synced_messages_write_nothing(s))
        }),
        ("open turns are put, replaced and deleted by commits", |s| {
            Box::pin(open_turns::open_turns_are_put_replaced_and_deleted_by_commits(s))
        }),
        ("an open turn needs its conversation and goes with it", |s| {
            Box::pin(open_turns::an_open_turn_needs_its_conversation_and_goes_with_it(
                s,
            ))
        }),
    ]
}

/// Runs every case, each on a store made by `make`, logging names through `log`.
pub async fn run_all<S, F, Fut>(mut make: F, log: impl Fn(&str))
where
    S: Store + StoreArchive + BookStore + 'static,
    F: FnMut() -> Fut,
    Fut: Future<Output = S>,
{
    for (name, case) in cases::<S>() {
        log(name);
        case(make().await).await;
    }
}

fn conversation(id: &str, created_at: f64) -> Conversation {
    Conversation {
        id: id.to_owned(),
        title: format!("Title {id}"),
        created_at,
        book_id: None,
        working_state: None,
    }
}

fn message(id: &str, conversation_id: &str, role: Role, content: &str) -> Message {
    Message::new(id.to_owned(), conversation_id, role, content, 1.0)
}

async fn creates_and_reads_a_conversation(store: impl Store + StoreArchive) {
    let c = conversation("c1", 10.0);
    store.create_conversation(&c).await.expect("create");
    assert_eq!(store.conversation("c1").await.expect("get"), Some(c));
}

async fn missing_conversation_is_none(store: impl Store + StoreArchive) {
    assert_eq!(store.conversation("nope").await.expect("get"), None);
}

async fn duplicate_conversation_is_refused(store: impl Store + StoreArchive) {
    store
        .create_conversation(&conversation("c1", 1.0))
        .await
        .expect("create");
    let err = store
        .create_conversation(&conversation("c1", 2.0))
        .await
        .expect_err("duplicate must fail");
    assert_eq!(err.name(), "StorageError", "{err}");
    assert_eq!(err.storage_reason(), Some(StorageReason::Constraint), "{err}");
    assert_eq!(store.conversation("c1").await.unwrap().unwrap().created_at, 1.0);
}

async fn lists_conversations_oldest_first(store: impl Store + StoreArchive) {
    for (id, at) in [("b", 2.0), ("c", 3.0), ("a", 1.0)] {
        store
            .create_conversation(&conversation(id, at))
            .await
            .expect("create");
    }
    let ids: Vec<String> = store
        .conversations()
        .await
        .expect("list")
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
}

async fn appends_messages_in_order(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    let first = store
        .append_messages(vec![message("m1", "c1", Role::User, "hello")])
        .await
        .expect("append");
    assert_eq!(first[0].seq, 0);
    let next = store
        .append_messages(vec![
            message("m2", "c1", Role::Assistant, "hi"),
            message("m3", "c1", Role::User, "how are you?"),
        ])
        .await
        .expect("append");
    assert_eq!(next.iter().map(|m| m.seq).collect::<Vec<_>>(), [1, 2]);
    let all = store.messages("c1").await.expect("messages");
    let got: Vec<(&str, u32, &str)> = all
        .iter()
        .map(|m| (m.id.as_str(), m.seq, m.content.as_str()))
        .collect();
    assert_eq!(
        got,
        [("m1", 0, "hello"), ("m2", 1, "hi"), ("m3", 2, "how are you?")]
    );
}

async fn reads_the_newest_messages(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    let other = message("x", "c2", Role::User, "elsewhere");
    let mut batch: Vec<Message> = (0..10)
        .map(|i| message(&format!("m{i}"), "c1", Role::User, &format!("ünï {i}")))
        .collect();
    batch.insert(4, other);
    store.append_messages(batch).await.unwrap();
    let seqs = |messages: Vec<Message>| messages.iter().map(|m| m.seq).collect::<Vec<_>>();
    let recent = |before, limit| store.recent_messages("c1", before, limit);
    assert_eq!(seqs(recent(None, 3).await.unwrap()), [7, 8, 9]);
    assert_eq!(seqs(recent(Some(7), 3).await.unwrap()), [4, 5, 6]);
    assert_eq!(seqs(recent(Some(2), 5).await.unwrap()), [0, 1]);
    assert_eq!(
        seqs(recent(None, 100).await.unwrap()),
        (0..10).collect::<Vec<_>>()
    );
    assert_eq!(seqs(recent(Some(0), 5).await.unwrap()), Vec::<u32>::new());
    assert_eq!(seqs(recent(None, 0).await.unwrap()), Vec::<u32>::new());
    let newest = recent(None, 1).await.unwrap();
    assert_eq!(
        (newest[0].id.as_str(), newest[0].content.as_str()),
        ("m9", "ünï 9")
    );
    assert_eq!(seqs(store.recent_messages("c2", None, 5).await.unwrap()), [0]);
    store
        .create_conversation(&conversation("empty", 3.0))
        .await
        .unwrap();
    assert!(store.recent_messages("empty", None, 5).await.unwrap().is_empty());
    let err = store.recent_messages("nope", None, 5).await.unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
}

async fn keeps_conversations_apart(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    store
        .append_messages(vec![
            message("a", "c1", Role::User, "one"),
            message("b", "c2", Role::User, "two"),
            message("c", "c1", Role::Assistant, "three"),
        ])
        .await
        .unwrap();
    let c1: Vec<(String, u32)> = store
        .messages("c1")
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.id, m.seq))
        .collect();
    let c2: Vec<(String, u32)> = store
        .messages("c2")
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.id, m.seq))
        .collect();
    assert_eq!(c1, [("a".to_string(), 0), ("c".to_string(), 1)]);
    assert_eq!(c2, [("b".to_string(), 0)]);
}

async fn round_trips_tool_calls(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    let mut ask = message("m1", "c1", Role::Assistant, "");
    ask.tool_calls = vec![ToolCall {
        id: "call_1".into(),
        name: "search_book".into(),
        arguments: r#"{"query":"Sunday"}"#.into(),
    }];
    let mut answer = message("m2", "c1", Role::ToolResult, "[Pages 1-2] text");
    answer.tool_call_id = Some("call_1".into());
    let stored = store.append_messages(vec![ask, answer]).await.unwrap();
    assert_eq!(store.messages("c1").await.unwrap(), stored);
}

async fn append_to_missing_writes_nothing(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    let err = store
        .append_messages(vec![
            message("m1", "c1", Role::User, "kept out"),
            message("m2", "ghost", Role::User, "no such conversation"),
        ])
        .await
        .expect_err("must fail");
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    assert!(
        store.messages("c1").await.unwrap().is_empty(),
        "nothing may be half-written"
    );
}

async fn messages_of_missing_is_not_found(store: impl Store + StoreArchive) {
    let err = store.messages("ghost").await.expect_err("must fail");
    assert_eq!(err.name(), "NotFoundError");
}

async fn delete_removes_everything(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    store
        .append_messages(vec![
            message("m1", "c1", Role::User, "x"),
            message("m2", "c2", Role::User, "y"),
        ])
        .await
        .unwrap();
    store.delete_conversation("c1").await.expect("delete");
    assert_eq!(store.conversation("c1").await.unwrap(), None);
    assert!(store.messages("c1").await.is_err());
    assert_eq!(store.messages("c2").await.unwrap().len(), 1);
    let err = store.delete_conversation("c1").await.expect_err("second delete");
    assert_eq!(err.name(), "NotFoundError");
}

async fn update_replaces_the_record(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store
        .append_messages(vec![message("m1", "c1", Role::User, "kept")])
        .await
        .unwrap();
    let mut changed = conversation("c1", 1.0);
    changed.title = "Renamed".into();
    changed.working_state = Some(serde_json::json!({"step": 2, "items": ["a", "b"]}));
    store.update_conversation(&changed).await.expect("update");
    assert_eq!(store.conversation("c1").await.unwrap(), Some(changed));
    assert_eq!(store.messages("c1").await.unwrap().len(), 1);
    let err = store
        .update_conversation(&conversation("ghost", 1.0))
        .await
        .expect_err("missing");
    assert_eq!(err.name(), "NotFoundError");
    assert_eq!(
        store.conversation("ghost").await.unwrap(),
        None,
        "update never creates"
    );
}

fn book(id: &str) -> Book {
    Book {
        id: id.to_owned(),
        title: "The Man Who Was Thursday".into(),
        author: Some("G. K. Chesterton".into()),
        page_count: 3,
        chunk_count: 0,
        current_page: 1,
        embedder: "test-embedder/4".into(),
        dimensions: 4,
        chapters: vec!["CHAPTER I".into()],
        created_at: 5.0,
    }
}

/// `n` chunks and vectors; more than one stored batch when `n > VECTOR_BATCH`.
fn content(n: usize) -> (Vec<Chunk>, StoredVectors) {
    let chunks = (0..n)
        .map(|i| Chunk {
            ordinal: i as u32,
            text: format!("Passage {i} — ünïcode ✓"),
            start_page: 1 + (i / 200) as u32,
            end_page: 1 + (i / 150) as u32,
            chapter: (i % 2 == 0).then(|| "CHAPTER I".to_string()),
        })
        .collect();
    let mut vectors = StoredVectors::empty(4);
    for i in 0..n {
        vectors.push(&[i as f32, 0.5, -0.25, 1.0 / (i as f32 + 1.0)]);
    }
    (chunks, vectors)
}

async fn book_round_trips(store: impl Store + BookStore) {
    let (chunks, vectors) = content(VECTOR_BATCH + 7);
    let mut b = book("b1");
    b.chunk_count = chunks.len() as u32;
    store
        .put_book(BookWrite {
            book: &b,
            chunks: &chunks,
            vectors: &vectors,
            index_snapshot: Some(&[1, 2, 3, 250]),
            lexical_index: None,
            pages: &[],
        })
        .await
        .expect("put");
    assert_eq!(store.book("b1").await.unwrap(), Some(b.clone()));
    assert_eq!(store.books().await.unwrap(), vec![b]);
    let (got_chunks, got_vectors) = store.book_content("b1").await.expect("content");
    assert_eq!(got_chunks, chunks);
    assert_eq!(got_vectors, vectors, "vectors come back exactly, across batches");
    assert_eq!(
        store.index_snapshot("b1").await.unwrap(),
        Some(vec![1, 2, 3, 250])
    );
    assert_eq!(store.book("nope").await.unwrap(), None);
    assert_eq!(
        store.book_content("nope").await.unwrap_err().name(),
        "NotFoundError"
    );
}

async fn duplicate_book_is_refused(store: impl Store + BookStore) {
    let (chunks, vectors) = content(3);
    store
        .put_book(BookWrite::new(&book("b1"), &chunks, &vectors))
        .await
        .unwrap();
    let (more, more_vectors) = content(5);
    let err = store
        .put_book(BookWrite::new(&book("b1"), &more, &more_vectors))
        .await
        .expect_err("duplicate");
    assert_eq!(err.name(), "StorageError");
    assert_eq!(err.storage_reason(), Some(StorageReason::Constraint), "{err}");
    assert_eq!(
        store.book_content("b1").await.unwrap().0.len(),
        3,
        "the first book is untouched"
    );
    assert_eq!(store.index_snapshot("b1").await.unwrap(), None);
}

async fn update_book_keeps_content(store: impl Store + BookStore) {
    let (chunks, vectors) = content(4);
    store
        .put_book(BookWrite::new(&book("b1"), &chunks, &vectors))
        .await
        .unwrap();
    let mut moved = book("b1");
    moved.current_page = 3;
    store.update_book(&moved).await.expect("update");
    assert_eq!(store.book("b1").await.unwrap().unwrap().current_page, 3);
    assert_eq!(store.book_content("b1").await.unwrap().0.len(), 4);
    assert_eq!(
        store.update_book(&book("ghost")).await.unwrap_err().name(),
        "NotFoundError"
    );
}

async fn delete_book_removes_everything(store: impl Store + BookStore) {
    for id in ["b1", "b2"] {
        let (chunks, vectors) = content(VECTOR_BATCH + 1);
        store
            .put_book(BookWrite {
                index_snapshot: Some(&[9]),
                ..BookWrite::new(&book(id), &chunks, &vectors)
            })
            .await
            .unwrap();
    }
    store.delete_book("b1").await.expect("delete");
    assert_eq!(store.book("b1").await.unwrap(), None);
    assert_eq!(
        store.book_content("b1").await.unwrap_err().name(),
        "NotFoundError"
    );
    assert_eq!(store.index_snapshot("b1").await.unwrap(), None);
    assert_eq!(
        store.book_content("b2").await.unwrap().0.len(),
        VECTOR_BATCH + 1,
        "the other book stays"
    );
    assert_eq!(store.delete_book("b1").await.unwrap_err().name(), "NotFoundError");
}

async fn snapshot_is_saved_and_replaced(store: impl Store + BookStore) {
    let (chunks, vectors) = content(3);
    store
        .put_book(BookWrite::new(&book("b1"), &chunks, &vectors))
        .await
        .unwrap();
    store.put_index_snapshot("b1", &[1, 2]).await.expect("save");
    assert_eq!(store.index_snapshot("b1").await.unwrap(), Some(vec![1, 2]));
    store.put_index_snapshot("b1", &[7; 300]).await.expect("replace");
    assert_eq!(store.index_snapshot("b1").await.unwrap(), Some(vec![7; 300]));
    let err = store.put_index_snapshot("ghost", &[1]).await.unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
    assert_eq!(
        store.index_snapshot("ghost").await.unwrap(),
        None,
        "nothing written"
    );
    store.delete_book("b1").await.unwrap();
    assert_eq!(store.index_snapshot("b1").await.unwrap(), None);
}
