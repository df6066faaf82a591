//! Human in the loop, natively: policies, paused turns resumed call by call,
//! edits, rejections, expiry, double resolves, reloads, records and headless runs.

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{AgentConfig, HeadlessRequest, RunLimits, RunStatus, SendOptions, TurnStatus, REJECTED};
use lectern::approval::{
    ApprovalConfig, ApprovalDecision, ApprovalPolicy, Decision, DecisionKind, ToolPolicy,
};
use lectern::domain::Role;
use lectern::error::Error;
use lectern::events::{EventKind, EventSink};
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::{Clock, ManualClock};
use lectern::storage::Store;
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::approvals::{approvals, decide, edit, file_schema, Page, World};

#[test]
fn mixed_decisions_in_one_response_pause_then_resume_with_edits_in_history() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[
            ("read_file", r#"{"path":"a.txt"}"#),
            ("write_file", r#"{"path":"b.txt","text":"hello"}"#),
            ("write_file", r#"{"path":"c.txt","text":"bye"}"#),
            ("delete_file", r#"{"path":"d.txt"}"#),
        ]),
        ScriptedTurn::text("Done: wrote b and C."),
    ]);
    let page = world.page(approvals());
    let paused = page.send("tidy up").unwrap();
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    assert_eq!(paused.text, "");
    let ids: Vec<&str> = paused.pending.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids, ["call_1_1", "call_1_2"]);
    assert_eq!(
        paused.pending[0].arguments,
        json!({"path": "b.txt", "text": "hello"})
    );
    // The auto call ran, the denied one did not, the asked ones wait.
    assert_eq!(world.runs_of("read_file").len(), 1);
    assert!(world.runs_of("write_file").is_empty() && world.runs_of("delete_file").is_empty());
    assert!(page
        .events()
        .iter()
        .any(|e| matches!(e, EventKind::ApprovalRequested { calls, .. } if calls.len() == 2)));
    let listed = block_on(page.agent.pending_approvals(Some(&world.conversation))).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].turn_id, paused.turn_id);
    assert_eq!(listed[0].expires_at - listed[0].created_at, 60_000.0);

    let done = page
        .resolve(
            &paused.turn_id,
            &[
                decide("call_1_1", DecisionKind::Approve),
                edit("call_1_2", json!({"path": "C.txt", "text": "bye"})),
            ],
        )
        .unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(done.text, "Done: wrote b and C.");
    assert_eq!(
        world.runs_of("write_file"),
        [
            json!({"path": "b.txt", "text": "hello"}),
            json!({"path": "C.txt", "text": "bye"})
        ]
    );
    assert!(world.runs_of("delete_file").is_empty());

    // The model's next request shows the call with the arguments that ran, and every result in call order.
    let request = world.model.requests().last().unwrap().clone();
    let ask = request
        .messages
        .iter()
        .find(|m| !m.tool_calls.is_empty())
        .unwrap();
    assert_eq!(ask.tool_calls[2].arguments, r#"{"path":"C.txt","text":"bye"}"#);
    let results: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::ToolResult)
        .map(|m| m.tool_call_id.as_deref().unwrap())
        .collect();
    assert_eq!(results, ["call_1_0", "call_1_1", "call_1_2", "call_1_3"]);
    assert!(world.tool_results()[3].contains("Denied: delete_file"));

    let records = block_on(page.agent.tool_calls(&world.conversation)).unwrap();
    let decisions: Vec<(&str, Decision)> = records.iter().map(|r| (r.id.as_str(), r.decision)).collect();
    assert_eq!(
        decisions,
        [
            ("call_1_0", Decision::Auto),
            ("call_1_3", Decision::Denied),
            ("call_1_1", Decision::Approved),
            ("call_1_2", Decision::Edited),
        ]
    );
    let edited = &records[3];
    assert_eq!(edited.original_arguments, r#"{"path":"c.txt","text":"bye"}"#);
    assert_eq!(edited.arguments, r#"{"path":"C.txt","text":"bye"}"#);
    assert!(edited.result.is_some() && edited.finished_at >= edited.started_at);
    assert!(records[1].error.as_deref().unwrap().contains("Denied"));
    assert_eq!(
        done.tool_calls.len(),
        4,
        "the result lists every call of the turn"
    );
    assert!(block_on(page.agent.pending_approvals(None)).unwrap().is_empty());
}

#[test]
fn calls_can_be_decided_one_at_a_time() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[
            ("write_file", r#"{"path":"b.txt","text":"1"}"#),
            ("write_file", r#"{"path":"c.txt","text":"2"}"#),
        ]),
        ScriptedTurn::text("ok"),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write").unwrap();
    let first = page
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap();
    assert_eq!(first.status, TurnStatus::AwaitingApproval);
    assert_eq!(first.pending.len(), 1);
    assert_eq!(first.pending[0].call_id, "call_1_1");
    assert_eq!(
        world.runs_of("write_file").len(),
        1,
        "the approved call ran at once"
    );
    assert_eq!(
        world.model.requests().len(),
        1,
        "the model waits for every decision"
    );
    let err = page
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap_err();
    assert_eq!(
        err.error,
        Error::CallNotPending {
            turn_id: paused.turn_id.clone(),
            call_id: "call_1_0".into()
        }
    );
    let done = page
        .resolve(&paused.turn_id, &[decide("call_1_1", DecisionKind::Reject)])
        .unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(world.runs_of("write_file").len(), 1);
}

#[test]
fn an_invalid_edit_is_refused_with_the_schema_error_and_changes_nothing() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"b.txt","text":"1"}"#)]),
        ScriptedTurn::text("ok"),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write").unwrap();
    let err = page
        .resolve(&paused.turn_id, &[edit("call_1_0", json!({"path": 7}))])
        .unwrap_err();
    match &err.error {
        Error::InvalidArguments { tool, message } => {
            assert_eq!(tool, "write_file");
            assert!(message.contains("path"), "{message}");
        }
        other => panic!("expected InvalidArguments, got {other:?}"),
    }
    assert_eq!(err.error.name(), "InvalidArgumentsError");
    let extra = page
        .resolve(
            &paused.turn_id,
            &[edit("call_1_0", json!({"path": "b", "mode": 1}))],
        )
        .unwrap_err();
    assert!(matches!(extra.error, Error::InvalidArguments { .. }));
    assert!(world.runs_of("write_file").is_empty());
    assert_eq!(
        block_on(page.agent.pending_approvals(None)).unwrap().len(),
        1,
        "still pending"
    );
    let done = page
        .resolve(
            &paused.turn_id,
            &[edit("call_1_0", json!({"path": "b.txt", "text": "2"}))],
        )
        .unwrap();
    assert_eq!(done.text, "ok");
    assert_eq!(
        world.runs_of("write_file"),
        [json!({"path": "b.txt", "text": "2"})]
    );
}

