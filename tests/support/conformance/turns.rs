//! Conformance cases for the turn records: atomic commits, paused turns
//! with their revision check, tool-call records and headless runs.

use serde_json::json;

use lectern::approval::{Decision, PausedStep, PendingCall, PendingStatus, PendingTurn};
use lectern::domain::{Conversation, Message, ReasoningBlock, Role, ToolCall};
use lectern::domain::{RunRecord, RunStatus, ToolCallRecord, TurnState};
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

pub(super) fn pending(turn_id: &str, conversation_id: &str, created_at: f64) -> PendingTurn {
    PendingTurn {
        turn_id: turn_id.to_owned(),
        conversation_id: conversation_id.to_owned(),
        calls: vec![PendingCall {
            call_id: "call_1".into(),
            tool_name: "write".into(),
            arguments: json!({ "path": "a" }),
        }],
        created_at,
        expires_at: created_at + 1000.0,
        status: PendingStatus::Awaiting,
        revision: 0,
        step: PausedStep {
            text: "Let me write that.".into(),
            reasoning: vec![ReasoningBlock {
                text: "They asked for a file.".into(),
                signature: Some("sig".into()),
                redacted: None,
            }],
            calls: vec![ToolCall {
                id: "call_1".into(),
                name: "write".into(),
                arguments: r#"{"path":"a"}"#.into(),
            }],
            settled: Vec::new(),
            running: Vec::new(),
            claim_expires_at: None,
            offered: vec!["write".into()],
            over_limit: false,
            state: TurnState {
                steps: 1,
                user_id: Some("u1".into()),
                ..TurnState::default()
            },
        },
    }
}

pub(super) fn record(conversation_id: &str, turn_id: &str, position: u32) -> ToolCallRecord {
    let call = ToolCall {
        id: format!("call_{position}"),
        name: "write".into(),
        arguments: "{}".into(),
    };
    let mut record = ToolCallRecord::not_run(&call, "{}".into(), Decision::Denied, "Denied".into(), 5.0);
    record.conversation_id = conversation_id.to_owned();
    record.turn_id = turn_id.to_owned();
    record.position = position;
    record
}

fn run_record(run_id: &str, started_at: f64) -> RunRecord {
    RunRecord::started(run_id.to_owned(), "c1", "do it", started_at)
}

pub(super) async fn commit_writes_all_parts_together(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1")).await.unwrap();
    let mut answer = Message::new("m2".into(), "c1", Role::Assistant, "", 2.0);
    answer.reasoning = pending("t1", "c1", 10.0).step.reasoning;
    let write = TurnWrite {
        messages: vec![Message::new("m1".into(), "c1", Role::User, "hi", 1.0), answer],
        tool_calls: vec![record("c1", "t1", 0)],
        pending: Some(pending("t1", "c1", 10.0)),
        ..TurnWrite::default()
    };
    let stored = store.commit(write).await.unwrap();
    assert_eq!(stored[0].seq, 0, "commit assigns seq like append");
    let messages = store.messages("c1").await.unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        messages[1].reasoning[0].signature.as_deref(),
        Some("sig"),
        "reasoning is kept"
    );
    assert_eq!(store.tool_calls("c1").await.unwrap(), [record("c1", "t1", 0)]);
    assert_eq!(
        store.pending_turn("t1").await.unwrap(),
        Some(pending("t1", "c1", 10.0))
    );
}

