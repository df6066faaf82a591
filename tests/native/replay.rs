//! `recordEvents` and `replay`: a turn's events are stored as it ends and
//! come back exactly as they were emitted — across a pause and its resolve,
//! for failed turns, with no listener — and nothing is kept when it is off.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, SendOptions, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalDecision, ApprovalPolicy, DecisionKind, ToolPolicy};
use lectern::domain::NewConversation;
use lectern::error::Error;
use lectern::events::EventSink;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::storage::{MemoryStore, Store};
use lectern::time::ManualClock;
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

struct World {
    agent: Agent,
    store: Rc<MemoryStore>,
    conversation: String,
    live: Rc<RefCell<Vec<Value>>>,
}

fn world(record: bool, ask: bool, turns: Vec<ScriptedTurn>) -> World {
    let store = Rc::new(MemoryStore::new());
    let mut approvals = ApprovalConfig {
        ttl_ms: 60_000,
        ..ApprovalConfig::default()
    };
    if ask {
        approvals
            .tools
            .insert("lookup".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    }
    let config = AgentConfig {
        record_events: record,
        approvals,
        ..AgentConfig::default()
    };
    let model = Rc::new(ScriptedModel::new(turns));
    let agent = Agent::new(store.clone(), model, Rc::new(ManualClock::new(1.0e12)), config);
    let lookup = FnTool::new(
        "lookup",
        "Looks something up.",
        json!({ "type": "object" }),
        |_, _| Box::pin(async { Ok(json!("found")) }) as LocalBoxFuture<'static, ToolResult>,
    );
    agent.register_tool(Rc::new(lookup)).unwrap();
    let conversation = block_on(agent.create_conversation(NewConversation::default()))
        .unwrap()
        .id;
    World {
        agent,
        store,
        conversation,
        live: Rc::new(RefCell::new(Vec::new())),
    }
}

impl World {
    fn sink(&self) -> EventSink {
        let live = self.live.clone();
        EventSink::new(move |e| live.borrow_mut().push(serde_json::to_value(e).unwrap()))
    }
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
    let result = block_on(
        w.agent
            .send(&w.conversation, "find it", &SendOptions::default(), &w.sink()),
    )
    .unwrap();
    let replayed = block_on(w.agent.replay(&result.turn_id)).unwrap();
    assert!(replayed.len() > 8, "{replayed:?}");
    assert_eq!(replayed, *w.live.borrow());
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
    let paused = block_on(
        w.agent
            .send(&w.conversation, "find it", &SendOptions::default(), &w.sink()),
    )
    .unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    let before = block_on(w.agent.replay(&paused.turn_id)).unwrap();
    assert_eq!(before.last().unwrap()["type"], "approvalRequested");
    let decision = ApprovalDecision {
        call_id: paused.pending[0].call_id.clone(),
        decision: DecisionKind::Approve,
        arguments: None,
        reason: None,
    };
    let done =
        block_on(
            w.agent
                .resolve_approvals(&paused.turn_id, &[decision], &SendOptions::default(), &w.sink()),
        )
        .unwrap();
    assert_eq!(done.turn_id, paused.turn_id);
    let replayed = block_on(w.agent.replay(&paused.turn_id)).unwrap();
    assert_eq!(
        replayed,
        *w.live.borrow(),
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
    let result = block_on(
        w.agent
            .send(&w.conversation, "find it", &SendOptions::default(), &w.sink()),
    )
    .unwrap();
    assert!(!w.live.borrow().is_empty());
    assert!(block_on(w.agent.replay(&result.turn_id)).unwrap().is_empty());
    assert!(block_on(w.store.recorded_turns(&w.conversation))
        .unwrap()
        .is_empty());
}