#[test]
fn a_rejection_reaches_the_model_as_the_tool_result() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"b.txt","text":"1"}"#)]),
        ScriptedTurn::text("Understood, I will not write it."),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write").unwrap();
    let reject = ApprovalDecision {
        reason: Some("not that file".into()),
        ..decide("call_1_0", DecisionKind::Reject)
    };
    let done = page.resolve(&paused.turn_id, &[reject]).unwrap();
    assert_eq!(done.text, "Understood, I will not write it.");
    assert!(world.runs_of("write_file").is_empty());
    let request = world.model.requests().last().unwrap().clone();
    let result = request
        .messages
        .iter()
        .find(|m| m.role == Role::ToolResult)
        .unwrap();
    assert_eq!(result.content, format!("{REJECTED}: not that file"));
    let record = &block_on(page.agent.tool_calls(&world.conversation)).unwrap()[0];
    assert_eq!(record.decision, Decision::Rejected);
    assert_eq!(record.reason.as_deref(), Some("not that file"));
}

#[test]
fn an_expired_approval_is_refused_and_closed() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"b.txt","text":"1"}"#)]),
        ScriptedTurn::text("fresh answer"),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write").unwrap();
    world.clock.advance(60_001.0);
    assert!(
        block_on(page.agent.pending_approvals(None)).unwrap().is_empty(),
        "expired turns are not listed"
    );
    let err = page
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap_err();
    assert!(
        matches!(err.error, Error::ApprovalExpired { .. }),
        "{:?}",
        err.error
    );
    assert_eq!(err.error.name(), "ApprovalExpiredError");
    assert!(world.runs_of("write_file").is_empty());
    assert!(world.tool_results()[0].contains("nobody approved"));
    let again = page
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap_err();
    assert_eq!(
        again.error,
        Error::AlreadyResolved {
            turn_id: paused.turn_id.clone(),
            state: "expired".into()
        }
    );
    let record = &block_on(page.agent.tool_calls(&world.conversation)).unwrap()[0];
    assert_eq!(record.decision, Decision::Expired);
    assert_eq!(page.send("something else").unwrap().text, "fresh answer");
}

