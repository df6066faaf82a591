//! Turns cut off by a closed page, natively: dropping a turn's future mid-way
//! is what closing the tab does to it (its store writes stop, its lock is let
//! go). The cut-off turn is listed by `interrupted_turns`, `resume_turn` goes
//! on from its last stored step without running a tool twice, and a new
//! message closes it instead. A turn still running is never listed.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{MemoryLocks, SendOptions, TurnStatus, INTERRUPTED_BY_CLOSE};
use lectern::approval::ApprovalPolicy;
use lectern::domain::{Decision, Role};
use lectern::error::Error;
use lectern::events::EventSink;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::ManualClock;
use lectern::storage::{Store, StoreArchive};
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::approvals::{approve, fixed_policies, with_approvals};
use crate::support::harness::{tools, TestAgent, START_MS};

/// Counts a tool's runs.
type Runs = Rc<Cell<u32>>;

/// Two agents on one store, model and conversation, sharing one set of locks
/// (two tabs on one database), each on a clock of its own; and the runs of
/// `lookup` (answers at once) and `hang` (never settles), over both tabs.
/// `forbidden` is denied; `write` asks.
fn tabs(turns: Vec<ScriptedTurn>) -> (TestAgent, TestAgent, Runs, Runs) {
    let config = with_approvals(fixed_policies(&[
        ("forbidden", ApprovalPolicy::Deny),
        ("write", ApprovalPolicy::Ask),
    ]));
    let (lookups, hangs) = (Runs::default(), Runs::default());
    let count = hangs.clone();
    let hang = FnTool::new(
        "hang",
        "never ends",
        json!({"type": "object"}),
        move |_: Value, _| {
            count.set(count.get() + 1);
            Box::pin(futures::future::pending()) as LocalBoxFuture<'static, ToolResult>
        },
    );
    let tab = TestAgent::builder(turns)
        .config(config)
        .clock(ManualClock::with_timers(START_MS))
        .locks(Rc::new(MemoryLocks::new()))
        .tool(tools::counting(
            "lookup",
            "looks up",
            lookups.clone(),
            json!("found it"),
        ))
        .tool(hang)
        .tool(tools::answering("forbidden", "denied", json!("done")))
        .tool(tools::answering("write", "asks", json!("done")));
    let a = tab.clone().build();
    let b = tab
        .clock(ManualClock::with_timers(START_MS))
        .open(&a.conversation)
        .build();
    (a, b, lookups, hangs)
}

/// Polls `future` once: the memory store answers at once, so a turn runs
/// until it waits on a hanging model call or tool.
fn run_until_stuck<F: Future>(future: &mut Pin<Box<F>>) {
    let waker = futures::task::noop_waker();
    let polled = future.as_mut().poll(&mut Context::from_waker(&waker));
    assert!(matches!(polled, Poll::Pending), "the turn should be stuck");
}

/// `tab` sends `text` and is closed while its turn is stuck.
fn close_mid_turn(tab: &TestAgent, text: &str) {
    let options = SendOptions::default();
    let mut turn = Box::pin(tab.sending(text, &options));
    run_until_stuck(&mut turn);
    drop(turn);
}

#[test]
fn a_turn_cut_off_during_a_model_call_resumes_from_its_last_stored_step() {
    let (a, b, lookups, ..) = tabs(vec![
        ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(100, 10),
        ScriptedTurn::text("never arrives").hanging(),
        ScriptedTurn::text("It was found.").with_usage(200, 20),
    ]);
    close_mid_turn(&a, "Find it");

    let listed = block_on(b.agent.interrupted_turns(None)).unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let turn = &listed[0];
    assert_eq!((turn.steps, turn.completed_tool_calls), (1, 1));
    assert!(turn.interrupted_calls.is_empty());
    assert_eq!(
        block_on(b.agent.interrupted_turns(Some(&a.conversation))).unwrap(),
        listed
    );

    let (none, options) = (EventSink::none(), SendOptions::default());
    let result = block_on(b.agent.resume_turn(&turn.turn_id, &options, &none)).unwrap();
    assert_eq!(result.status, TurnStatus::Completed);
    assert_eq!(result.text, "It was found.");
    assert_eq!(result.turn_id, turn.turn_id, "the same turn went on");
    assert_eq!(lookups.get(), 1, "the completed tool call was not run again");
    assert_eq!(
        (result.usage.input_tokens, result.usage.output_tokens),
        (300, 30),
        "usage goes on from the stored step"
    );
    use Role::{Assistant, ToolResult as Result, User};
    assert_eq!(a.roles(), [User, Assistant, Result, Assistant]);
    let last = a.model.requests().pop().unwrap();
    assert!(last.messages.iter().any(|m| m.content.contains("found it")));
    assert!(block_on(b.agent.interrupted_turns(None)).unwrap().is_empty());
    assert!(block_on(a.store.open_turns(None)).unwrap().is_empty());
}

