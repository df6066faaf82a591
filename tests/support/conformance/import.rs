//! Conformance cases for `import_conversation`: a whole conversation written
//! in one step, and nothing at all written when any part of it is refused.

use lectern::approval::Grant;
use lectern::domain::{Message, Role, ToolCall, UsageTotals};
use lectern::error::StorageReason;
use lectern::storage::{ConversationImport, Store, StoreArchive};

use super::conversation;
use super::turns::{pending, record};

/// A conversation `id` with two messages (numbered 7 and 9, to be renumbered),
/// a tool-call record, an open paused turn `turn_id`, usage and a grant.
fn bundle(id: &str, turn_id: &str) -> ConversationImport {
    let mut ask = Message::new(format!("{id}-m1"), id, Role::Assistant, "", 2.0);
    ask.seq = 7;
    ask.tool_calls = vec![ToolCall {
        id: "call_0".into(),
        name: "write".into(),
        arguments: "{}".into(),
    }];
    let mut answer = Message::new(format!("{id}-m2"), id, Role::ToolResult, "Denied ✓", 3.0);
    answer.seq = 9;
    answer.tool_call_id = Some("call_0".into());
    ConversationImport {
        conversation: conversation(id, 1.0),
        messages: vec![ask, answer],
        tool_calls: vec![record(id, "t0", 0)],
        pending_turns: vec![pending(turn_id, id, 10.0)],
        usage: UsageTotals {
            input_tokens: 120,
            output_tokens: 30,
            cost_usd: Some(0.25),
            turns: 2,
            ..UsageTotals::empty(id)
        },
        grants: vec![Grant {
            conversation_id: id.to_owned(),
            tool_name: "read".into(),
            granted_at: 4.0,
            turn_id: "t0".into(),
            call_id: "call_9".into(),
        }],
    }
}

/// Everything stored of conversation `id`, or `None` when it does not exist.
async fn stored(store: &(impl Store + StoreArchive), id: &str) -> Option<ConversationImport> {
    let conversation = store.conversation(id).await.unwrap()?;
    Some(ConversationImport {
        conversation,
        messages: store.messages(id).await.unwrap(),
        tool_calls: store.tool_calls(id).await.unwrap(),
        pending_turns: store.pending_turns(Some(id)).await.unwrap(),
        usage: store.usage_totals(id).await.unwrap(),
        grants: store.grants(id).await.unwrap(),
    })
}

/// Every part comes back as written, the messages numbered from 0.
pub async fn an_import_writes_every_part(store: impl Store + StoreArchive) {
    store
        .create_conversation(&conversation("other", 0.5))
        .await
        .unwrap();
    let import = bundle("c1", "t1");
    store.import_conversation(import.clone()).await.unwrap();
    let mut expected = import;
    expected.number_messages();
    assert_eq!(expected.messages[1].seq, 1);
    assert_eq!(stored(&store, "c1").await, Some(expected));
    assert_eq!(
        store.pending_turn("t1").await.unwrap().unwrap().conversation_id,
        "c1"
    );
    assert!(
        store.messages("other").await.unwrap().is_empty(),
        "others untouched"
    );
    // The imported conversation goes on like any other.
    let next = Message::new("c1-m3".into(), "c1", Role::User, "more", 5.0);
    let appended = store.append_messages(vec![next]).await.unwrap();
    assert_eq!(appended[0].seq, 2);
}

/// A taken conversation id or turn id, or a record of another conversation:
/// a `constraint` error, and nothing of the import is stored.
pub async fn a_refused_import_writes_nothing(store: impl Store + StoreArchive) {
    store.import_conversation(bundle("c1", "t1")).await.unwrap();
    let before = stored(&store, "c1").await;

    let mut same_id = bundle("c1", "t2");
    same_id.messages.truncate(0);
    let err = store.import_conversation(same_id).await.unwrap_err();
    assert_eq!(err.storage_reason(), Some(StorageReason::Constraint), "{err}");
    assert_eq!(stored(&store, "c1").await, before, "the stored one is untouched");
    assert!(store.pending_turn("t2").await.unwrap().is_none());

    let err = store.import_conversation(bundle("c2", "t1")).await.unwrap_err();
    assert_eq!(err.storage_reason(), Some(StorageReason::Constraint), "{err}");
    assert_eq!(stored(&store, "c2").await, None, "a taken turn id: nothing of c2");
    assert_eq!(
        store.pending_turn("t1").await.unwrap().unwrap().conversation_id,
        "c1"
    );

    let mut stray = bundle("c3", "t3");
    stray.grants[0].conversation_id = "c1".into();
    let err = store.import_conversation(stray).await.unwrap_err();
    assert_eq!(err.storage_reason(), Some(StorageReason::Constraint), "{err}");
    assert_eq!(stored(&store, "c3").await, None);
    assert_eq!(stored(&store, "c1").await, before);
}
