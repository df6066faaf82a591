//! One-shot turns (`askOnce`, the design's turn without a conversation): the
//! agent loop, tools and limits run as in `send`, the result carries the
//! turn's messages, and nothing reaches the store — no conversation,
//! message, tool-call record or usage total; a call that would ask for
//! approval is refused (nobody could answer), unless the turn auto-approves.

use std::cell::Cell;
use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{AgentConfig, RunLimits, SendOptions, TurnStatus};
use lectern::approval::ApprovalPolicy;
use lectern::domain::Role;
use lectern::error::Error;
use lectern::provider::scripted::ScriptedTurn;
use lectern::storage::Store;
use serde_json::json;

use crate::support::harness::approvals::{fixed_policies, with_approvals};
use crate::support::harness::tools::counting;
use crate::support::harness::TestAgent;

/// An agent without a conversation whose `lookup` tool counts its runs, with `config`.
fn agent(turns: Vec<ScriptedTurn>, config: AgentConfig, runs: &Rc<Cell<u32>>) -> TestAgent {
    let tool = counting(
        "lookup",
        "Looks a thing up",
        runs.clone(),
        json!({"found": "Sunday"}),
    );
    TestAgent::builder(turns)
        .config(config)
        .tool(tool)
        .without_conversation()
        .build()
}

fn ask(
    s: &TestAgent,
    options: &SendOptions,
) -> Result<lectern::agent::TurnResult, lectern::agent::TurnError> {
    block_on(s.agent.ask_once("Who is the President?", None, options, s.sink()))
}

/// Nothing stored: no conversation at all, so no messages, records or usage either.
fn assert_nothing_stored(s: &TestAgent) {
    assert_eq!(block_on(s.store.conversations()).unwrap(), vec![]);
}

#[test]
fn a_one_shot_turn_runs_the_loop_with_its_tools_and_stores_nothing() {
    let runs = Rc::new(Cell::new(0));
    let turns = vec![
        ScriptedTurn::tools(&[("lookup", "{}")]),
        ScriptedTurn::text("The President is Sunday."),
    ];
    let s = agent(
        turns,
        with_approvals(fixed_policies(&[("lookup", ApprovalPolicy::Auto)])),
        &runs,
    );
    let reply = ask(&s, &SendOptions::default()).unwrap();
    assert_eq!(
        (reply.status, reply.text.as_str()),
        (TurnStatus::Completed, "The President is Sunday.")
    );
    assert_eq!(runs.get(), 1);
    assert_eq!((reply.steps, reply.tool_calls.len()), (2, 1));
    let roles: Vec<Role> = reply.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::ToolResult, Role::Assistant]
    );
    assert_eq!(reply.messages[0].content, "Who is the President?");
    assert!(
        reply.usage.input_tokens > 0,
        "usage is still reported: {:?}",
        reply.usage
    );
    assert_nothing_stored(&s);
}

#[test]
fn a_call_that_would_ask_is_refused_and_the_model_reads_why() {
    let runs = Rc::new(Cell::new(0));
    let turns = vec![
        ScriptedTurn::tools(&[("lookup", "{}")]),
        ScriptedTurn::text("I could not look."),
    ];
    let s = agent(
        turns,
        with_approvals(fixed_policies(&[("lookup", ApprovalPolicy::Ask)])),
        &runs,
    );
    let reply = ask(&s, &SendOptions::default()).unwrap();
    assert_eq!(
        reply.status,
        TurnStatus::Completed,
        "a one-shot turn never pauses"
    );
    assert!(reply.pending.is_empty());
    assert_eq!(runs.get(), 0);
    let refusal = &reply.messages[2];
    assert_eq!(refusal.role, Role::ToolResult);
    assert!(
        refusal
            .content
            .contains("needs a person's approval, which a one-shot turn cannot ask for"),
        "{}",
        refusal.content
    );
    assert_nothing_stored(&s);
}

#[test]
fn auto_approval_lets_an_asking_tool_run() {
    let runs = Rc::new(Cell::new(0));
    let turns = vec![
        ScriptedTurn::tools(&[("lookup", "{}")]),
        ScriptedTurn::text("Sunday."),
    ];
    let s = agent(
        turns,
        with_approvals(fixed_policies(&[("lookup", ApprovalPolicy::Ask)])),
        &runs,
    );
    let mut options = SendOptions::default();
    options.overrides.approvals.auto_approve = Some(true);
    assert_eq!(ask(&s, &options).unwrap().text, "Sunday.");
    assert_eq!(runs.get(), 1);
}

#[test]
fn limits_hold_and_a_failure_stores_nothing_either() {
    let runs = Rc::new(Cell::new(0));
    let turns = vec![
        ScriptedTurn::tools(&[("lookup", "{}")]),
        ScriptedTurn::tools(&[("lookup", "{}")]),
        ScriptedTurn::text("never reached"),
    ];
    let config = AgentConfig {
        limits: RunLimits {
            max_iterations: 2,
            ..RunLimits::default()
        },
        ..with_approvals(fixed_policies(&[("lookup", ApprovalPolicy::Auto)]))
    };
    let s = agent(turns, config, &runs);
    let failed = ask(&s, &SendOptions::default()).unwrap_err();
    assert!(
        matches!(failed.error, Error::MaxIterations { .. }),
        "{:?}",
        failed.error
    );
    assert_eq!(runs.get(), 2);
    assert_nothing_stored(&s);
}

#[test]
fn an_empty_question_and_an_unknown_book_are_refused() {
    let runs = Rc::new(Cell::new(0));
    let s = agent(vec![], AgentConfig::default(), &runs);
    let empty = block_on(s.agent.ask_once("  ", None, &SendOptions::default(), s.sink())).unwrap_err();
    assert!(matches!(empty.error, Error::Config { .. }), "{:?}", empty.error);
    let unknown = block_on(s.agent.ask_once(
        "Hi",
        Some("no-such-book".into()),
        &SendOptions::default(),
        s.sink(),
    ))
    .unwrap_err();
    assert!(
        matches!(unknown.error, Error::Config { .. } | Error::NotFound { .. }),
        "{:?}",
        unknown.error
    );
    assert_nothing_stored(&s);
}