#[test]
fn a_send_closes_an_expired_turn_by_itself() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"b.txt","text":"1"}"#)]),
        ScriptedTurn::text("fresh answer"),
    ]);
    let page = world.page(approvals());
    page.send("write").unwrap();
    world.clock.advance(60_001.0);
    assert_eq!(page.send("never mind").unwrap().text, "fresh answer");
    let roles: Vec<Role> = block_on(world.store.messages(&world.conversation))
        .unwrap()
        .iter()
        .map(|m| m.role)
        .collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::ToolResult,
            Role::User,
            Role::Assistant
        ],
        "the closed step is stored whole before the new message"
    );
}

#[test]
fn resolving_twice_or_an_unknown_turn_is_a_typed_error_and_runs_nothing_twice() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"b.txt","text":"1"}"#)]),
        ScriptedTurn::text("ok"),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write").unwrap();
    page.resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap();
    let twice = page
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap_err();
    assert_eq!(
        twice.error,
        Error::AlreadyResolved {
            turn_id: paused.turn_id.clone(),
            state: "resolved".into()
        }
    );
    assert_eq!(twice.error.name(), "AlreadyResolvedError");
    assert_eq!(world.runs_of("write_file").len(), 1);
    let unknown = page
        .resolve("no-such-turn", &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap_err();
    assert_eq!(unknown.error, Error::not_found("pending turn", "no-such-turn"));
    assert!(matches!(
        block_on(page.agent.cancel_pending(&paused.turn_id)),
        Err(Error::AlreadyResolved { .. })
    ));
}

#[test]
fn deny_answers_the_model_with_a_refusal_without_asking() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("delete_file", r#"{"path":"d.txt"}"#)]),
        ScriptedTurn::text("I may not delete files."),
    ]);
    let page = world.page(approvals());
    let done = page.send("delete d").unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert!(world.runs_of("delete_file").is_empty());
    assert!(world.tool_results()[0].contains("Denied: delete_file is not allowed"));
    assert_eq!(done.tool_calls[0].decision, Decision::Denied);
    assert!(!page
        .events()
        .iter()
        .any(|e| matches!(e, EventKind::ApprovalRequested { .. })));
}

#[test]
fn a_policy_function_decides_per_call_and_auto_approve_lifts_ask_only() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[
            ("file", r#"{"path":"a"}"#),
            ("file", r#"{"path":"a","text":"x"}"#),
        ]),
        ScriptedTurn::text("ok"),
        ScriptedTurn::tools(&[
            ("write_file", r#"{"path":"b","text":"x"}"#),
            ("delete_file", r#"{"path":"d"}"#),
        ]),
        ScriptedTurn::text("ok again"),
    ]);
    let page = world.page(approvals());
    let paused = page.send("read then write").unwrap();
    assert_eq!(paused.pending.len(), 1);
    assert_eq!(paused.pending[0].call_id, "call_1_1");
    assert_eq!(world.runs_of("file").len(), 1, "the read ran without asking");
    page.resolve(&paused.turn_id, &[decide("call_1_1", DecisionKind::Approve)])
        .unwrap();

    let trusted = world.page(ApprovalConfig {
        auto_approve: true,
        ..approvals()
    });
    let done = trusted.send("write and delete").unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(world.runs_of("write_file").len(), 1);
    assert!(
        world.runs_of("delete_file").is_empty(),
        "deny holds under auto-approve"
    );
}

#[test]
fn a_paused_conversation_refuses_new_messages_until_cancelled() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[
            ("read_file", r#"{"path":"a"}"#),
            ("write_file", r#"{"path":"b","text":"x"}"#),
        ]),
        ScriptedTurn::text("after cancel"),
    ]);
    let page = world.page(approvals());
    let paused = page.send("write").unwrap();
    let refused = page.send("hello?").unwrap_err();
    assert_eq!(
        refused.error,
        Error::ApprovalPending {
            conversation_id: world.conversation.clone(),
            turn_id: paused.turn_id.clone()
        }
    );
    assert_eq!(refused.error.name(), "ApprovalPendingError");
    block_on(page.agent.cancel_pending(&paused.turn_id)).unwrap();
    assert!(world.runs_of("write_file").is_empty());
    assert_eq!(page.send("hello?").unwrap().text, "after cancel");
    let results = world.tool_results();
    assert_eq!(results.len(), 2);
    assert!(results[1].contains("cancelled"));
    let decisions: Vec<Decision> = block_on(page.agent.tool_calls(&world.conversation))
        .unwrap()
        .iter()
        .map(|r| r.decision)
        .collect();
    assert_eq!(decisions, [Decision::Auto, Decision::Cancelled]);
}

