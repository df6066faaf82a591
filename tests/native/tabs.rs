//! Two agents on one store — two tabs on one database — sharing their turn
//! locks, natively on the manual clock with timers: turns on one conversation
//! never interleave, `lockWaitMs` bounds the wait for the other tab, and the
//! paused-turn check happens inside the lock.

use std::rc::Rc;

use lectern::agent::{AgentConfig, MemoryLocks, RunLimits, SendOptions, TurnStatus};
use lectern::approval::ApprovalPolicy;
use lectern::domain::Role;
use lectern::error::Error;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::{Clock, ManualClock};
use serde_json::json;

use crate::support::harness::approvals::fixed_policies;
use crate::support::harness::{tools, TestAgent};

const START: f64 = 1_700_000_000_000.0;

/// Two agents (tabs) over one store, model and clock, sharing one set of turn
/// locks and one conversation. Their `pause` tool sleeps `pause_ms`; `write` asks for approval.
fn tabs(turns: Vec<ScriptedTurn>, limits: RunLimits, pause_ms: u64) -> (TestAgent, TestAgent) {
    let clock = ManualClock::with_timers(START);
    let config = AgentConfig {
        limits,
        approvals: fixed_policies(&[("write", ApprovalPolicy::Ask)]),
        ..AgentConfig::default()
    };
    let tab = TestAgent::builder(turns)
        .clock(clock.clone())
        .config(config)
        .locks(Rc::new(MemoryLocks::new()))
        .tool(tools::sleeping(
            "pause",
            "waits",
            &clock,
            pause_ms,
            json!("paused"),
        ))
        .tool(tools::answering("write", "writes", json!("written")));
    let a = tab.clone().build();
    let b = tab.open(&a.conversation).build();
    (a, b)
}

#[test]
fn two_tabs_sending_at_the_same_moment_take_turns() {
    let (a, b) = tabs(
        vec![
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::text("first done"),
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::text("second done"),
        ],
        RunLimits::default(),
        30,
    );
    let options = SendOptions::default();
    let (one, two) = a
        .clock
        .drive(async { futures::join!(a.sending("one", &options), b.sending("two", &options)) });
    assert_eq!(one.unwrap().text, "first done");
    assert_eq!(two.unwrap().text, "second done");
    let roles: Vec<Role> = a.history().into_iter().map(|(role, _)| role).collect();
    use Role::{Assistant, ToolResult as Result, User};
    assert_eq!(
        roles,
        [User, Assistant, Result, Assistant, User, Assistant, Result, Assistant],
        "the second tab's turn began after the first tab's ended"
    );
    assert_eq!(a.history()[4].1, "two");
}

#[test]
fn a_tab_waits_for_the_other_no_longer_than_lock_wait_ms() {
    let limits = RunLimits {
        lock_wait_ms: Some(10),
        ..RunLimits::default()
    };
    let (a, b) = tabs(
        vec![
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::text("done"),
            ScriptedTurn::text("and again"),
        ],
        limits,
        200,
    );
    let options = SendOptions::default();
    let (one, (two, refused_at)) = a.clock.drive(async {
        futures::join!(a.sending("one", &options), async {
            let outcome = b.sending("two", &options).await;
            (outcome, a.clock.now_ms())
        })
    });
    assert_eq!(one.unwrap().text, "done");
    assert_eq!(
        two.unwrap_err().error,
        Error::ConversationBusy {
            conversation_id: a.conversation.clone(),
            waited_ms: 10
        }
    );
    assert_eq!(
        refused_at - START,
        10.0,
        "refused when the wait ran out, not when the turn ended"
    );
    // The withdrawn request holds nothing: the conversation is free again.
    let again = b.send("three").unwrap();
    assert_eq!(again.text, "and again");
}

#[test]
fn a_tab_that_gets_the_lock_after_the_other_paused_sees_the_paused_turn() {
    let (a, b) = tabs(
        vec![
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::tools(&[("write", "{}")]),
        ],
        RunLimits::default(),
        30,
    );
    let options = SendOptions::default();
    let (one, two) = a
        .clock
        .drive(async { futures::join!(a.sending("one", &options), b.sending("two", &options)) });
    let paused = one.unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert_eq!(
        two.unwrap_err().error,
        Error::ApprovalPending {
            conversation_id: a.conversation.clone(),
            turn_id: paused.turn_id
        }
    );
    let users = a.roles().into_iter().filter(|role| *role == Role::User).count();
    assert_eq!(users, 1, "the refused message was not stored");
}
