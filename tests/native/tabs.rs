//! Two agents on one store — two tabs on one database — sharing their turn
//! locks, natively on the manual clock with timers: turns on one conversation
//! never interleave, `lockWaitMs` bounds the wait for the other tab, and the
//! paused-turn check happens inside the lock.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, MemoryLocks, RunLimits, SendOptions, TurnLocks, TurnStatus};
use lectern::approval::{ApprovalConfig, ApprovalPolicy, ToolPolicy};
use lectern::domain::{NewConversation, Role};
use lectern::error::Error;
use lectern::events::EventSink;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::storage::{MemoryStore, Store};
use lectern::time::{Clock, ManualClock};
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

const START: f64 = 1_700_000_000_000.0;

struct Tabs {
    clock: ManualClock,
    store: Rc<MemoryStore>,
    a: Agent,
    b: Agent,
    conversation: String,
}

/// Two agents over one store, model and clock, sharing one set of turn locks.
/// Their `pause` tool sleeps `pause_ms`; `write` asks for approval.
fn tabs(turns: Vec<ScriptedTurn>, limits: RunLimits, pause_ms: u64) -> Tabs {
    let clock = ManualClock::with_timers(START);
    let store = Rc::new(MemoryStore::new());
    let model = Rc::new(ScriptedModel::new(turns));
    let locks: Rc<dyn TurnLocks> = Rc::new(MemoryLocks::new());
    let mut approvals = ApprovalConfig::default();
    approvals
        .tools
        .insert("write".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    let config = AgentConfig {
        limits,
        approvals,
        ..AgentConfig::default()
    };
    let tab = || {
        let agent = Agent::new(
            store.clone(),
            model.clone(),
            Rc::new(clock.clone()),
            config.clone(),
        )
        .with_turn_locks(locks.clone());
        let sleeper = clock.clone();
        let pause = FnTool::new("pause", "waits", json!({"type": "object"}), move |_: Value, _| {
            let sleep = sleeper.sleep(pause_ms);
            Box::pin(async move {
                sleep.await;
                Ok(json!("paused"))
            }) as LocalBoxFuture<'static, ToolResult>
        });
        agent.register_tool(Rc::new(pause)).unwrap();
        let write = FnTool::new("write", "writes", json!({"type": "object"}), |_: Value, _| {
            Box::pin(async { Ok(json!("written")) }) as LocalBoxFuture<'static, ToolResult>
        });
        agent.register_tool(Rc::new(write)).unwrap();
        agent
    };
    let (a, b) = (tab(), tab());
    let conversation = clock
        .drive(a.create_conversation(NewConversation::default()))
        .unwrap()
        .id;
    Tabs {
        clock,
        store,
        a,
        b,
        conversation,
    }
}

impl Tabs {
    fn messages(&self) -> Vec<(Role, String)> {
        self.clock
            .drive(self.store.messages(&self.conversation))
            .unwrap()
            .into_iter()
            .map(|m| (m.role, m.content))
            .collect()
    }
}

#[test]
fn two_tabs_sending_at_the_same_moment_take_turns() {
    let t = tabs(
        vec![
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::text("first done"),
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::text("second done"),
        ],
        RunLimits::default(),
        30,
    );
    let (none, options) = (EventSink::none(), SendOptions::default());
    let (one, two) = t.clock.drive(async {
        futures::join!(
            t.a.send(&t.conversation, "one", &options, &none),
            t.b.send(&t.conversation, "two", &options, &none)
        )
    });
    assert_eq!(one.unwrap().text, "first done");
    assert_eq!(two.unwrap().text, "second done");
    let roles: Vec<Role> = t.messages().into_iter().map(|(role, _)| role).collect();
    use Role::{Assistant, ToolResult as Result, User};
    assert_eq!(
        roles,
        [User, Assistant, Result, Assistant, User, Assistant, Result, Assistant],
        "the second tab's turn began after the first tab's ended"
    );
    assert_eq!(t.messages()[4].1, "two");
}

#[test]
fn a_tab_waits_for_the_other_no_longer_than_lock_wait_ms() {
    let limits = RunLimits {
        lock_wait_ms: Some(10),
        ..RunLimits::default()
    };
    let t = tabs(
        vec![
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::text("done"),
            ScriptedTurn::text("and again"),
        ],
        limits,
        200,
    );
    let (none, options) = (EventSink::none(), SendOptions::default());
    let (one, (two, refused_at)) = t.clock.drive(async {
        futures::join!(t.a.send(&t.conversation, "one", &options, &none), async {
            let outcome = t.b.send(&t.conversation, "two", &options, &none).await;
            (outcome, t.clock.now_ms())
        })
    });
    assert_eq!(one.unwrap().text, "done");
    assert_eq!(
        two.unwrap_err().error,
        Error::ConversationBusy {
            conversation_id: t.conversation.clone(),
            waited_ms: 10
        }
    );
    assert_eq!(
        refused_at - START,
        10.0,
        "refused when the wait ran out, not when the turn ended"
    );
    // The withdrawn request holds nothing: the conversation is free again.
    let again = t
        .clock
        .drive(t.b.send(&t.conversation, "three", &options, &none))
        .unwrap();
    assert_eq!(again.text, "and again");
}

#[test]
fn a_tab_that_gets_the_lock_after_the_other_paused_sees_the_paused_turn() {
    let t = tabs(
        vec![
            ScriptedTurn::tools(&[("pause", "{}")]),
            ScriptedTurn::tools(&[("write", "{}")]),
        ],
        RunLimits::default(),
        30,
    );
    let (none, options) = (EventSink::none(), SendOptions::default());
    let (one, two) = t.clock.drive(async {
        futures::join!(
            t.a.send(&t.conversation, "one", &options, &none),
            t.b.send(&t.conversation, "two", &options, &none)
        )
    });
    let paused = one.unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert_eq!(
        two.unwrap_err().error,
        Error::ApprovalPending {
            conversation_id: t.conversation.clone(),
            turn_id: paused.turn_id
        }
    );
    let users = t
        .messages()
        .into_iter()
        .filter(|(role, _)| *role == Role::User)
        .count();
    assert_eq!(users, 1, "the refused message was not stored");
}
