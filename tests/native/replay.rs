//! `recordEvents` and `replay`: a turn's events are stored as it ends and
//! come back exactly as they were emitted — across a pause and its resolve,
//! for failed turns, with no listener — and nothing is kept when it is off.

use futures::executor::block_on;
use lectern::agent::{AgentConfig, SendOptions, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalPolicy};
use lectern::error::Error;
use lectern::events::EventSink;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::ManualClock;
use lectern::storage::StoreArchive;
use serde_json::json;

use crate::support::harness::approvals::{approve, fixed_policies};
use crate::support::harness::{tools, TestAgent};

/// An agent that records its turns' events if `record`, whose `lookup` tool
/// answers "found" and asks for approval if `ask`.
fn world(record: bool, ask: bool, turns: Vec<ScriptedTurn>) -> TestAgent {
    let policies: &[(&str, ApprovalPolicy)] = if ask {
        &[("lookup", ApprovalPolicy::Ask)]
    } else {
        &[]
    };
    let config = AgentConfig {
        record_events: record,
        approvals: ApprovalConfig {
            ttl_ms: 60_000,
            ..fixed_policies(policies)
        },
        ..AgentConfig::default()
    };
    TestAgent::builder(turns)
        .config(config)
        .clock(ManualClock::new(1.0e12))
        .tool(tools::answering("lookup", "Looks something up.", json!("found")))
        .build()
}

fn tool_then_answer() -> Vec<ScriptedTurn> {
    vec![
        ScriptedTurn::tools(&[("lookup", "{}")]).with_usage(10, 2),
        ScriptedTurn::text("It is found.").with_usage(20, 4),
    ]
}

#[test]
fn a_replayed_turn_is_the_live_sequence() {
    let w = world(true, false, tool_then_answer());
    let result = w.send("find it").unwrap();
    let replayed = block_on(w.agent.replay(&result.turn_id)).unwrap();
    assert!(replayed.len() > 8, "{replayed:?}");
    assert_eq!(replayed, w.event_log().json());
    let last = replayed.last().unwrap();
    assert_eq!(
        (&last["type"], &last["text"]),
        (&json!("finish"), &json!("It is found."))
    );
    assert_eq!(
        block_on(w.agent.recorded_turns(&w.conversation)).unwrap(),
        [result.turn_id]
    );
}

#[test]
fn a_paused_turn_and_its_resolve_are_one_recording() {
    let w = world(true, true, tool_then_answer());
    let paused = w.send("find it").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    let before = block_on(w.agent.replay(&paused.turn_id)).unwrap();
    assert_eq!(before.last().unwrap()["type"], "approvalRequested");
    let done = w
        .resolve(&paused.turn_id, &[approve(&paused.pending[0].call_id)])
        .unwrap();
    assert_eq!(done.turn_id, paused.turn_id);
    let replayed = block_on(w.agent.replay(&paused.turn_id)).unwrap();
    assert_eq!(
        replayed,
        w.event_log().json(),
        "the resolve's events follow the pause's"
    );
    assert!(replayed.len() > before.len());
    assert_eq!(
        block_on(w.agent.recorded_turns(&w.conversation)).unwrap().len(),
        1
    );
}

#[test]
fn a_failed_turn_is_recorded_with_no_listener() {
    let failing = vec![ScriptedTurn::error(Error::Api {
        status: 500,
        body: "down".into(),
    })];
    let w = world(true, false, failing);
    let failure = block_on(
        w.agent
            .send(&w.conversation, "hi", &SendOptions::default(), &EventSink::none()),
    )
    .unwrap_err();
    let turns = block_on(w.agent.recorded_turns(&w.conversation)).unwrap();
    assert_eq!(turns.len(), 1);
    let replayed = block_on(w.agent.replay(&turns[0])).unwrap();
    assert_eq!(
        (&replayed[0]["type"], &replayed[0]["step"]),
        (&json!("stepStart"), &json!(1))
    );
    let last = replayed.last().unwrap();
    assert_eq!(
        (&last["type"], &last["name"]),
        (&json!("error"), &json!("ApiError")),
        "{replayed:?}"
    );
    assert_eq!(failure.error.name(), "ApiError");
    // Deleting the conversation deletes its recordings.
    block_on(w.store.delete_conversation(&w.conversation)).unwrap();
    assert!(block_on(w.agent.replay(&turns[0])).unwrap().is_empty());
}

#[test]
fn nothing_is_recorded_when_it_is_off() {
    let w = world(false, false, tool_then_answer());
    let result = w.send("find it").unwrap();
    assert!(!w.events().is_empty());
    assert!(block_on(w.agent.replay(&result.turn_id)).unwrap().is_empty());
    assert!(block_on(w.store.recorded_turns(&w.conversation))
        .unwrap()
        .is_empty());
}
