//! Built-in tools and tool retries, natively: `current_datetime` over a fixed
//! zone table and a manual clock, and `retries` on tool errors and timeouts
//! (never on an abort or invalid arguments).

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::agent::SendOptions;
use lectern::events::EventKind;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::tool::builtin::{CurrentDatetime, FixedZones};
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::{Builder, TestAgent};

/// 2026-11-23T11:24:43Z, a Monday.
const NOW: f64 = 1_795_433_083_000.0;

/// An agent over `turns` on a clock at [`NOW`].
fn at_now(turns: Vec<ScriptedTurn>) -> Builder {
    TestAgent::builder(turns).clock(ManualClock::new(NOW))
}

/// An agent over `turns` with `current_datetime` reading its clock.
fn with_datetime(turns: Vec<ScriptedTurn>) -> TestAgent {
    let clock = ManualClock::new(NOW);
    let tool = CurrentDatetime::new(Rc::new(FixedZones::default()), Rc::new(clock.clone()));
    TestAgent::builder(turns).clock(clock).tool(tool).build()
}

#[test]
fn current_datetime_reads_a_named_zone_the_readers_zone_and_refuses_an_unknown_one() {
    let world = with_datetime(vec![
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
    let world = with_datetime(Vec::new());
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
    let world = at_now(vec![
        ScriptedTurn::tools(&[("fetch_page", "{}")]),
        ScriptedTurn::text("done"),
    ]);
    let runs = Rc::new(Cell::new(0));
    let world = world.tool(flaky(runs.clone(), 2).with_retries(3, 250)).build();
    let done = world.send("fetch").unwrap();
    assert_eq!(runs.get(), 3);
    assert_eq!(done.tool_calls[0].attempts, 3);
    assert_eq!(done.tool_calls[0].error, None);
    assert_eq!(world.tool_results(), [r#"{"run":3}"#]);
    assert_eq!(tool_result_attempts(&world.events()), [3]);
    assert!(
        world.clock.total_slept_ms() == 500,
        "two waits of 250 ms on the clock"
    );
}

#[test]
fn retries_give_up_after_the_limit_and_never_follow_invalid_arguments() {
    let world = at_now(vec![
        ScriptedTurn::tools(&[("fetch_page", "{}"), ("fetch_page", r#"{"n":"not a number"}"#)]),
        ScriptedTurn::text("gave up"),
    ]);
    let runs = Rc::new(Cell::new(0));
    let world = world.tool(flaky(runs.clone(), 10).with_retries(2, 0)).build();
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
    let world = at_now(vec![
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
    let world = world.tool(tool).build();
    let options = SendOptions {
        cancel,
        ..SendOptions::default()
    };
    let err = world.send_with("fetch", &options).unwrap_err();
    assert_eq!(err.error.name(), "AbortError");
    assert_eq!(runs.get(), 1, "no retry after the abort");
}

#[test]
fn a_timed_out_run_is_retried() {
    let world = at_now(vec![
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
    let world = world.tool(tool).build();
    let done = world.send("fetch").unwrap();
    assert_eq!(runs.get(), 2);
    assert_eq!(done.tool_calls[0].attempts, 2);
    assert_eq!(world.tool_results(), ["fast"]);
}
