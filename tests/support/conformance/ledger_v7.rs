//! Conformance cases for context summaries (one a conversation, replaced
//! as it is extended, never written for a missing conversation, deleted
//! with the conversation or with everything) and recorded turn events, the
//! two stores of schema version 7.

use lectern::domain::ContextSummary;
use lectern::storage::{Store, StoreArchive};

use super::conversation;

fn summary(conversation_id: &str, text: &str, through_seq: u32) -> ContextSummary {
    ContextSummary {
        conversation_id: conversation_id.to_owned(),
        text: text.to_owned(),
        through_seq,
        summarized_messages: through_seq,
        updated_at: 5.0,
    }
}

/// A summary is read back as written, replaced by the next, and kept apart by conversation.
pub async fn a_summary_is_saved_replaced_and_read_back(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    assert_eq!(store.context_summary("c1").await.unwrap(), None);
    store
        .put_context_summary(&summary("c1", "They met. 日本", 4))
        .await
        .unwrap();
    store
        .put_context_summary(&summary("c2", "Other.", 2))
        .await
        .unwrap();
    assert_eq!(
        store.context_summary("c1").await.unwrap(),
        Some(summary("c1", "They met. 日本", 4))
    );
    store
        .put_context_summary(&summary("c1", "They met, then argued.", 9))
        .await
        .unwrap();
    let c1 = store.context_summary("c1").await.unwrap().unwrap();
    assert_eq!((c1.text.as_str(), c1.through_seq), ("They met, then argued.", 9));
    assert_eq!(store.context_summary("c2").await.unwrap().unwrap().text, "Other.");
}

/// A missing conversation: reading and writing are `NotFound` (nothing
/// written); deleting a conversation, or all of them, deletes its summary.
pub async fn summaries_need_their_conversation(store: impl Store + StoreArchive) {
    let not_found = |e: lectern::error::Error| e.name() == "NotFoundError";
    assert!(not_found(store.context_summary("ghost").await.unwrap_err()));
    assert!(not_found(
        store
            .put_context_summary(&summary("ghost", "x", 1))
            .await
            .unwrap_err()
    ));
    store
        .create_conversation(&conversation("ghost", 1.0))
        .await
        .unwrap();
    assert_eq!(
        store.context_summary("ghost").await.unwrap(),
        None,
        "nothing was kept"
    );
    store
        .put_context_summary(&summary("ghost", "x", 1))
        .await
        .unwrap();
    store.delete_conversation("ghost").await.unwrap();
    store
        .create_conversation(&conversation("ghost", 2.0))
        .await
        .unwrap();
    assert_eq!(
        store.context_summary("ghost").await.unwrap(),
        None,
        "deleted with it"
    );
    store
        .put_context_summary(&summary("ghost", "y", 1))
        .await
        .unwrap();
    store.delete_all_conversations().await.unwrap();
    store
        .create_conversation(&conversation("ghost", 3.0))
        .await
        .unwrap();
    assert_eq!(
        store.context_summary("ghost").await.unwrap(),
        None,
        "deleted with everything"
    );
}

fn event(conversation_id: &str, turn_id: &str, text: &str) -> serde_json::Value {
    serde_json::json!({ "conversationId": conversation_id, "turnId": turn_id, "type": "textDelta", "text": text })
}

/// A turn's events come back in order across appends; turns are listed
/// per conversation, oldest first; deleting removes them.
pub async fn recorded_events_append_in_order_and_go_with_their_conversation(
    store: impl Store + StoreArchive,
) {
    store.create_conversation(&conversation("c1", 1.0)).await.unwrap();
    store.create_conversation(&conversation("c2", 2.0)).await.unwrap();
    assert!(store.turn_events("t1").await.unwrap().is_empty());
    let first = vec![event("c1", "t1", "a"), event("c1", "t1", "日本")];
    store.append_turn_events("c1", "t1", first.clone()).await.unwrap();
    store
        .append_turn_events("c1", "t2", vec![event("c1", "t2", "x")])
        .await
        .unwrap();
    store
        .append_turn_events("c1", "t1", vec![event("c1", "t1", "b")])
        .await
        .unwrap();
    store
        .append_turn_events("c2", "t3", vec![event("c2", "t3", "y")])
        .await
        .unwrap();
    let mut expected = first;
    expected.push(event("c1", "t1", "b"));
    assert_eq!(store.turn_events("t1").await.unwrap(), expected);
    assert_eq!(store.recorded_turns("c1").await.unwrap(), ["t1", "t2"]);
    assert_eq!(store.recorded_turns("c2").await.unwrap(), ["t3"]);
    let missing = store
        .append_turn_events("ghost", "t9", vec![event("ghost", "t9", "z")])
        .await;
    assert_eq!(missing.unwrap_err().name(), "NotFoundError");
    assert!(
        store.turn_events("t9").await.unwrap().is_empty(),
        "nothing written"
    );
    assert_eq!(
        store.recorded_turns("ghost").await.unwrap_err().name(),
        "NotFoundError"
    );
    store.delete_conversation("c1").await.unwrap();
    assert!(store.turn_events("t1").await.unwrap().is_empty());
    assert_eq!(
        store.turn_events("t3").await.unwrap().len(),
        1,
        "another conversation's stay"
    );
    store.delete_all_conversations().await.unwrap();
    assert!(store.turn_events("t3").await.unwrap().is_empty());
}