pub(super) async fn a_stale_revision_writes_nothing(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1")).await.unwrap();
    let first = pending("t1", "c1", 10.0);
    store
        .commit(TurnWrite {
            pending: Some(first.clone()),
            ..TurnWrite::default()
        })
        .await
        .unwrap();
    // A second writer that read revision 0 too: its claim must fail, whole.
    let mut claimed = first.clone();
    claimed.status = PendingStatus::Resolving;
    claimed.revision = 1;
    store
        .commit(TurnWrite {
            pending: Some(claimed.clone()),
            ..TurnWrite::default()
        })
        .await
        .unwrap();
    let stale = TurnWrite {
        messages: vec![Message::new("m1".into(), "c1", Role::User, "hi", 1.0)],
        tool_calls: vec![record("c1", "t1", 0)],
        pending: Some(claimed.clone()),
        ..TurnWrite::default()
    };
    let err = store.commit(stale).await.unwrap_err();
    assert_eq!(
        err,
        Error::AlreadyResolved {
            turn_id: "t1".into(),
            state: "resolving".into()
        }
    );
    assert!(
        store.messages("c1").await.unwrap().is_empty(),
        "no message written"
    );
    assert!(
        store.tool_calls("c1").await.unwrap().is_empty(),
        "no record written"
    );
    let again = TurnWrite {
        pending: Some(first),
        ..TurnWrite::default()
    };
    assert!(
        store.commit(again).await.is_err(),
        "a new turn with a used id is refused"
    );
    assert_eq!(store.pending_turn("t1").await.unwrap(), Some(claimed));
}

pub(super) async fn a_settled_turn_is_kept_as_a_tombstone(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1")).await.unwrap();
    let open = pending("t1", "c1", 10.0);
    let write = |pending| TurnWrite {
        pending: Some(pending),
        ..TurnWrite::default()
    };
    store.commit(write(open.clone())).await.unwrap();
    let mut resolved = open.clone();
    resolved.status = PendingStatus::Resolved;
    resolved.revision = 1;
    store.commit(write(resolved.clone())).await.unwrap();
    let kept = store.pending_turn("t1").await.unwrap().expect("kept");
    assert_eq!(kept, resolved.clone().pruned());
    assert_eq!(
        (kept.status, kept.revision, kept.expires_at),
        (PendingStatus::Resolved, 1, open.expires_at)
    );
    assert!(
        kept.calls.is_empty() && kept.step == PausedStep::default(),
        "{kept:?}"
    );
    // The revision check still refuses a writer that read the open turn.
    let mut late = open.clone();
    late.status = PendingStatus::Resolving;
    late.revision = 1;
    let err = store.commit(write(late)).await.unwrap_err();
    assert_eq!(
        err,
        Error::AlreadyResolved {
            turn_id: "t1".into(),
            state: "resolved".into()
        }
    );
}

pub(super) async fn lists_paused_turns_by_conversation_in_id_order(store: impl Store + StoreArchive) {
    for id in ["c1", "c2"] {
        store.create_conversation(&conversation(id)).await.unwrap();
    }
    for (turn, owner, at) in [("t2", "c1", 20.0), ("t1", "c1", 10.0), ("t3", "c2", 5.0)] {
        let write = TurnWrite {
            pending: Some(pending(turn, owner, at)),
            ..TurnWrite::default()
        };
        store.commit(write).await.unwrap();
    }
    let ids = |turns: Vec<PendingTurn>| turns.into_iter().map(|t| t.turn_id).collect::<Vec<_>>();
    assert!(store.has_pending_turns("c1").await.unwrap());
    assert!(!store.has_pending_turns("ghost").await.unwrap());
    assert_eq!(ids(store.pending_turns(Some("c1")).await.unwrap()), ["t1", "t2"]);
    assert_eq!(ids(store.pending_turns(None).await.unwrap()), ["t1", "t2", "t3"]);
    assert!(store.pending_turn("nope").await.unwrap().is_none());
    let orphan = TurnWrite {
        pending: Some(pending("t9", "missing", 1.0)),
        ..TurnWrite::default()
    };
    assert!(matches!(store.commit(orphan).await, Err(Error::NotFound { .. })));
}

pub(super) async fn tool_call_records_come_back_by_turn_and_position(store: impl Store + StoreArchive) {
    store.create_conversation(&conversation("c1")).await.unwrap();
    let write = TurnWrite {
        tool_calls: vec![
            record("c1", "t2", 0),
            record("c1", "t1", 1),
            record("c1", "t1", 0),
        ],
        ..TurnWrite::default()
    };
    store.commit(write).await.unwrap();
    let order: Vec<(String, u32)> = store
        .tool_calls("c1")
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.turn_id, r.position))
        .collect();
    assert_eq!(order, [("t1".into(), 0), ("t1".into(), 1), ("t2".into(), 0)]);
    assert!(matches!(
        store.tool_calls("missing").await,
        Err(Error::NotFound { .. })
    ));
}

