//! Turns cut off by their time limit while tools run, natively on the manual
//! clock with timers: the tools that ran keep their records, the step is
//! stored (calls still running answered "Interrupted"), and the conversation
//! goes on.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::agent::{AgentConfig, RunLimits};
use lectern::domain::Role;
use lectern::error::Error;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::{Clock, ManualClock};
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::TestAgent;

/// An agent whose `quick` tool answers at once and whose `slow` tool takes
/// 10 s, with a 5 s turn limit and a 60 s tool limit; and the tools that
/// started, in order.
fn setup(turns: Vec<ScriptedTurn>, parallel: bool) -> (TestAgent, Rc<RefCell<Vec<&'static str>>>) {
    let clock = ManualClock::with_timers(1_700_000_000_000.0);
    let config = AgentConfig {
        limits: RunLimits {
            turn_timeout_ms: 5_000,
            tool_timeout_ms: 60_000,
            ..RunLimits::default()
        },
        parallel_tool_calls: parallel,
        ..AgentConfig::default()
    };
    let started = Rc::new(RefCell::new(Vec::new()));
    let mut builder = TestAgent::builder(turns).config(config).clock(clock.clone());
    for (name, ms) in [("quick", 0), ("slow", 10_000)] {
        let (clock, started) = (clock.clone(), started.clone());
        let tool = FnTool::new(name, "a tool", json!({"type": "object"}), move |_: Value, _| {
            started.borrow_mut().push(name);
            let sleep = clock.sleep(ms);
            Box::pin(async move {
                sleep.await;
                Ok(json!(format!("{name} done")))
            }) as LocalBoxFuture<'static, ToolResult>
        });
        builder = builder.tool(tool);
    }
    (builder.build(), started)
}

#[test]
fn a_send_cut_off_while_tools_run_keeps_what_they_did() {
    let (s, started) = setup(
        vec![
            ScriptedTurn::tools(&[("quick", "{}"), ("slow", "{}")]),
            ScriptedTurn::text("The slow one may not have finished."),
        ],
        true,
    );
    let cut = s.send("run both").unwrap_err();
    assert_eq!(cut.error, Error::Timeout { after_ms: 5_000 });
    let outcomes: Vec<(&str, Option<&str>, bool)> = cut
        .tool_calls
        .iter()
        .map(|r| {
            let interrupted = r.error.as_deref().is_some_and(|e| e.starts_with("Interrupted"));
            (r.name.as_str(), r.result.as_deref(), interrupted)
        })
        .collect();
    assert_eq!(
        outcomes,
        [("quick", Some("quick done"), false), ("slow", None, true)],
        "the finished tool's result and the cut-off one, in call order"
    );
    let stored = s.clock.drive(s.agent.tool_calls(&s.conversation)).unwrap();
    assert_eq!(
        stored, cut.tool_calls,
        "the records are stored as the error reports them"
    );
    let messages = s.history();
    let roles: Vec<Role> = messages.iter().map(|(role, _)| *role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::ToolResult, Role::ToolResult]
    );
    assert_eq!(messages[2].1, "quick done");
    assert!(messages[3].1.contains("Interrupted"), "{}", messages[3].1);

    // The conversation goes on; the model reads what happened, nothing runs again.
    let next = s.send("and now?").unwrap();
    assert_eq!(next.text, "The slow one may not have finished.");
    assert_eq!(*started.borrow(), ["quick", "slow"]);
    let history = &s.model.requests()[1].messages;
    assert_eq!(history.len(), 5, "user, calls, two results, user");
}

#[test]
fn calls_not_started_when_a_one_by_one_step_is_cut_off_are_answered_not_run() {
    let (s, started) = setup(
        vec![ScriptedTurn::tools(&[("slow", "{}"), ("quick", "{}")])],
        false,
    );
    let cut = s.send("one by one").unwrap_err();
    assert_eq!(cut.error, Error::Timeout { after_ms: 5_000 });
    let errors: Vec<&str> = cut
        .tool_calls
        .iter()
        .map(|r| r.error.as_deref().unwrap_or_default())
        .collect();
    assert!(errors[0].starts_with("Interrupted"), "{errors:?}");
    assert!(errors[1].starts_with("Not run"), "{errors:?}");
    assert_eq!(*started.borrow(), ["slow"], "the second never started");
    assert_eq!(s.history().len(), 4);
}
