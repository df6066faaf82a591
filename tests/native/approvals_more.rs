//! More human in the loop, natively: "always allow" grants, a new message
//! over a paused turn (`onNewMessage`), and approvals switched at run time.

use std::cell::Cell;
use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{SendOptions, TurnOverrides, TurnStatus, MOVED_ON};
use lectern::approval::{
    ApprovalConfig, ApprovalDecision, ApprovalOverrides, ApprovalPolicy, Decision, DecisionKind,
    OnNewMessage, PendingStatus, ToolPolicy,
};
use lectern::domain::{NewConversation, Role};
use lectern::error::Error;
use lectern::provider::scripted::ScriptedTurn;
use lectern::storage::{Store, StoreArchive};
use serde_json::json;

use crate::support::harness::approvals::{approvals, decide, with_approvals, World};

fn write(path: &str) -> (&'static str, String) {
    ("write_file", format!(r#"{{"path":"{path}","text":"x"}}"#))
}

fn tools(calls: &[(&'static str, String)]) -> ScriptedTurn {
    let calls: Vec<(&str, &str)> = calls.iter().map(|(n, a)| (*n, a.as_str())).collect();
    ScriptedTurn::tools(&calls)
}

#[test]
fn approve_always_runs_the_tool_and_the_grant_survives_a_reload_until_reset() {
    let world = World::new(vec![
        tools(&[write("a"), write("b"), ("delete_file", r#"{"path":"z"}"#.into())]),
        ScriptedTurn::text("Wrote a and b."),
        tools(&[write("c")]),
        ScriptedTurn::text("Wrote c."),
        tools(&[write("d")]),
        ScriptedTurn::text("Wrote d."),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write a and b").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert_eq!(paused.pending.len(), 2);
    // One "always" decides both waiting calls of the tool; the denied call stays denied.
    let first = &paused.pending[0].call_id;
    let done = page
        .resolve(&paused.turn_id, &[decide(first, DecisionKind::ApproveAlways)])
        .unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(world.runs_of("write_file").len(), 2);
    assert_eq!(world.runs_of("delete_file").len(), 0);
    let records = block_on(page.agent.tool_calls(&world.conversation)).unwrap();
    let decisions: Vec<(&str, Decision)> = records.iter().map(|r| (r.name.as_str(), r.decision)).collect();
    assert_eq!(decisions.len(), 3);
    for expected in [
        ("write_file", Decision::ApprovedAlways),
        ("delete_file", Decision::Denied),
    ] {
        assert!(decisions.contains(&expected), "{decisions:?}");
    }
    assert!(!decisions.contains(&("write_file", Decision::Approved)));
    let grants = block_on(world.store.grants(&world.conversation)).unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(
        (grants[0].tool_name.as_str(), &grants[0].call_id),
        ("write_file", first)
    );
    assert_eq!(grants[0].turn_id, paused.turn_id);

    // A reload: the next call of the tool runs without a pause.
    let reloaded = world.page(approvals());
    let next = reloaded.send("write c").unwrap();
    assert_eq!(next.status, TurnStatus::Completed, "{next:?}");
    assert_eq!(world.runs_of("write_file").len(), 3);
    let records = block_on(reloaded.agent.tool_calls(&world.conversation)).unwrap();
    assert_eq!(records.iter().filter(|r| r.decision == Decision::Auto).count(), 1);

    // Revoked: it asks again.
    block_on(reloaded.agent.reset_approvals(&world.conversation)).unwrap();
    let asked = reloaded.send("write d").unwrap();
    assert_eq!(asked.status, TurnStatus::AwaitingApproval);
    assert_eq!(world.runs_of("write_file").len(), 3);
    let err = block_on(reloaded.agent.reset_approvals("nope")).unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
}

#[test]
fn a_grant_is_per_conversation_and_never_lifts_deny() {
    let world = World::new(vec![
        tools(&[write("a")]),
        ScriptedTurn::text("ok"),
        tools(&[write("b")]),
        tools(&[write("c")]),
        ScriptedTurn::text("not allowed"),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write a").unwrap();
    let always = decide(&paused.pending[0].call_id, DecisionKind::ApproveAlways);
    page.resolve(&paused.turn_id, &[always]).unwrap();
    // Another conversation still asks.
    let other = page.create_conversation(NewConversation::default());
    let asked = page.send_in(&other, "write b", &SendOptions::default()).unwrap();
    assert_eq!(asked.status, TurnStatus::AwaitingApproval);
    // A page whose policy denies the tool: the grant does not lift `deny`.
    let mut deny = approvals();
    deny.tools
        .insert("write_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Deny));
    let strict = world.page(deny);
    let done = strict.send("write c").unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(world.runs_of("write_file").len(), 1);
    let records = block_on(strict.agent.tool_calls(&world.conversation)).unwrap();
    let decisions: Vec<Decision> = records.iter().map(|r| r.decision).collect();
    assert_eq!(records.len(), 2);
    assert!(decisions.contains(&Decision::Denied), "{decisions:?}");
}

#[test]
fn arguments_on_approve_always_are_refused_and_nothing_is_granted() {
    let world = World::new(vec![tools(&[write("a")])]);
    let page = world.page(approvals());
    let paused = page.send("write a").unwrap();
    let decision = ApprovalDecision {
        arguments: Some(json!({"path": "b"})),
        ..decide(&paused.pending[0].call_id, DecisionKind::ApproveAlways)
    };
    let err = page.resolve(&paused.turn_id, &[decision]).unwrap_err();
    assert_eq!(err.error.name(), "ConfigError", "{err:?}");
    assert!(block_on(world.store.grants(&world.conversation))
        .unwrap()
        .is_empty());
    assert_eq!(world.runs_of("write_file").len(), 0);
}

fn reject_new(approvals: ApprovalConfig) -> ApprovalConfig {
    ApprovalConfig {
        on_new_message: OnNewMessage::Reject,
        ..approvals
    }
}

#[test]
fn a_new_message_over_a_paused_turn_is_refused_by_default() {
    let world = World::new(vec![tools(&[write("a")]), ScriptedTurn::text("never")]);
    let page = world.page(approvals());
    let paused = page.send("write a").unwrap();
    let err = page.send("never mind").unwrap_err();
    assert_eq!(err.error.name(), "ApprovalPendingError");
    let listed = block_on(page.agent.pending_approvals(Some(&world.conversation))).unwrap();
    assert_eq!(listed[0].turn_id, paused.turn_id, "still waiting");
}

#[test]
fn on_new_message_reject_answers_the_calls_and_runs_the_new_message() {
    let world = World::new(vec![
        tools(&[write("a"), ("read_file", r#"{"path":"r"}"#.into())]),
        ScriptedTurn::text("Sure, something else."),
    ]);
    let page = world.page(reject_new(approvals()));
    let paused = page.send("write a").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    let done = page.send("never mind, something else").unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(done.text, "Sure, something else.");
    assert_eq!(world.runs_of("write_file").len(), 0);
    assert_eq!(
        world.history(),
        [
            (Role::User, "write a".to_owned()),
            (Role::Assistant, "call:write_file".to_owned()),
            (Role::ToolResult, MOVED_ON.to_owned()),
            (Role::ToolResult, r#"{"ok":"r"}"#.to_owned()),
            (Role::User, "never mind, something else".to_owned()),
            (Role::Assistant, "Sure, something else.".to_owned()),
        ]
    );
    let stored = block_on(world.store.pending_turn(&paused.turn_id))
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, PendingStatus::MovedOn);
    let records = block_on(page.agent.tool_calls(&world.conversation)).unwrap();
    assert!(records
        .iter()
        .any(|r| r.name == "write_file" && r.decision == Decision::MovedOn));
    // The model's request for the new message showed the moved-on answer.
    let request = world.model.requests().last().unwrap().clone();
    assert!(request.messages.iter().any(|m| m.content == MOVED_ON));
    let resolved = page.resolve(
        &paused.turn_id,
        &[decide(&paused.pending[0].call_id, DecisionKind::Approve)],
    );
    assert_eq!(resolved.unwrap_err().error.name(), "AlreadyResolvedError");
}

#[test]
fn a_send_can_override_on_new_message_either_way() {
    let world = World::new(vec![tools(&[write("a")]), ScriptedTurn::text("Moved on.")]);
    let refusing = world.page(approvals());
    refusing.send("write a").unwrap();
    let per_send = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                on_new_message: Some(OnNewMessage::Reject),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let done = refusing.send_with("something else", &per_send).unwrap();
    assert_eq!(done.text, "Moved on.");

    let world = World::new(vec![tools(&[write("a")])]);
    let rejecting = world.page(reject_new(approvals()));
    rejecting.send("write a").unwrap();
    let keep = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                on_new_message: Some(OnNewMessage::Refuse),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let err = rejecting.send_with("wait", &keep).unwrap_err();
    assert_eq!(err.error.name(), "ApprovalPendingError");
}

#[test]
fn set_approvals_switches_auto_approve_without_a_new_agent() {
    let world = World::new(vec![
        tools(&[write("a")]),
        tools(&[write("b")]),
        ScriptedTurn::text("b written"),
        tools(&[write("c")]),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write a").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    block_on(page.agent.cancel_pending(&paused.turn_id)).unwrap();
    page.agent.set_approvals(ApprovalConfig {
        auto_approve: true,
        ..approvals()
    });
    let done = page.send("write b").unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(world.runs_of("write_file").len(), 1);
    page.agent.set_approvals(approvals());
    let asked = page.send("write c").unwrap();
    assert_eq!(
        asked.status,
        TurnStatus::AwaitingApproval,
        "switched back: it asks again"
    );
    assert_eq!(world.runs_of("write_file").len(), 1);
}

#[test]
fn set_auto_approve_keeps_the_other_policies() {
    let world = World::new(vec![
        tools(&[write("a"), ("delete_file", r#"{"path":"x"}"#.into())]),
        ScriptedTurn::text("a written"),
        tools(&[write("b")]),
    ]);
    let page = world.page(approvals());
    page.agent.set_auto_approve(true);
    assert!(page.agent.approvals().auto_approve);
    let done = page.send("write a, delete x").unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(world.runs_of("write_file").len(), 1, "the ask was approved");
    assert_eq!(world.runs_of("delete_file").len(), 0, "deny still refuses");
    page.agent.set_auto_approve(false);
    let asked = page.send("write b").unwrap();
    assert_eq!(
        asked.status,
        TurnStatus::AwaitingApproval,
        "switched off: it asks again"
    );
}

#[test]
fn a_per_send_auto_approve_holds_for_every_step_of_the_turn() {
    let world = World::new(vec![
        tools(&[
            ("delete_file", r#"{"path":"x"}"#.into()),
            ("read_file", r#"{"path":"r"}"#.into()),
        ]),
        tools(&[write("a")]),
        ScriptedTurn::text("done"),
    ]);
    let mut config = approvals();
    config
        .tools
        .insert("read_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    let page = world.page(config);
    let auto = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                auto_approve: Some(true),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let done = page.send_with("go", &auto).unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(world.runs_of("read_file").len(), 1);
    assert_eq!(
        world.runs_of("write_file").len(),
        1,
        "every step of the turn auto-approves"
    );
    assert_eq!(world.runs_of("delete_file").len(), 0, "deny still refuses");
}

#[test]
fn a_per_send_auto_approve_false_asks_even_when_the_instance_auto_approves() {
    let world = World::new(vec![tools(&[write("a")]), ScriptedTurn::text("written")]);
    let page = world.page(ApprovalConfig {
        auto_approve: true,
        ..approvals()
    });
    let ask = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                auto_approve: Some(false),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let paused = page.send_with("write a", &ask).unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    // The paused turn keeps its override: a reload with the same instance setting still resumes it.
    let stored = block_on(world.store.pending_turn(&paused.turn_id))
        .unwrap()
        .unwrap();
    assert_eq!(stored.step.state.overrides.approvals.auto_approve, Some(false));
    let done = page
        .resolve(
            &paused.turn_id,
            &[decide(&paused.pending[0].call_id, DecisionKind::Approve)],
        )
        .unwrap();
    assert_eq!(done.text, "written");
}

/// A turn reads paused and open turns only when the store counts some: a
/// conversation that never paused never fetches the store's archive (in the
/// package, a chunk of the page's module); one that did fetches it once.
#[test]
fn only_a_conversation_with_paused_turns_fetches_the_archive() {
    let world = World::new(vec![
        ScriptedTurn::text("Hello."),
        tools(&[write("b.txt")]),
        ScriptedTurn::text("never read"),
    ]);
    let loads = Rc::new(Cell::new(0));
    let page = world
        .page_builder(with_approvals(approvals()))
        .archive_on_first_use(loads.clone())
        .build();
    assert_eq!(page.send("hi").unwrap().text, "Hello.");
    // What <lectern-chat> reads to show a conversation.
    let id = Some(world.conversation.as_str());
    assert!(block_on(page.agent.pending_approvals(id)).unwrap().is_empty());
    assert!(block_on(page.agent.interrupted_turns(id)).unwrap().is_empty());
    assert!(block_on(page.agent.runs()).unwrap().is_empty());
    let paused = page.send("write").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert_eq!(loads.get(), 0, "no paused or open turn was read");
    for text in ["again", "and again"] {
        let refused = page.send(text).unwrap_err();
        assert!(matches!(refused.error, Error::ApprovalPending { .. }));
    }
    assert_eq!(loads.get(), 1, "fetched at the first read, and kept");
    assert_eq!(block_on(page.agent.pending_approvals(id)).unwrap().len(), 1);
    assert_eq!(loads.get(), 1);
}
