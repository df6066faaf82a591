//! Built-in tools and tool retries, natively: `current_datetime` over a fixed
//! zone table and a manual clock, and `retries` on tool errors and timeouts
//! (never on an abort or invalid arguments).

use std::cell::Cell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, SendOptions, TurnError, TurnResult};
use lectern::cancel::CancelToken;
use lectern::domain::{NewConversation, Role};
use lectern::events::{EventKind, EventSink};
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::storage::MemoryStore;
use lectern::time::ManualClock;
use lectern::tool::builtin::{CurrentDatetime, FixedZones};
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

/// 2026-11-23T11:24:43Z, a Monday.
const NOW: f64 = 1_795_433_083_000.0;

struct World {
    agent: Agent,
    clock: Rc<ManualClock>,
    conversation: String,
}

impl World {
    fn new(turns: Vec<ScriptedTurn>) -> World {
        let model = Rc::new(ScriptedModel::new(turns));
        let clock = Rc::new(ManualClock::new(NOW));
        let agent = Agent::new(
            Rc::new(MemoryStore::new()),
            model.clone(),
            clock.clone(),
            AgentConfig::default(),
        );
        let conversation = block_on(agent.create_conversation(NewConversation::default()))
            .unwrap()
            .id;
        World {
            agent,
            clock,
            conversation,
        }
    }

    fn with_datetime(turns: Vec<ScriptedTurn>) -> World {
        let world = World::new(turns);
        let tool = CurrentDatetime::new(Rc::new(FixedZones::default()), world.clock.clone());
        world.agent.register_tool(Rc::new(tool)).unwrap();
        world
    }

    fn send_with(
        &self,
        text: &str,
        options: &SendOptions,
        events: &EventSink,
    ) -> Result<TurnResult, TurnError> {
        self.clock
            .drive(self.agent.send(&self.conversation, text, options, events))
    }

    fn send(&self, text: &str) -> Result<TurnResult, TurnError> {
        self.send_with(text, &SendOptions::default(), &EventSink::none())
    }

    /// The tool results the model read, as stored.
    fn tool_results(&self) -> Vec<String> {
        block_on(self.agent.messages(&self.conversation))
            .unwrap()
            .into_iter()
            .filter(|m| m.role == Role::ToolResult)
            .map(|m| m.content)
            .collect()
    }
}

#[test]
fn current_datetime_reads_a_named_zone_the_readers_zone_and_refuses_an_unknown_one() {
    let world = World::with_datetime(vec![
        ScriptedTurn::tools(&[
            ("current_datetime", r#"{"timeZone":"Asia/Tokyo"}"#),
            ("current_datetime", "{}"),
            ("current_datetime", r#"{"timeZone":"Mars/Olympus"}"#),
        ]),
        ScriptedTurn::text("It is Monday evening in Tokyo."),
    ]);
    let done = world.send("what time is it in Tokyo?").unwrap();
    assert_eq!(done.text, "It is Monday evening in Tokyo.");
    let results = world.tool_results();
    let tokyo: Value = serde_json::from_str(&results[0]).unwrap();
    assert_eq!(
        tokyo,
        json!({
            "iso": "2026-11-23T20:24:43+09:00", "timeZone": "Asia/Tokyo", "date": "2026-11-23",
            "time": "20:24:43", "weekday": "Monday", "utcOffset": "+09:00"
        })
    );
    let reader: Value = serde_json::from_str(&results[1]).unwrap();
    assert_eq!(
        (reader["timeZone"].as_str(), reader["iso"].as_str()),
        (Some("UTC"), Some("2026-11-23T11:24:43+00:00"))
    );
    let unknown: Value = serde_json::from_str(&results[2]).unwrap();
    assert_eq!(
        unknown["error"],
        r#"Unknown time zone: "Mars/Olympus" (use an IANA name such as Europe/Paris)"#
    );
    // Never cached: the next call reads the clock again.
    world.clock.advance(60_000.0);
    let tool = world.agent.tools().get("current_datetime").unwrap();
    assert_eq!(tool.cache_ttl_ms(), None);
}

#[test]
fn a_host_tool_cannot_take_a_builtin_tools_name() {
    let world = World::with_datetime(Vec::new());
    let host = FnTool::new("current_datetime", "mine", json!({"type": "object"}), |_, _| {
        Box::pin(async { Ok(json!("noon")) }) as LocalBoxFuture<'static, ToolResult>
    });
    let err = world.agent.register_tool(Rc::new(host)).unwrap_err();
    assert_eq!(err.name(), "ConfigError");
    assert!(err.to_string().contains("built-in"), "{err}");
}

/// A tool that fails its first `failures` runs, counting runs in `runs`.
fn flaky(
    runs: Rc<Cell<u32>>,
    failures: u32,
) -> FnTool<impl Fn(Value, lectern::tool::ToolContext) -> LocalBoxFuture<'static, ToolResult>> {
    FnTool::new(
        "fetch_page",
        "flaky",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        move |_, _| {
            runs.set(runs.get() + 1);
            let n = runs.get();
            Box::pin(async move {
                if n <= failures {
                    Err(format!("HTTP 503 (run {n})"))
                } else {
                    Ok(json!({ "run": n }))
                }
            }) as LocalBoxFuture<'static, ToolResult>
        },
    )
}

fn tool_result_attempts(events: &[EventKind]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::ToolResult { attempts, .. } => Some(*attempts),
            _ => None,
        })
        .collect()
}