pub(super) async fn deleting_a_conversation_removes_its_turn_records(store: impl Store + StoreArchive) {
    for id in ["c1", "c2"] {
        store.create_conversation(&conversation(id)).await.unwrap();
    }
    for owner in ["c1", "c2"] {
        let write = TurnWrite {
            tool_calls: vec![record(owner, &format!("t-{owner}"), 0)],
            pending: Some(pending(&format!("t-{owner}"), owner, 1.0)),
            ..TurnWrite::default()
        };
        store.commit(write).await.unwrap();
    }
    store.delete_conversation("c1").await.unwrap();
    assert!(!store.has_pending_turns("c1").await.unwrap());
    assert!(store.has_pending_turns("c2").await.unwrap());
    assert!(store.pending_turn("t-c1").await.unwrap().is_none());
    assert!(store.pending_turns(Some("c1")).await.unwrap().is_empty());
    assert!(store.pending_turn("t-c2").await.unwrap().is_some());
    assert_eq!(store.tool_calls("c2").await.unwrap().len(), 1);
}

pub(super) async fn runs_round_trip(store: impl Store + StoreArchive) {
    assert!(!store.has_runs().await.unwrap());
    store.put_run(&run_record("r2", 20.0)).await.unwrap();
    assert!(store.has_runs().await.unwrap());
    store.put_run(&run_record("r1", 10.0)).await.unwrap();
    let mut done = run_record("r2", 20.0);
    done.status = RunStatus::Completed;
    done.finished_at = Some(30.0);
    store.put_run(&done).await.unwrap();
    assert_eq!(store.run("r2").await.unwrap(), Some(done.clone()));
    assert!(store.run("nope").await.unwrap().is_none());
    assert_eq!(store.runs().await.unwrap(), [run_record("r1", 10.0), done]);
}

/// Everything of every conversation goes in one step: messages, tool-call
/// records, paused turns, usage totals and runs.
pub async fn deleting_all_conversations_removes_every_record(store: impl Store + StoreArchive) {
    for id in ["c1", "c2"] {
        store.create_conversation(&conversation(id)).await.unwrap();
        let user = Message::new(format!("m-{id}"), id, Role::User, "hi", 1.0);
        let write = TurnWrite {
            messages: vec![user],
            tool_calls: vec![record(id, "t1", 0)],
            pending: Some(pending(&format!("p-{id}"), id, 2.0)),
            grants: Vec::new(),
            open_turn: None,
        };
        store.commit(write).await.unwrap();
    }
    store.put_run(&run_record("r1", 1.0)).await.unwrap();
    let usage = lectern::domain::CallUsage {
        usage: lectern::domain::Usage::default(),
        cost_usd: None,
        first_of_turn: true,
    };
    store.add_usage("c1", usage).await.unwrap();
    store.delete_all_conversations().await.unwrap();
    assert!(store.conversations().await.unwrap().is_empty());
    assert!(store.runs().await.unwrap().is_empty());
    assert!(store.pending_turns(None).await.unwrap().is_empty());
    assert!(store.pending_turn("p-c1").await.unwrap().is_none());
    for id in ["c1", "c2"] {
        assert!(matches!(store.messages(id).await, Err(Error::NotFound { .. })));
        assert!(matches!(store.tool_calls(id).await, Err(Error::NotFound { .. })));
        assert!(matches!(
            store.usage_totals(id).await,
            Err(Error::NotFound { .. })
        ));
    }
    // A conversation made again with an old id starts empty.
    store.create_conversation(&conversation("c1")).await.unwrap();
    assert!(store.messages("c1").await.unwrap().is_empty());
    assert!(store.tool_calls("c1").await.unwrap().is_empty());
    assert_eq!(store.usage_totals("c1").await.unwrap().turns, 0);
}