#[test]
fn a_paused_turn_survives_a_reload_and_its_tool_runs_once() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"b.txt","text":"1"}"#)]).with_usage(10, 5),
        ScriptedTurn::text("written").with_usage(20, 3),
    ]);
    let before = world.page(approvals());
    let paused = before.send("write").unwrap();
    drop(before);

    let after = world.page(approvals());
    let listed = block_on(after.agent.pending_approvals(None)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].turn_id, paused.turn_id);
    let done = after
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap();
    assert_eq!(done.text, "written");
    assert_eq!(done.turn_id, paused.turn_id);
    assert_eq!(done.steps, 2, "the step count carries over the pause");
    assert_eq!(done.usage.input_tokens, 30, "so does the usage");
    assert_eq!(world.runs_of("write_file").len(), 1);
    assert!(after
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .is_err());
    assert_eq!(world.runs_of("write_file").len(), 1);
}

#[test]
fn a_headless_run_auto_approves_and_is_stored() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[
            ("write_file", r#"{"path":"b.txt","text":"1"}"#),
            ("delete_file", r#"{"path":"d"}"#),
        ]),
        ScriptedTurn::text("Report written."),
    ]);
    let page = world.page(approvals());
    let request = HeadlessRequest {
        conversation_id: None,
        instruction: "write the report".into(),
        tools: None,
        max_iterations: Some(4),
        timeout_ms: 120_000,
    };
    let run = block_on(page.agent.run_headless(request, Default::default(), page.sink())).unwrap();
    assert_eq!(
        run.status,
        RunStatus::Proposed,
        "write_file ran: it may have changed something"
    );
    assert_eq!(run.text, "Report written.");
    // Its last event says it ended, once the stored run says so too.
    assert_eq!(
        page.events().last(),
        Some(&EventKind::RunFinished {
            run_id: run.run_id.clone(),
            status: RunStatus::Proposed
        })
    );
    assert!(run.error.is_none());
    assert_eq!(world.runs_of("write_file").len(), 1);
    assert!(world.runs_of("delete_file").is_empty());
    let roles: Vec<Role> = run.log.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::ToolResult,
            Role::ToolResult,
            Role::Assistant
        ]
    );
    let decisions: Vec<Decision> = run.tool_calls.iter().map(|r| r.decision).collect();
    assert_eq!(decisions, [Decision::Auto, Decision::Denied]);
    assert_ne!(run.conversation_id, world.conversation, "a new conversation");
    assert_eq!(block_on(page.agent.run(&run.run_id)).unwrap(), run);
    assert_eq!(block_on(page.agent.runs()).unwrap(), std::slice::from_ref(&run));
    assert!(matches!(
        block_on(page.agent.run("nope")),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn a_headless_run_that_times_out_is_failed_and_keeps_what_the_tools_did() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"b.txt","text":"1"}"#)]),
        ScriptedTurn::text("never finishes").hanging(),
    ]);
    let page = world.page(approvals());
    let request = HeadlessRequest {
        conversation_id: Some(world.conversation.clone()),
        instruction: "write and then think forever".into(),
        tools: Some(vec!["write_file".into()]),
        max_iterations: None,
        timeout_ms: 5_000,
    };
    let run = block_on(
        page.agent
            .run_headless(request, Default::default(), &EventSink::none()),
    )
    .unwrap();
    assert_eq!(run.status, RunStatus::Failed);
    let error = run.error.clone().unwrap();
    assert_eq!(error.name, "TimeoutError");
    assert_eq!(world.runs_of("write_file").len(), 1);
    assert_eq!(run.tool_calls.len(), 1);
    assert_eq!(
        block_on(page.agent.tool_calls(&world.conversation))
            .unwrap()
            .len(),
        1
    );
    let stored = block_on(page.agent.run(&run.run_id)).unwrap();
    assert_eq!(stored.status, RunStatus::Failed);
    assert_eq!(stored.log.len(), 3, "user, the tool step's call and result");
    // Only the tools named were offered.
    let offered: Vec<String> = world.model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["write_file"]);
}

