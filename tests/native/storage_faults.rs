//! The agent over a store whose writes fail (a full disk, an aborted
//! transaction): a step that was not stored is not reported as done.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, SendOptions, TurnError};
use lectern::approval::{ApprovalConfig, ApprovalPolicy, ToolPolicy};
use lectern::domain::{NewConversation, Role};
use lectern::error::{Error, StorageReason};
use lectern::events::{EventKind, EventSink};
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::storage::{Store, TurnWrite};
use lectern::time::ManualClock;
use lectern::tool::{FnTool, Tool, ToolContext, ToolResult};
use serde_json::{json, Value};

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

struct Harness {
    agent: Agent,
    store: Rc<HookedStore>,
    full: Rc<Cell<bool>>,
    conversation: String,
    runs: Rc<Cell<u32>>,
    events: Rc<RefCell<Vec<EventKind>>>,
}

/// A tool that counts its runs.
fn tool(name: &str, runs: Rc<Cell<u32>>) -> impl Tool {
    FnTool::new(
        name,
        "a tool",
        json!({"type": "object"}),
        move |_args: Value, _ctx: ToolContext| -> LocalBoxFuture<'static, ToolResult> {
            runs.set(runs.get() + 1);
            Box::pin(async { Ok(json!({"done": true})) })
        },
    )
}

fn harness(turns: Vec<ScriptedTurn>, config: AgentConfig) -> Harness {
    let full = Rc::new(Cell::new(false));
    let store = Rc::new(full_store(full.clone()));
    let model = Rc::new(ScriptedModel::new(turns));
    let clock = Rc::new(ManualClock::new(1_700_000_000_000.0));
    let agent = Agent::new(store.clone(), model, clock, config);
    let runs = Rc::new(Cell::new(0));
    for name in ["lookup", "write_file"] {
        agent.register_tool(Rc::new(tool(name, runs.clone()))).unwrap();
    }
    let conversation = block_on(agent.create_conversation(NewConversation::default()))
        .unwrap()
        .id;
    Harness {
        agent,
        store,
        full,
        conversation,
        runs,
        events: Rc::default(),
    }
}

impl Harness {
    fn send_while_full(&self, text: &str) -> TurnError {
        self.full.set(true);
        let events = self.events.clone();
        let sink = EventSink::new(move |e| events.borrow_mut().push(e.kind));
        let outcome = block_on(
            self.agent
                .send(&self.conversation, text, &SendOptions::default(), &sink),
        );
        self.full.set(false);
        outcome.expect_err("the step cannot be stored")
    }

    fn saw(&self, wanted: fn(&EventKind) -> bool) -> bool {
        self.events.borrow().iter().any(wanted)
    }
}

#[test]
fn a_tool_step_that_was_not_stored_is_not_reported_done() {
    let h = harness(
        vec![
            ScriptedTurn::tools(&[("lookup", "{}")]),
            ScriptedTurn::text("never reached"),
        ],
        AgentConfig::default(),
    );
    let failure = h.send_while_full("Look it up");

    assert_eq!(
        failure.error.storage_reason(),
        Some(StorageReason::Quota),
        "{}",
        failure.error
    );
    assert_eq!(h.runs.get(), 1, "the tool ran before the write");
    assert!(
        failure.tool_calls.is_empty(),
        "no tool call is reported done when its step was not stored: {:?}",
        failure.tool_calls
    );
    let stored = block_on(h.store.messages(&h.conversation)).unwrap();
    assert_eq!(stored.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User]);
    assert!(block_on(h.store.tool_calls(&h.conversation)).unwrap().is_empty());
    assert!(!h.saw(|e| matches!(e, EventKind::Finish { .. })));
}

#[test]
fn a_paused_turn_that_was_not_stored_is_not_reported_waiting_or_done() {
    let mut approvals = ApprovalConfig::default();
    approvals
        .tools
        .insert("write_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    let config = AgentConfig {
        approvals,
        ..AgentConfig::default()
    };
    let h = harness(
        vec![ScriptedTurn::tools(&[("lookup", "{}"), ("write_file", "{}")])],
        config,
    );
    let failure = h.send_while_full("Look it up and write it down");

    assert_eq!(
        failure.error.storage_reason(),
        Some(StorageReason::Quota),
        "{}",
        failure.error
    );
    assert_eq!(h.runs.get(), 1, "only the auto call ran");
    assert!(
        failure.tool_calls.is_empty(),
        "the auto call's record was not stored: {:?}",
        failure.tool_calls
    );
    assert!(block_on(h.store.pending_turns(None)).unwrap().is_empty());
    assert!(block_on(h.store.tool_calls(&h.conversation)).unwrap().is_empty());
    assert!(!h.saw(|e| matches!(e, EventKind::ApprovalRequested { .. })));
}