#[test]
fn calls_running_when_the_tab_closed_are_answered_interrupted_and_never_run_again() {
    let (a, b, _, hangs) = tabs(vec![
        ScriptedTurn::tools(&[("hang", "{}"), ("forbidden", "{}")]).with_usage(100, 10),
        ScriptedTurn::text("The action may not have happened.").with_usage(50, 5),
    ]);
    close_mid_turn(&a, "Do it");
    let listed = block_on(b.agent.interrupted_turns(None)).unwrap();
    let calls: Vec<&str> = listed[0]
        .interrupted_calls
        .iter()
        .map(|c| c.tool_name.as_str())
        .collect();
    assert_eq!(calls, ["hang"], "the denied call had settled without running");

    let (none, options) = (EventSink::none(), SendOptions::default());
    let result = block_on(b.agent.resume_turn(&listed[0].turn_id, &options, &none)).unwrap();
    assert_eq!(result.status, TurnStatus::Completed);
    assert_eq!(hangs.get(), 1, "never run a second time");
    let results = a.tool_results();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0], json!({ "error": INTERRUPTED_BY_CLOSE }).to_string());
    assert!(results[1].contains("Denied"), "{}", results[1]);
    let records = block_on(a.store.tool_calls(&a.conversation)).unwrap();
    let decisions: Vec<(&str, Decision)> = records.iter().map(|r| (r.name.as_str(), r.decision)).collect();
    assert_eq!(
        decisions,
        [("hang", Decision::Auto), ("forbidden", Decision::Denied)]
    );
    assert_eq!(
        result.tool_calls.len(),
        2,
        "the resumed turn reports the step's calls"
    );
    let last = a.model.requests().pop().unwrap();
    assert!(last
        .messages
        .iter()
        .any(|m| m.content.contains(INTERRUPTED_BY_CLOSE)));
    assert_eq!(result.usage.input_tokens, 150, "the first call's usage was kept");
}

#[test]
fn a_turn_still_running_is_not_listed_and_cannot_be_resumed() {
    let (a, b, ..) = tabs(vec![ScriptedTurn::text("slow").hanging()]);
    let (none, options) = (EventSink::none(), SendOptions::default());
    let mut running = Box::pin(a.agent.send(&a.conversation, "Hello", &options, &none));
    run_until_stuck(&mut running);

    assert!(
        block_on(b.agent.interrupted_turns(None)).unwrap().is_empty(),
        "tab A holds the lock"
    );
    let open = block_on(a.store.open_turns(None)).unwrap();
    assert_eq!(open.len(), 1, "its record exists while it runs");
    let refused = block_on(b.agent.resume_turn(&open[0].turn_id, &options, &none)).unwrap_err();
    assert!(
        matches!(refused.error, Error::ConversationBusy { waited_ms: 0, .. }),
        "{}",
        refused.error
    );
    drop(running);
    assert_eq!(
        block_on(b.agent.interrupted_turns(None)).unwrap().len(),
        1,
        "closed: now listed"
    );
}

#[test]
fn a_new_message_closes_the_interrupted_turn_and_records_its_cut_off_calls() {
    let (a, b, _, hangs) = tabs(vec![
        ScriptedTurn::tools(&[("hang", "{}")]),
        ScriptedTurn::text("Hello again."),
    ]);
    close_mid_turn(&a, "Do it");
    let turn_id = block_on(b.agent.interrupted_turns(None)).unwrap()[0]
        .turn_id
        .clone();

    let (none, options) = (EventSink::none(), SendOptions::default());
    let result = b.send("Never mind").unwrap();
    assert_eq!(result.text, "Hello again.");
    use Role::{Assistant, ToolResult as Result, User};
    assert_eq!(a.roles(), [User, Assistant, Result, User, Assistant]);
    assert_eq!(
        a.tool_results(),
        [json!({ "error": INTERRUPTED_BY_CLOSE }).to_string()]
    );
    assert_eq!(hangs.get(), 1);
    assert!(block_on(b.agent.interrupted_turns(None)).unwrap().is_empty());
    let gone = block_on(b.agent.resume_turn(&turn_id, &options, &none)).unwrap_err();
    assert!(matches!(gone.error, Error::NotFound { .. }), "{}", gone.error);
}

#[test]
fn turns_that_end_leave_no_open_record() {
    let (a, ..) = tabs(vec![
        ScriptedTurn::text("Answered."),
        ScriptedTurn::error(Error::Api {
            status: 400,
            body: "refused".into(),
        }),
        ScriptedTurn::tools(&[("write", "{}")]),
        ScriptedTurn::text("Written."),
    ]);
    let (none, options) = (EventSink::none(), SendOptions::default());
    let open = || block_on(a.store.open_turns(None)).unwrap();
    a.send("one").unwrap();
    assert!(open().is_empty(), "answered");
    a.send("two").unwrap_err();
    assert!(open().is_empty(), "failed");
    let paused = block_on(a.agent.retry(&a.conversation, &options, &none)).unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert!(open().is_empty(), "paused: the paused turn is its own record");
    let done = a
        .resolve(&paused.turn_id, &[approve(&paused.pending[0].call_id)])
        .unwrap();
    assert_eq!(done.text, "Written.");
    assert!(open().is_empty(), "resolved and answered");
}

#[test]
fn resuming_a_turn_that_is_not_open_is_not_found() {
    let (a, ..) = tabs(vec![]);
    let (none, options) = (EventSink::none(), SendOptions::default());
    let missing = block_on(a.agent.resume_turn("no-such-turn", &options, &none)).unwrap_err();
    assert!(
        matches!(missing.error, Error::NotFound { .. }),
        "{}",
        missing.error
    );
}

#[test]
fn a_turn_cut_off_before_its_first_answer_asks_the_model_again_about_the_user_message() {
    let (a, b, ..) = tabs(vec![
        ScriptedTurn::text("never arrives").hanging(),
        ScriptedTurn::text("Hello!"),
    ]);
    close_mid_turn(&a, "Hi there");
    let listed = block_on(b.agent.interrupted_turns(Some(&a.conversation))).unwrap();
    assert_eq!((listed[0].steps, listed[0].completed_tool_calls), (0, 0));

    let (none, options) = (EventSink::none(), SendOptions::default());
    let result = block_on(b.agent.resume_turn(&listed[0].turn_id, &options, &none)).unwrap();
    assert_eq!(result.text, "Hello!");
    assert_eq!(
        a.roles(),
        [Role::User, Role::Assistant],
        "the user message is stored once"
    );
    let asked = a.model.requests().pop().unwrap();
    assert_eq!(asked.messages.last().unwrap().content, "Hi there");
}