#[test]
fn headless_input_is_checked_before_anything_runs() {
    let world = World::new(vec![]);
    let page = world.page(approvals());
    let bad = |request: HeadlessRequest| {
        block_on(
            page.agent
                .run_headless(request, Default::default(), &EventSink::none()),
        )
    };
    let base = HeadlessRequest {
        conversation_id: None,
        instruction: "go".into(),
        tools: None,
        max_iterations: None,
        timeout_ms: 1_000,
    };
    assert!(matches!(
        bad(HeadlessRequest {
            instruction: " ".into(),
            ..base.clone()
        }),
        Err(Error::Config { .. })
    ));
    assert!(matches!(
        bad(HeadlessRequest {
            tools: Some(vec!["nope".into()]),
            ..base.clone()
        }),
        Err(Error::Config { .. })
    ));
    assert!(matches!(
        bad(HeadlessRequest {
            conversation_id: Some("missing".into()),
            ..base
        }),
        Err(Error::NotFound { .. })
    ));
    assert!(block_on(page.agent.runs()).unwrap().is_empty());
}

/// A page whose `slow_write` tool (policy `ask`) starts and never finishes, with a 100 ms turn
/// limit, on a clock with timers (the limit ends the race, not the scheduler).
fn slow_page(world: &World) -> Page {
    let mut approvals = approvals();
    approvals
        .tools
        .insert("slow_write".into(), ToolPolicy::Fixed(ApprovalPolicy::Ask));
    let config = AgentConfig {
        approvals,
        limits: RunLimits {
            turn_timeout_ms: 100,
            tool_timeout_ms: 60_000,
            ..RunLimits::default()
        },
        ..AgentConfig::default()
    };
    let runs = world.runs.clone();
    let tool = FnTool::new(
        "slow_write",
        "Writes slowly",
        file_schema(),
        move |args: Value, _| {
            runs.borrow_mut().push(("slow_write".to_owned(), args));
            Box::pin(futures::future::pending()) as LocalBoxFuture<'static, ToolResult>
        },
    );
    world
        .page_builder(config)
        .clock(ManualClock::with_timers(world.clock.now_ms()))
        .tool(tool)
        .build()
}

#[test]
fn a_resolve_cut_off_by_its_time_limit_releases_the_turn_at_once() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("slow_write", r#"{"path":"b.txt"}"#)]),
        ScriptedTurn::text("Moving on."),
    ]);
    let page = slow_page(&world);
    let paused = page.send("write slowly").unwrap();
    let cut = page
        .resolve(&paused.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap_err();
    assert_eq!(cut.error, Error::Timeout { after_ms: 100 });
    assert_eq!(page.send("hello?").unwrap().text, "Moving on.");
    assert_eq!(world.runs_of("slow_write").len(), 1, "never run again");
    assert!(world.tool_results()[0].starts_with("{\"error\":\"Interrupted"));
    let record = &block_on(page.agent.tool_calls(&world.conversation)).unwrap()[0];
    assert_eq!(record.decision, Decision::Approved);
    assert!(record.error.as_deref().unwrap().starts_with("Interrupted"));
}

