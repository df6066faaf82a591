//! Conformance cases for the "always allow" grants: written with a step
//! commit (all or nothing), read per conversation, cleared, and deleted with
//! their conversation.

use lectern::approval::Grant;
use lectern::domain::{Conversation, Message, Role};
use lectern::error::Error;
use lectern::storage::{Store, StoreArchive, TurnWrite};

fn conversation(id: &str) -> Conversation {
    Conversation {
        id: id.to_owned(),
        title: id.to_owned(),
        created_at: 1.0,
        book_id: None,
        working_state: None,
    }
}

fn grant(conversation_id: &str, tool: &str, at: f64) -> Grant {
    Grant {
        conversation_id: conversation_id.to_owned(),
        tool_name: tool.to_owned(),
        granted_at: at,
        turn_id: "t1".into(),
        call_id: format!("call_{tool}"),
    }
}

fn tools(grants: Vec<Grant>) -> Vec<String> {
    grants.into_iter().map(|g| g.tool_name).collect()
}

pub(super) async fn grants_are_written_with_a_commit_and_read_back(store: impl Store + StoreArchive) {
    for id in ["c1", "c2"] {
        store.create_conversation(&conversation(id)).await.unwrap();
    }
    assert!(store.grants("c1").await.unwrap().is_empty());
    let write = TurnWrite {
        messages: vec![Message::new("m1".into(), "c1", Role::User, "hi", 1.0)],
        grants: vec![grant("c1", "write_file", 5.0), grant("c1", "écrire ✓", 5.0)],
        ..TurnWrite::default()
    };
    store.commit(write).await.unwrap();
    let again = TurnWrite {
        grants: vec![grant("c1", "write_file", 9.0), grant("c2", "lookup", 9.0)],
        ..TurnWrite::default()
    };
    store.commit(again).await.unwrap();
    let c1 = store.grants("c1").await.unwrap();
    assert_eq!(tools(c1.clone()), ["write_file", "écrire ✓"]);
    assert_eq!(
        c1[0],
        grant("c1", "write_file", 9.0),
        "a second grant replaces the first"
    );
    assert_eq!(tools(store.grants("c2").await.unwrap()), ["lookup"]);
    assert_eq!(store.messages("c1").await.unwrap().len(), 1);
    let err = store.grants("ghost").await.unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
}

pub(super) async fn a_refused_commit_writes_no_grant(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1")).await.unwrap();
    let write = TurnWrite {
        messages: vec![Message::new("m1".into(), "c1", Role::User, "hi", 1.0)],
        grants: vec![grant("c1", "write_file", 5.0), grant("ghost", "write_file", 5.0)],
        ..TurnWrite::default()
    };
    assert!(matches!(store.commit(write).await, Err(Error::NotFound { .. })));
    assert!(
        store.grants("c1").await.unwrap().is_empty(),
        "nothing may be half-written"
    );
    assert!(store.messages("c1").await.unwrap().is_empty());
}

pub(super) async fn grants_are_cleared_and_deleted_with_their_conversation(store: impl Store + StoreArchive) {
    for id in ["c1", "c2"] {
        store.create_conversation(&conversation(id)).await.unwrap();
        let write = TurnWrite {
            grants: vec![grant(id, "write_file", 5.0), grant(id, "lookup", 5.0)],
            ..TurnWrite::default()
        };
        store.commit(write).await.unwrap();
    }
    store.clear_grants("c1").await.unwrap();
    assert!(store.grants("c1").await.unwrap().is_empty());
    assert_eq!(
        store.grants("c2").await.unwrap().len(),
        2,
        "other conversations keep theirs"
    );
    assert_eq!(
        store.clear_grants("ghost").await.unwrap_err().name(),
        "NotFoundError"
    );
    store.delete_conversation("c2").await.unwrap();
    store.create_conversation(&conversation("c2")).await.unwrap();
    assert!(
        store.grants("c2").await.unwrap().is_empty(),
        "a deleted conversation's grants are gone with it"
    );
}
