//! The agent over a store whose writes fail (a full disk, an aborted
//! transaction): a step that was not stored is not reported as done.

use std::cell::Cell;
use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{AgentConfig, TurnError};
use lectern::approval::ApprovalPolicy;
use lectern::domain::Role;
use lectern::error::{Error, StorageReason};
use lectern::events::EventKind;
use lectern::provider::scripted::ScriptedTurn;
use lectern::storage::{Store, StoreArchive, TurnWrite};
use serde_json::json;

use crate::support::harness::approvals::{fixed_policies, with_approvals};
use crate::support::harness::{tools, TestAgent};
use crate::support::hooked_store;
use hooked_store::HookedStore;

/// A memory store whose step commits (those storing tool-call records or a
/// paused turn) fail with a quota error while `full` is set; the turn's
/// other writes (the user message, its open-turn record) still fit.
fn full_store(full: Rc<Cell<bool>>) -> HookedStore {
    HookedStore::failing_commits(move |write: &TurnWrite| {
        let step = !write.tool_calls.is_empty() || write.pending.is_some();
        (full.get() && step).then(|| Error::storage_because(StorageReason::Quota, "the disk is full"))
    })
}

/// An agent over a [`full_store`] (full while the flag is set) whose
/// `lookup` and `write_file` tools count their runs together: the agent, the
/// flag, the runs.
fn harness(
    turns: Vec<ScriptedTurn>,
    config: AgentConfig,
) -> (TestAgent<HookedStore>, Rc<Cell<bool>>, Rc<Cell<u32>>) {
    let full = Rc::new(Cell::new(false));
    let runs = Rc::new(Cell::new(0));
    let counted = |name| tools::counting(name, "a tool", runs.clone(), json!({"done": true}));
    let h = TestAgent::builder(turns)
        .store(Rc::new(full_store(full.clone())))
        .config(config)
        .tool(counted("lookup"))
        .tool(counted("write_file"))
        .build();
    (h, full, runs)
}

/// Sends `text` while the store is full: the turn's error.
fn send_while_full(h: &TestAgent<HookedStore>, full: &Cell<bool>, text: &str) -> TurnError {
    full.set(true);
    let outcome = h.send(text);
    full.set(false);
    outcome.expect_err("the step cannot be stored")
}

#[test]
fn a_tool_step_that_was_not_stored_is_not_reported_done() {
    let (h, full, runs) = harness(
        vec![
            ScriptedTurn::tools(&[("lookup", "{}")]),
            ScriptedTurn::text("never reached"),
        ],
        AgentConfig::default(),
    );
    let failure = send_while_full(&h, &full, "Look it up");

    assert_eq!(
        failure.error.storage_reason(),
        Some(StorageReason::Quota),
        "{}",
        failure.error
    );
    assert_eq!(runs.get(), 1, "the tool ran before the write");
    assert!(
        failure.tool_calls.is_empty(),
        "no tool call is reported done when its step was not stored: {:?}",
        failure.tool_calls
    );
    assert_eq!(h.roles(), [Role::User]);
    assert!(block_on(h.store.tool_calls(&h.conversation)).unwrap().is_empty());
    assert!(!h.events().iter().any(|e| matches!(e, EventKind::Finish { .. })));
}

#[test]
fn a_paused_turn_that_was_not_stored_is_not_reported_waiting_or_done() {
    let config = with_approvals(fixed_policies(&[("write_file", ApprovalPolicy::Ask)]));
    let (h, full, runs) = harness(
        vec![ScriptedTurn::tools(&[("lookup", "{}"), ("write_file", "{}")])],
        config,
    );
    let failure = send_while_full(&h, &full, "Look it up and write it down");

    assert_eq!(
        failure.error.storage_reason(),
        Some(StorageReason::Quota),
        "{}",
        failure.error
    );
    assert_eq!(runs.get(), 1, "only the auto call ran");
    assert!(
        failure.tool_calls.is_empty(),
        "the auto call's record was not stored: {:?}",
        failure.tool_calls
    );
    assert!(block_on(h.store.pending_turns(None)).unwrap().is_empty());
    assert!(block_on(h.store.tool_calls(&h.conversation)).unwrap().is_empty());
    assert!(!h
        .events()
        .iter()
        .any(|e| matches!(e, EventKind::ApprovalRequested { .. })));
}