#[test]
fn a_resolve_abandoned_by_a_closed_page_lapses_and_undecided_calls_wait_again() {
    use futures::FutureExt;
    let world = World::new(vec![
        ScriptedTurn::tools(&[
            ("slow_write", r#"{"path":"b.txt"}"#),
            ("write_file", r#"{"path":"c.txt","text":"x"}"#),
        ]),
        ScriptedTurn::text("One write was interrupted, the other done."),
    ]);
    let page = slow_page(&world);
    let paused = page.send("write two files").unwrap();
    {
        // The page closes while the approved call runs: the resolve is dropped mid-tool.
        let decisions = [decide("call_1_0", DecisionKind::Approve)];
        let (options, events) = (SendOptions::default(), EventSink::none());
        let resolving = page
            .agent
            .resolve_approvals(&paused.turn_id, &decisions, &options, &events);
        assert!(resolving.now_or_never().is_none());
    }
    assert_eq!(world.runs_of("slow_write").len(), 1);
    assert!(
        block_on(page.agent.pending_approvals(None)).unwrap().is_empty(),
        "claimed, not listed"
    );
    assert!(matches!(
        page.send("hello?").unwrap_err().error,
        Error::ApprovalPending { .. }
    ));
    page.clock.advance(2_200.0);
    // The claim lapsed: the claimed call is answered as interrupted, the other waits again.
    assert!(matches!(
        page.send("hello?").unwrap_err().error,
        Error::ApprovalPending { .. }
    ));
    let waiting = block_on(page.agent.pending_approvals(None)).unwrap();
    assert_eq!(waiting.len(), 1);
    let ids: Vec<&str> = waiting[0].calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids, ["call_1_1"]);
    let done = page
        .resolve(&paused.turn_id, &[decide("call_1_1", DecisionKind::Approve)])
        .unwrap();
    assert_eq!(done.text, "One write was interrupted, the other done.");
    assert_eq!(world.runs_of("slow_write").len(), 1, "never run again");
    assert_eq!(world.runs_of("write_file").len(), 1);
    let results = world.tool_results();
    assert!(
        results[0].contains("Interrupted") && results[1].contains("c.txt"),
        "{results:?}"
    );
}

#[test]
fn a_turn_pauses_again_and_again_with_every_tool_run_once() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("write_file", r#"{"path":"a.txt","text":"1"}"#)]),
        // The second step: an auto tool beside an asked one.
        ScriptedTurn::tools(&[
            ("read_file", r#"{"path":"a.txt"}"#),
            ("write_file", r#"{"path":"b.txt","text":"2"}"#),
        ]),
        ScriptedTurn::tools(&[("write_file", r#"{"path":"c.txt","text":"3"}"#)]),
        ScriptedTurn::text("Wrote a, b and c."),
    ]);
    let page = world.page(approvals());
    let first = page.send("write three files").unwrap();
    assert_eq!(first.status, TurnStatus::AwaitingApproval);

    let second = page
        .resolve(&first.turn_id, &[decide("call_1_0", DecisionKind::Approve)])
        .unwrap();
    assert_eq!(
        second.status,
        TurnStatus::AwaitingApproval,
        "paused a second time"
    );
    assert_eq!(second.turn_id, first.turn_id, "one turn id throughout");
    assert_eq!(second.pending.len(), 1);
    assert_eq!(second.pending[0].call_id, "call_2_1");
    assert_eq!(world.runs_of("read_file").len(), 1, "the auto call ran once");
    let listed = block_on(page.agent.pending_approvals(Some(&world.conversation))).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].calls[0].call_id, "call_2_1");

    // A reload between the pauses: another page resolves.
    let reloaded = world.page(approvals());
    let third = reloaded
        .resolve(&first.turn_id, &[decide("call_2_1", DecisionKind::Approve)])
        .unwrap();
    assert_eq!(third.status, TurnStatus::AwaitingApproval, "paused a third time");
    let done = reloaded
        .resolve(&first.turn_id, &[decide("call_3_0", DecisionKind::Approve)])
        .unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(done.text, "Wrote a, b and c.");
    assert_eq!(done.turn_id, first.turn_id);
    assert_eq!(done.steps, 4);

    assert_eq!(world.runs_of("read_file").len(), 1);
    let written: Vec<Value> = world
        .runs_of("write_file")
        .iter()
        .map(|a| a["path"].clone())
        .collect();
    assert_eq!(written, [json!("a.txt"), json!("b.txt"), json!("c.txt")]);
    let records = block_on(page.agent.tool_calls(&world.conversation)).unwrap();
    let ids: Vec<(&str, Decision)> = records.iter().map(|r| (r.id.as_str(), r.decision)).collect();
    assert_eq!(
        ids,
        [
            ("call_1_0", Decision::Approved),
            ("call_2_0", Decision::Auto),
            ("call_2_1", Decision::Approved),
            ("call_3_0", Decision::Approved),
        ]
    );
    assert_eq!(
        done.tool_calls.len(),
        4,
        "the result lists every call of the turn"
    );
    let roles: Vec<Role> = block_on(world.store.messages(&world.conversation))
        .unwrap()
        .into_iter()
        .map(|m| m.role)
        .collect();
    use Role::*;
    assert_eq!(
        roles,
        [User, Assistant, ToolResult, Assistant, ToolResult, ToolResult, Assistant, ToolResult, Assistant]
    );
    let second_resolve = page
        .resolve(&first.turn_id, &[decide("call_3_0", DecisionKind::Approve)])
        .unwrap_err();
    assert!(matches!(second_resolve.error, Error::AlreadyResolved { .. }));
    assert!(block_on(page.agent.pending_approvals(None)).unwrap().is_empty());
}
