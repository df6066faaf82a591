//! Conformance cases for open-turn records: written and deleted with a step
//! commit (all or nothing), listed per conversation or all, and deleted with
//! their conversation.

use lectern::domain::{Conversation, Message, OpenTurn, OpenTurnChange, Role, TurnState};
use lectern::error::Error;
use lectern::storage::{Store, StoreArchive, TurnWrite};

fn conversation(id: &str) -> Conversation {
    super::conversation(id, 1.0)
}

fn open(conversation_id: &str, turn_id: &str, steps: u32) -> OpenTurn {
    OpenTurn {
        turn_id: turn_id.to_owned(),
        conversation_id: conversation_id.to_owned(),
        started_at: 10.0,
        updated_at: 10.0 + f64::from(steps),
        prepared: steps > 0,
        mentions: Vec::new(),
        state: TurnState {
            steps,
            ..TurnState::default()
        },
        step: None,
    }
}

fn put(turn: OpenTurn) -> TurnWrite {
    TurnWrite {
        open_turn: Some(OpenTurnChange::Put(Box::new(turn))),
        ..TurnWrite::default()
    }
}

fn ids(turns: Vec<OpenTurn>) -> Vec<(String, String)> {
    turns
        .into_iter()
        .map(|t| (t.conversation_id, t.turn_id))
        .collect()
}

fn pair(conversation_id: &str, turn_id: &str) -> (String, String) {
    (conversation_id.to_owned(), turn_id.to_owned())
}

pub(super) async fn open_turns_are_put_replaced_and_deleted_by_commits(store: impl Store + StoreArchive) {
    for id in ["c1", "c2"] {
        store.create_conversation(&conversation(id)).await.unwrap();
    }
    let begin = TurnWrite {
        messages: vec![Message::new("m1".into(), "c1", Role::User, "hi", 1.0)],
        ..put(open("c1", "t1", 0))
    };
    store.commit(begin).await.unwrap();
    store.commit(put(open("c2", "t2", 0))).await.unwrap();
    store.commit(put(open("c1", "t1", 3))).await.unwrap();
    let all = store.open_turns(None).await.unwrap();
    assert_eq!(ids(all.clone()), [pair("c1", "t1"), pair("c2", "t2")]);
    assert_eq!(all[0], open("c1", "t1", 3), "a second put replaces the first");
    assert_eq!(
        ids(store.open_turns(Some("c2")).await.unwrap()),
        [pair("c2", "t2")]
    );
    assert!(store.open_turns(Some("ghost")).await.unwrap().is_empty());
    assert!(store.has_open_turns("c1").await.unwrap());
    assert!(!store.has_open_turns("ghost").await.unwrap());

    let end = TurnWrite {
        messages: vec![Message::new("m2".into(), "c1", Role::Assistant, "bye", 2.0)],
        open_turn: Some(OpenTurnChange::Delete {
            conversation_id: "c1".into(),
            turn_id: "t1".into(),
        }),
        ..TurnWrite::default()
    };
    store.commit(end).await.unwrap();
    assert_eq!(ids(store.open_turns(None).await.unwrap()), [pair("c2", "t2")]);
    assert!(!store.has_open_turns("c1").await.unwrap());
    assert!(store.has_open_turns("c2").await.unwrap());
    assert_eq!(store.messages("c1").await.unwrap().len(), 2);
}

pub(super) async fn an_open_turn_needs_its_conversation_and_goes_with_it(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1")).await.unwrap();
    let orphan = TurnWrite {
        messages: vec![Message::new("m1".into(), "c1", Role::User, "hi", 1.0)],
        ..put(open("ghost", "t9", 0))
    };
    let err = store.commit(orphan).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
    assert!(
        store.messages("c1").await.unwrap().is_empty(),
        "nothing of the write was kept"
    );
    assert!(store.open_turns(None).await.unwrap().is_empty());

    store.create_conversation(&conversation("c2")).await.unwrap();
    store.commit(put(open("c1", "t1", 1))).await.unwrap();
    store.commit(put(open("c2", "t2", 1))).await.unwrap();
    store.delete_conversation("c1").await.unwrap();
    assert_eq!(ids(store.open_turns(None).await.unwrap()), [pair("c2", "t2")]);
    store.delete_all_conversations().await.unwrap();
    assert!(store.open_turns(None).await.unwrap().is_empty());
}
