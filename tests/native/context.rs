//! The context a step reads: a bounded window of the newest messages (the
//! same window a full read gave, at a cost that does not grow with the
//! conversation), and settled paused turns kept small.

use std::cell::Cell;
use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{history_window, read_window, ContextStrategy};
use lectern::approval::{ApprovalPolicy, PendingStatus};
use lectern::domain::{Conversation, Message, Role, ToolCall};
use lectern::error::Error;
use lectern::provider::scripted::ScriptedTurn;
use lectern::storage::{MemoryStore, Store, StoreArchive};
use serde_json::json;

use crate::support::harness::approvals::{approve, fixed_policies, with_approvals};
use crate::support::harness::{tools, TestAgent};

use crate::support::hooked_store;
use hooked_store::HookedStore;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn message(conversation: &str, role: Role, content: String) -> Message {
    Message::new(String::new(), conversation, role, content, 0.0)
}

/// `count` messages or a little more: users, answers, and tool calls with
/// 1 to `max_results` results each, of varied lengths.
fn generated(conversation: &str, count: usize, max_results: u64, rng: &mut Rng) -> Vec<Message> {
    let mut out = Vec::new();
    while out.len() < count {
        let text = "word ".repeat(rng.below(60) as usize);
        match rng.below(4) {
            0 => out.push(message(conversation, Role::User, text)),
            1 => out.push(message(conversation, Role::Assistant, text)),
            _ => {
                let results = 1 + rng.below(max_results);
                let mut ask = message(conversation, Role::Assistant, String::new());
                ask.tool_calls = (0..results)
                    .map(|i| ToolCall {
                        id: format!("call_{i}"),
                        name: "lookup".into(),
                        arguments: format!(r#"{{"q":"{text}"}}"#),
                    })
                    .collect();
                out.push(ask);
                for i in 0..results {
                    let mut result = message(conversation, Role::ToolResult, text.clone());
                    result.tool_call_id = Some(format!("call_{i}"));
                    out.push(result);
                }
            }
        }
    }
    out
}

fn conversation(store: &dyn Store, id: &str) {
    block_on(store.create_conversation(&Conversation {
        id: id.into(),
        title: id.into(),
        created_at: 0.0,
        book_id: None,
        working_state: None,
    }))
    .unwrap();
}

#[test]
fn the_bounded_window_equals_the_window_of_a_full_read() {
    let store = MemoryStore::new();
    let mut rng = Rng(0x5eed);
    let strategies = [
        ContextStrategy::FullHistory { max_messages: 0 },
        ContextStrategy::FullHistory { max_messages: 1 },
        ContextStrategy::FullHistory { max_messages: 3 },
        ContextStrategy::FullHistory { max_messages: 7 },
        ContextStrategy::FullHistory { max_messages: 50 },
        ContextStrategy::TokenBudget { max_tokens: 1 },
        ContextStrategy::TokenBudget { max_tokens: 200 },
        ContextStrategy::TokenBudget { max_tokens: 1_500 },
        ContextStrategy::TokenBudget { max_tokens: 20_000 },
    ];
    let mut boundary_cases = 0;
    for case in 0..120 {
        let id = format!("c{case}");
        conversation(&store, &id);
        let count = [0, 1, 5, 40, 120, 400][case % 6];
        // Runs of tool results longer than any first page cross page boundaries.
        let max_results = [1, 4, 40][case % 3];
        let mut messages = generated(&id, count, max_results, &mut rng);
        if case % 10 == 9 && !messages.is_empty() {
            messages[0] = message(&id, Role::ToolResult, "orphan".into());
        }
        block_on(store.append_messages(messages)).unwrap();
        let all = block_on(store.messages(&id)).unwrap();
        for strategy in strategies {
            for system_tokens in [0, 50] {
                let expected = history_window(&all, strategy, system_tokens);
                let got = block_on(read_window(&store, &id, strategy, system_tokens)).unwrap();
                assert_eq!(got, expected, "case {case}, {strategy:?}, system {system_tokens}");
                if expected.len() < all.len() && all[all.len() - expected.len() - 1].role == Role::ToolResult
                {
                    boundary_cases += 1;
                }
            }
        }
    }
    assert!(
        boundary_cases > 50,
        "windows that start right after a cut tool unit: {boundary_cases}"
    );
    assert_eq!(
        block_on(read_window(&store, "nope", ContextStrategy::default(), 0))
            .unwrap_err()
            .name(),
        "NotFoundError"
    );
}

/// Messages read by one two-step turn (a tool call, then the answer) in a
/// conversation of `stored` messages, and the history its requests carried.
fn reads_of_a_turn(stored: usize) -> (usize, Vec<Vec<Message>>, Vec<Message>) {
    let read = Rc::new(Cell::new(0));
    let counter = read.clone();
    let store = Rc::new(HookedStore::watching_reads(move |messages| {
        counter.set(counter.get() + messages.len())
    }));
    conversation(&*store, "c");
    let mut rng = Rng(42);
    block_on(store.append_messages(generated("c", stored, 3, &mut rng))).unwrap();
    let turns = vec![
        ScriptedTurn::tools(&[("lookup", r#"{"q":"x"}"#)]),
        ScriptedTurn::text("done"),
    ];
    let h = TestAgent::builder(turns)
        .store(store.clone())
        .tool(tools::answering("lookup", "looks up", json!("found")))
        .open("c")
        .build();
    read.set(0);
    h.send("hello").unwrap();
    let read = read.get();
    let requests = h.model.requests().into_iter().map(|r| r.messages).collect();
    let all = block_on(store.inner.messages("c")).unwrap();
    (read, requests, all)
}

#[test]
fn a_step_reads_the_window_not_the_conversation() {
    let (small, _, _) = reads_of_a_turn(500);
    let (large, requests, all) = reads_of_a_turn(5_000);
    assert_eq!(large, small, "a turn costs the same at 5,000 messages as at 500");
    assert!(large > 0, "the store's reads were counted");
    assert!(large <= 2 * (50 + 16), "two steps read {large} messages");
    // What the model got is the window of the full history at each step.
    let strategy = ContextStrategy::default();
    let before_answer = &all[..all.len() - 1];
    let before_tool = &all[..all.len() - 3];
    assert_eq!(requests[0], history_window(before_tool, strategy, 0));
    assert_eq!(requests[1], history_window(before_answer, strategy, 0));
}

#[test]
fn a_settled_paused_turn_keeps_only_a_tombstone_and_its_records() {
    let turns = vec![
        ScriptedTurn::tools(&[("write", r#"{"path":"a"}"#)]),
        ScriptedTurn::text("written"),
        ScriptedTurn::tools(&[("write", r#"{"path":"b"}"#)]),
    ];
    let h = TestAgent::builder(turns)
        .config(with_approvals(fixed_policies(&[("write", ApprovalPolicy::Ask)])))
        .tool(tools::answering("write", "writes", json!("ok")))
        .build();

    let paused = h.send("write a").unwrap();
    let decisions = [approve(&paused.pending[0].call_id)];
    h.resolve(&paused.turn_id, &decisions).unwrap();
    let cancelled = h.send("write b").unwrap();
    block_on(h.agent.cancel_pending(&cancelled.turn_id)).unwrap();

    for (turn_id, status) in [
        (&paused.turn_id, PendingStatus::Resolved),
        (&cancelled.turn_id, PendingStatus::Cancelled),
    ] {
        let stored = block_on(h.store.pending_turn(turn_id)).unwrap().unwrap();
        assert_eq!(stored.status, status);
        assert!(stored.calls.is_empty(), "{status:?}: no calls wait");
        assert!(
            stored.step.calls.is_empty()
                && stored.step.settled.is_empty()
                && stored.step.state.records.is_empty()
                && stored.step.text.is_empty(),
            "{status:?}: the step state is pruned: {:?}",
            stored.step
        );
    }
    let again = h.resolve(&paused.turn_id, &decisions).unwrap_err();
    assert_eq!(
        again.error,
        Error::AlreadyResolved {
            turn_id: paused.turn_id.clone(),
            state: "resolved".into()
        }
    );
    let err = block_on(h.agent.cancel_pending(&cancelled.turn_id)).unwrap_err();
    assert_eq!(err.name(), "AlreadyResolvedError");
    let records = block_on(h.store.tool_calls(&h.conversation)).unwrap();
    assert_eq!(records.len(), 2, "the records stay: {records:?}");
}
