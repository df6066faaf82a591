//! More human in the loop, natively: "always allow" grants, a new message
//! over a paused turn (`onNewMessage`), and approvals switched at run time.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{
    Agent, AgentConfig, SendOptions, TurnError, TurnOverrides, TurnResult, TurnStatus, MOVED_ON,
};
use lectern::approval::{
    ApprovalConfig, ApprovalDecision, ApprovalOverrides, ApprovalPolicy, Decision, DecisionKind,
    OnNewMessage, PendingStatus, ToolPolicy,
};
use lectern::domain::{NewConversation, Role};
use lectern::events::EventSink;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::provider::Model;
use lectern::storage::{MemoryStore, Store};
use lectern::time::ManualClock;
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

/// A store, model and clock shared by "pages" (agents): a second page over the same store stands for a reload.
struct World {
    store: Rc<MemoryStore>,
    model: Rc<ScriptedModel>,
    clock: Rc<ManualClock>,
    /// Every run of a tool: (name, arguments).
    runs: Rc<RefCell<Vec<(String, Value)>>>,
    conversation: String,
}

/// `write_file` asks, `delete_file` is denied, `read_file` runs.
fn approvals() -> ApprovalConfig {
    let mut config = ApprovalConfig {
        ttl_ms: 60_000,
        ..ApprovalConfig::default()
    };
    config
        .tools
        .insert("write_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    config
        .tools
        .insert("delete_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Deny));
    config
}

impl World {
    fn new(turns: Vec<ScriptedTurn>) -> World {
        let mut world = World {
            store: Rc::new(MemoryStore::new()),
            model: Rc::new(ScriptedModel::new(turns)),
            clock: Rc::new(ManualClock::new(1_700_000_000_000.0)),
            runs: Rc::new(RefCell::new(Vec::new())),
            conversation: String::new(),
        };
        let page = world.page(approvals());
        world.conversation = block_on(page.create_conversation(NewConversation::default()))
            .unwrap()
            .id;
        world
    }

    /// A new agent over the shared store (a page load).
    fn page(&self, approvals: ApprovalConfig) -> Agent {
        let config = AgentConfig {
            approvals,
            ..AgentConfig::default()
        };
        let model: Rc<dyn Model> = self.model.clone();
        let agent = Agent::new(self.store.clone(), model, self.clock.clone(), config);
        for name in ["read_file", "write_file", "delete_file"] {
            let runs = self.runs.clone();
            let tool = FnTool::new(
                name,
                "A file tool",
                json!({"type": "object"}),
                move |args: Value, _| {
                    runs.borrow_mut().push((name.to_owned(), args.clone()));
                    Box::pin(async move { Ok(json!({ "ok": args["path"] })) })
                        as LocalBoxFuture<'static, ToolResult>
                },
            );
            agent.register_tool(Rc::new(tool)).unwrap();
        }
        agent
    }

    fn send_with(&self, agent: &Agent, text: &str, options: &SendOptions) -> Result<TurnResult, TurnError> {
        self.clock
            .drive(agent.send(&self.conversation, text, options, &EventSink::none()))
    }

    fn send(&self, agent: &Agent, text: &str) -> Result<TurnResult, TurnError> {
        self.send_with(agent, text, &SendOptions::default())
    }

    fn resolve(
        &self,
        agent: &Agent,
        turn_id: &str,
        decisions: &[ApprovalDecision],
    ) -> Result<TurnResult, TurnError> {
        self.clock.drive(agent.resolve_approvals(
            turn_id,
            decisions,
            &SendOptions::default(),
            &EventSink::none(),
        ))
    }

    fn runs_of(&self, name: &str) -> usize {
        self.runs.borrow().iter().filter(|(n, _)| n == name).count()
    }

    /// The stored history as (role, content) pairs, tool calls shown as `call:<name>`.
    fn history(&self) -> Vec<(Role, String)> {
        block_on(self.store.messages(&self.conversation))
            .unwrap()
            .into_iter()
            .map(|m| {
                let content = match m.tool_calls.first() {
                    Some(call) => format!("call:{}", call.name),
                    None => m.content,
                };
                (m.role, content)
            })
            .collect()
    }
}

fn decide(call_id: &str, decision: DecisionKind) -> ApprovalDecision {
    ApprovalDecision {
        call_id: call_id.into(),
        decision,
        arguments: None,
        reason: None,
    }
}

fn write(path: &str) -> (&'static str, String) {
    ("write_file", format!(r#"{{"path":"{path}","text":"x"}}"#))
}

fn tools(calls: &[(&'static str, String)]) -> ScriptedTurn {
    let calls: Vec<(&str, &str)> = calls.iter().map(|(n, a)| (*n, a.as_str())).collect();
    ScriptedTurn::tools(&calls)
}

#[test]
fn approve_always_runs_the_tool_and_the_grant_survives_a_reload_until_reset() {
    let world = World::new(vec![
        tools(&[write("a"), write("b"), ("delete_file", r#"{"path":"z"}"#.into())]),
        ScriptedTurn::text("Wrote a and b."),
        tools(&[write("c")]),
        ScriptedTurn::text("Wrote c."),
        tools(&[write("d")]),
        ScriptedTurn::text("Wrote d."),
    ]);
    let page = world.page(approvals());
    let paused = world.send(&page, "write a and b").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert_eq!(paused.pending.len(), 2);
    // One "always" decides both waiting calls of the tool; the denied call stays denied.
    let first = &paused.pending[0].call_id;
    let done = world
        .resolve(
            &page,
            &paused.turn_id,
            &[decide(first, DecisionKind::ApproveAlways)],
        )
        .unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(world.runs_of("write_file"), 2);
    assert_eq!(world.runs_of("delete_file"), 0);
    let records = block_on(page.tool_calls(&world.conversation)).unwrap();
    let decisions: Vec<(&str, Decision)> = records.iter().map(|r| (r.name.as_str(), r.decision)).collect();
    assert_eq!(decisions.len(), 3);
    for expected in [
        ("write_file", Decision::ApprovedAlways),
        ("delete_file", Decision::Denied),
    ] {
        assert!(decisions.contains(&expected), "{decisions:?}");
    }
    assert!(!decisions.contains(&("write_file", Decision::Approved)));
    let grants = block_on(world.store.grants(&world.conversation)).unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(
        (grants[0].tool_name.as_str(), &grants[0].call_id),
        ("write_file", first)
    );
    assert_eq!(grants[0].turn_id, paused.turn_id);

    // A reload: the next call of the tool runs without a pause.
    let reloaded = world.page(approvals());
    let next = world.send(&reloaded, "write c").unwrap();
    assert_eq!(next.status, TurnStatus::Completed, "{next:?}");
    assert_eq!(world.runs_of("write_file"), 3);
    let records = block_on(reloaded.tool_calls(&world.conversation)).unwrap();
    assert_eq!(records.iter().filter(|r| r.decision == Decision::Auto).count(), 1);

    // Revoked: it asks again.
    block_on(reloaded.reset_approvals(&world.conversation)).unwrap();
    let asked = world.send(&reloaded, "write d").unwrap();
    assert_eq!(asked.status, TurnStatus::AwaitingApproval);
    assert_eq!(world.runs_of("write_file"), 3);
    let err = block_on(reloaded.reset_approvals("nope")).unwrap_err();
    assert_eq!(err.name(), "NotFoundError");
}

#[test]
fn a_grant_is_per_conversation_and_never_lifts_deny() {
    let world = World::new(vec![
        tools(&[write("a")]),
        ScriptedTurn::text("ok"),
        tools(&[write("b")]),
        tools(&[write("c")]),
        ScriptedTurn::text("not allowed"),
    ]);
    let page = world.page(approvals());
    let paused = world.send(&page, "write a").unwrap();
    let always = decide(&paused.pending[0].call_id, DecisionKind::ApproveAlways);
    world.resolve(&page, &paused.turn_id, &[always]).unwrap();
    // Another conversation still asks.
    let other = block_on(page.create_conversation(NewConversation::default())).unwrap();
    let asked = world
        .clock
        .drive(page.send(&other.id, "write b", &SendOptions::default(), &EventSink::none()))
        .unwrap();
    assert_eq!(asked.status, TurnStatus::AwaitingApproval);
    // A page whose policy denies the tool: the grant does not lift `deny`.
    let mut deny = approvals();
    deny.tools
        .insert("write_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Deny));
    let strict = world.page(deny);
    let done = world.send(&strict, "write c").unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(world.runs_of("write_file"), 1);
    let records = block_on(strict.tool_calls(&world.conversation)).unwrap();
    let decisions: Vec<Decision> = records.iter().map(|r| r.decision).collect();
    assert_eq!(records.len(), 2);
    assert!(decisions.contains(&Decision::Denied), "{decisions:?}");
}

#[test]
fn arguments_on_approve_always_are_refused_and_nothing_is_granted() {
    let world = World::new(vec![tools(&[write("a")])]);
    let page = world.page(approvals());
    let paused = world.send(&page, "write a").unwrap();
    let decision = ApprovalDecision {
        arguments: Some(json!({"path": "b"})),
        ..decide(&paused.pending[0].call_id, DecisionKind::ApproveAlways)
    };
    let err = world.resolve(&page, &paused.turn_id, &[decision]).unwrap_err();
    assert_eq!(err.error.name(), "ConfigError", "{err:?}");
    assert!(block_on(world.store.grants(&world.conversation))
        .unwrap()
        .is_empty());
    assert_eq!(world.runs_of("write_file"), 0);
}

fn reject_new(approvals: ApprovalConfig) -> ApprovalConfig {
    ApprovalConfig {
        on_new_message: OnNewMessage::Reject,
        ..approvals
    }
}

#[test]
fn a_new_message_over_a_paused_turn_is_refused_by_default() {
    let world = World::new(vec![tools(&[write("a")]), ScriptedTurn::text("never")]);
    let page = world.page(approvals());
    let paused = world.send(&page, "write a").unwrap();
    let err = world.send(&page, "never mind").unwrap_err();
    assert_eq!(err.error.name(), "ApprovalPendingError");
    let listed = block_on(page.pending_approvals(Some(&world.conversation))).unwrap();
    assert_eq!(listed[0].turn_id, paused.turn_id, "still waiting");
}

#[test]
fn on_new_message_reject_answers_the_calls_and_runs_the_new_message() {
    let world = World::new(vec![
        tools(&[write("a"), ("read_file", r#"{"path":"r"}"#.into())]),
        ScriptedTurn::text("Sure, something else."),
    ]);
    let page = world.page(reject_new(approvals()));
    let paused = world.send(&page, "write a").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    let done = world.send(&page, "never mind, something else").unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(done.text, "Sure, something else.");
    assert_eq!(world.runs_of("write_file"), 0);
    assert_eq!(
        world.history(),
        [
            (Role::User, "write a".to_owned()),
            (Role::Assistant, "call:write_file".to_owned()),
            (Role::ToolResult, MOVED_ON.to_owned()),
            (Role::ToolResult, r#"{"ok":"r"}"#.to_owned()),
            (Role::User, "never mind, something else".to_owned()),
            (Role::Assistant, "Sure, something else.".to_owned()),
        ]
    );
    let stored = block_on(world.store.pending_turn(&paused.turn_id))
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, PendingStatus::MovedOn);
    let records = block_on(page.tool_calls(&world.conversation)).unwrap();
    assert!(records
        .iter()
        .any(|r| r.name == "write_file" && r.decision == Decision::MovedOn));
    // The model's request for the new message showed the moved-on answer.
    let request = world.model.requests().last().unwrap().clone();
    assert!(request.messages.iter().any(|m| m.content == MOVED_ON));
    let resolved = world.resolve(
        &page,
        &paused.turn_id,
        &[decide(&paused.pending[0].call_id, DecisionKind::Approve)],
    );
    assert_eq!(resolved.unwrap_err().error.name(), "AlreadyResolvedError");
}

#[test]
fn a_send_can_override_on_new_message_either_way() {
    let world = World::new(vec![tools(&[write("a")]), ScriptedTurn::text("Moved on.")]);
    let refusing = world.page(approvals());
    world.send(&refusing, "write a").unwrap();
    let per_send = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                on_new_message: Some(OnNewMessage::Reject),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let done = world.send_with(&refusing, "something else", &per_send).unwrap();
    assert_eq!(done.text, "Moved on.");

    let world = World::new(vec![tools(&[write("a")])]);
    let rejecting = world.page(reject_new(approvals()));
    world.send(&rejecting, "write a").unwrap();
    let keep = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                on_new_message: Some(OnNewMessage::Refuse),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let err = world.send_with(&rejecting, "wait", &keep).unwrap_err();
    assert_eq!(err.error.name(), "ApprovalPendingError");
}

#[test]
fn set_approvals_switches_auto_approve_without_a_new_agent() {
    let world = World::new(vec![
        tools(&[write("a")]),
        tools(&[write("b")]),
        ScriptedTurn::text("b written"),
        tools(&[write("c")]),
    ]);
    let page = world.page(approvals());
    let paused = world.send(&page, "write a").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    block_on(page.cancel_pending(&paused.turn_id)).unwrap();
    page.set_approvals(ApprovalConfig {
        auto_approve: true,
        ..approvals()
    });
    let done = world.send(&page, "write b").unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(world.runs_of("write_file"), 1);
    page.set_approvals(approvals());
    let asked = world.send(&page, "write c").unwrap();
    assert_eq!(
        asked.status,
        TurnStatus::AwaitingApproval,
        "switched back: it asks again"
    );
    assert_eq!(world.runs_of("write_file"), 1);
}

#[test]
fn a_per_send_auto_approve_holds_for_every_step_of_the_turn() {
    let world = World::new(vec![
        tools(&[
            ("delete_file", r#"{"path":"x"}"#.into()),
            ("read_file", r#"{"path":"r"}"#.into()),
        ]),
        tools(&[write("a")]),
        ScriptedTurn::text("done"),
    ]);
    let mut config = approvals();
    config
        .tools
        .insert("read_file".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    let page = world.page(config);
    let auto = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                auto_approve: Some(true),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let done = world.send_with(&page, "go", &auto).unwrap();
    assert_eq!(done.status, TurnStatus::Completed, "{done:?}");
    assert_eq!(world.runs_of("read_file"), 1);
    assert_eq!(
        world.runs_of("write_file"),
        1,
        "every step of the turn auto-approves"
    );
    assert_eq!(world.runs_of("delete_file"), 0, "deny still refuses");
}

#[test]
fn a_per_send_auto_approve_false_asks_even_when_the_instance_auto_approves() {
    let world = World::new(vec![tools(&[write("a")]), ScriptedTurn::text("written")]);
    let page = world.page(ApprovalConfig {
        auto_approve: true,
        ..approvals()
    });
    let ask = SendOptions {
        overrides: TurnOverrides {
            approvals: ApprovalOverrides {
                auto_approve: Some(false),
                ..ApprovalOverrides::default()
            },
            ..TurnOverrides::default()
        },
        ..SendOptions::default()
    };
    let paused = world.send_with(&page, "write a", &ask).unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    // The paused turn keeps its override: a reload with the same instance setting still resumes it.
    let stored = block_on(world.store.pending_turn(&paused.turn_id))
        .unwrap()
        .unwrap();
    assert_eq!(stored.step.state.overrides.approvals.auto_approve, Some(false));
    let done = world
        .resolve(
            &page,
            &paused.turn_id,
            &[decide(&paused.pending[0].call_id, DecisionKind::Approve)],
        )
        .unwrap();
    assert_eq!(done.text, "written");
}
