//! The agent over a store whose writes fail (a full disk, an aborted
//! transaction): a step that was not stored is not reported as done.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, RunRecord, SendOptions, ToolCallRecord, TurnError};
use lectern::approval::{ApprovalConfig, ApprovalPolicy, PendingTurn, ToolPolicy};
use lectern::domain::{Conversation, Message, NewConversation, Role};
use lectern::error::{Error, Result, StorageReason};
use lectern::events::{EventKind, EventSink};
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::storage::{MemoryStore, Store, TurnWrite};
use lectern::time::ManualClock;
use lectern::tool::{FnTool, Tool, ToolContext, ToolResult};
use serde_json::{json, Value};

/// A memory store whose step commits (those storing tool-call records or a
/// paused turn) fail with a quota error while `full` is set; the turn's
/// other writes (the user message, its open-turn record) still fit.
#[derive(Default)]
struct FullStore {
    inner: MemoryStore,
    full: Cell<bool>,
}

impl Store for FullStore {
    fn create_conversation<'a>(&'a self, c: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.create_conversation(c)
    }
    fn conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Conversation>>> {
        self.inner.conversation(id)
    }
    fn update_conversation<'a>(&'a self, c: &'a Conversation) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.update_conversation(c)
    }
    fn conversations(&self) -> LocalBoxFuture<'_, Result<Vec<Conversation>>> {
        self.inner.conversations()
    }
    fn delete_conversation<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.delete_conversation(id)
    }
    fn append_messages(&self, messages: Vec<Message>) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        self.inner.append_messages(messages)
    }
    fn messages<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        self.inner.messages(id)
    }
    fn recent_messages<'a>(
        &'a self,
        id: &'a str,
        before_seq: Option<u32>,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Message>>> {
        self.inner.recent_messages(id, before_seq, limit)
    }
    fn commit(&self, write: TurnWrite) -> LocalBoxFuture<'_, Result<Vec<Message>>> {
        let step = !write.tool_calls.is_empty() || write.pending.is_some();
        if self.full.get() && step {
            let error = Error::storage_because(StorageReason::Quota, "the disk is full");
            return Box::pin(async move { Err(error) });
        }
        self.inner.commit(write)
    }
    fn pending_turn<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<PendingTurn>>> {
        self.inner.pending_turn(id)
    }
    fn pending_turns<'a>(&'a self, id: Option<&'a str>) -> LocalBoxFuture<'a, Result<Vec<PendingTurn>>> {
        self.inner.pending_turns(id)
    }
    fn tool_calls<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<ToolCallRecord>>> {
        self.inner.tool_calls(id)
    }
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.put_run(run)
    }
    fn run<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<RunRecord>>> {
        self.inner.run(id)
    }
    fn runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>>> {
        self.inner.runs()
    }
    fn add_usage<'a>(
        &'a self,
        conversation_id: &'a str,
        call: lectern::domain::CallUsage,
    ) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.add_usage(conversation_id, call)
    }
    fn delete_all_conversations(&self) -> LocalBoxFuture<'_, Result<()>> {
        self.inner.delete_all_conversations()
    }
    fn usage_totals<'a>(
        &'a self,
        conversation_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<lectern::domain::UsageTotals>> {
        self.inner.usage_totals(conversation_id)
    }
    fn grants<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<lectern::approval::Grant>>> {
        self.inner.grants(id)
    }
    fn clear_grants<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.clear_grants(id)
    }
    fn context_summary<'a>(
        &'a self,
        id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<lectern::domain::ContextSummary>>> {
        self.inner.context_summary(id)
    }
    fn put_context_summary<'a>(
        &'a self,
        summary: &'a lectern::domain::ContextSummary,
    ) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.put_context_summary(summary)
    }
    fn append_turn_events<'a>(
        &'a self,
        conversation_id: &'a str,
        turn_id: &'a str,
        events: Vec<serde_json::Value>,
    ) -> LocalBoxFuture<'a, Result<()>> {
        self.inner.append_turn_events(conversation_id, turn_id, events)
    }
    fn turn_events<'a>(&'a self, turn_id: &'a str) -> LocalBoxFuture<'a, Result<Vec<serde_json::Value>>> {
        self.inner.turn_events(turn_id)
    }
    fn recorded_turns<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Vec<String>>> {
        self.inner.recorded_turns(id)
    }
    fn import_conversation(
        &self,
        import: lectern::storage::ConversationImport,
    ) -> LocalBoxFuture<'_, Result<()>> {
        self.inner.import_conversation(import)
    }

    fn open_turns<'a>(
        &'a self,
        conversation_id: Option<&'a str>,
    ) -> LocalBoxFuture<'a, Result<Vec<lectern::domain::OpenTurn>>> {
        self.inner.open_turns(conversation_id)
    }
}

struct Harness {
    agent: Agent,
    store: Rc<FullStore>,
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
    let store = Rc::new(FullStore::default());
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
        conversation,
        runs,
        events: Rc::default(),
    }
}

impl Harness {
    fn send_while_full(&self, text: &str) -> TurnError {
        self.store.full.set(true);
        let events = self.events.clone();
        let sink = EventSink::new(move |e| events.borrow_mut().push(e.kind));
        let outcome = block_on(
            self.agent
                .send(&self.conversation, text, &SendOptions::default(), &sink),
        );
        self.store.full.set(false);
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