#[test]
fn a_tool_that_fails_twice_then_succeeds_runs_three_times_waiting_between() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("fetch_page", "{}")]),
        ScriptedTurn::text("done"),
    ]);
    let runs = Rc::new(Cell::new(0));
    world
        .agent
        .register_tool(Rc::new(flaky(runs.clone(), 2).with_retries(3, 250)))
        .unwrap();
    let events = Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = {
        let events = events.clone();
        EventSink::new(move |e| events.borrow_mut().push(e.kind))
    };
    let done = world.send_with("fetch", &SendOptions::default(), &sink).unwrap();
    assert_eq!(runs.get(), 3);
    assert_eq!(done.tool_calls[0].attempts, 3);
    assert_eq!(done.tool_calls[0].error, None);
    assert_eq!(world.tool_results(), [r#"{"run":3}"#]);
    assert_eq!(tool_result_attempts(&events.borrow()), [3]);
    assert!(
        world.clock.total_slept_ms() == 500,
        "two waits of 250 ms on the clock"
    );
}

#[test]
fn retries_give_up_after_the_limit_and_never_follow_invalid_arguments() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("fetch_page", "{}"), ("fetch_page", r#"{"n":"not a number"}"#)]),
        ScriptedTurn::text("gave up"),
    ]);
    let runs = Rc::new(Cell::new(0));
    world
        .agent
        .register_tool(Rc::new(flaky(runs.clone(), 10).with_retries(2, 0)))
        .unwrap();
    let done = world.send("fetch").unwrap();
    assert_eq!(
        runs.get(),
        3,
        "one run and two retries; the invalid call never ran"
    );
    let attempts: Vec<u32> = done.tool_calls.iter().map(|r| r.attempts).collect();
    assert_eq!(attempts, [3, 0]);
    assert_eq!(done.tool_calls[0].error.as_deref(), Some("HTTP 503 (run 3)"));
}

#[test]
fn an_abort_stops_retrying() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("fetch_page", "{}")]),
        ScriptedTurn::text("never"),
    ]);
    let runs = Rc::new(Cell::new(0));
    let cancel = CancelToken::new();
    let trip = cancel.clone();
    let counted = runs.clone();
    let tool = FnTool::new("fetch_page", "aborts", json!({"type": "object"}), move |_, _| {
        counted.set(counted.get() + 1);
        trip.cancel();
        Box::pin(async { Err("HTTP 503".to_owned()) }) as LocalBoxFuture<'static, ToolResult>
    })
    .with_retries(5, 100);
    world.agent.register_tool(Rc::new(tool)).unwrap();
    let options = SendOptions {
        cancel,
        ..SendOptions::default()
    };
    let err = world
        .send_with("fetch", &options, &EventSink::none())
        .unwrap_err();
    assert_eq!(err.error.name(), "AbortError");
    assert_eq!(runs.get(), 1, "no retry after the abort");
}

#[test]
fn a_timed_out_run_is_retried() {
    let world = World::new(vec![
        ScriptedTurn::tools(&[("fetch_page", "{}")]),
        ScriptedTurn::text("done"),
    ]);
    let runs = Rc::new(Cell::new(0));
    let counted = runs.clone();
    let tool = FnTool::new(
        "fetch_page",
        "slow once",
        json!({"type": "object"}),
        move |_, _| {
            counted.set(counted.get() + 1);
            if counted.get() == 1 {
                Box::pin(futures::future::pending()) as LocalBoxFuture<'static, ToolResult>
            } else {
                Box::pin(async { Ok(json!("fast")) })
            }
        },
    )
    .with_timeout_ms(100)
    .with_retries(1, 0);
    world.agent.register_tool(Rc::new(tool)).unwrap();
    let done = world.send("fetch").unwrap();
    assert_eq!(runs.get(), 2);
    assert_eq!(done.tool_calls[0].attempts, 2);
    assert_eq!(world.tool_results(), ["fast"]);
}
