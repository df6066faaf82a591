//! The agent loop natively, with a scripted model that records every request:
//! tools, failures as data, limits, context, prompts, working state, mentions,
//! locking and events.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{
    AgentConfig, ContextStrategy, MentionResolver, Persona, RunLimits, SendOptions, ToolShell,
};
use lectern::domain::{Mention, Role};
use lectern::error::{Error, Result};
use lectern::events::EventKind;
use lectern::provider::scripted::ScriptedTurn;
use lectern::runtime::time::{Clock, ManualClock};
use lectern::tool::{FnTool, Tool, ToolContext, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::{tools, Builder, TestAgent};

/// An agent over `turns` talking in a conversation titled "Test".
fn agent(turns: Vec<ScriptedTurn>) -> Builder {
    TestAgent::builder(turns).title("Test")
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn boxed(result: ToolResult) -> LocalBoxFuture<'static, ToolResult> {
    Box::pin(async move { result })
}

/// A weather tool that answers at once and counts its runs.
fn weather(runs: Rc<Cell<u32>>) -> impl Tool {
    FnTool::new(
        "weather",
        "Current weather in a city",
        object_schema(json!({"city": {"type": "string"}}), &["city"]),
        move |args: Value, _ctx: ToolContext| {
            runs.set(runs.get() + 1);
            boxed(Ok(json!({"city": args["city"], "celsius": 21})))
        },
    )
}

#[test]
fn direct_answer_has_no_tool_events() {
    let h = agent(vec![ScriptedTurn::text("Hello there.").with_usage(10, 3)]).build();
    let reply = h.send("Hi").unwrap();
    assert_eq!(reply.text, "Hello there.");
    assert_eq!((reply.steps, reply.tool_calls.len()), (1, 0));
    assert_eq!(
        h.event_log().types(),
        [
            "stepStart",
            "textDelta",
            "textDelta",
            "tokenUsage",
            "stepFinish",
            "finish"
        ]
    );
    assert_eq!(h.roles(), [Role::User, Role::Assistant]);
}

#[test]
fn one_tool_then_text_with_every_step_persisted() {
    let runs = Rc::new(Cell::new(0));
    let h = agent(vec![
        ScriptedTurn::tools(&[("weather", r#"{"city":"Oslo"}"#)]).with_usage(20, 5),
        ScriptedTurn::text("It is 21 °C in Oslo.").with_usage(40, 8),
    ])
    .tool(weather(runs.clone()))
    .build();
    let reply = h.send("Weather in Oslo?").unwrap();
    assert_eq!(reply.text, "It is 21 °C in Oslo.");
    assert_eq!(runs.get(), 1);
    assert_eq!(
        (reply.usage.input_tokens, reply.usage.output_tokens, reply.steps),
        (60, 13, 2)
    );
    let call = &reply.tool_calls[0];
    assert_eq!(
        (call.name.as_str(), call.result.as_deref(), call.cached),
        ("weather", Some(r#"{"celsius":21,"city":"Oslo"}"#), false)
    );
    assert_eq!(
        h.roles(),
        [Role::User, Role::Assistant, Role::ToolResult, Role::Assistant]
    );
    let second = &h.model.requests()[1];
    assert_eq!(second.messages[1].tool_calls[0].name, "weather");
    assert_eq!(second.messages[2].tool_call_id.as_deref(), Some(call.id.as_str()));
    assert_eq!(second.tools[0].name, "weather");
    let types = h.event_log().types();
    let invocation = types.iter().position(|t| *t == "toolInvocation").unwrap();
    let result = types.iter().position(|t| *t == "toolResult").unwrap();
    assert!(invocation < result && types.iter().filter(|t| **t == "stepStart").count() == 2);
}

/// The `toolInvocation` event gives the arguments in a pending call's shape (an
/// object) beside the model's text, and `null` when that text is no JSON object.
#[test]
fn tool_invocation_arguments_are_an_object_beside_the_models_text() {
    let h = agent(vec![
        ScriptedTurn::tools(&[("weather", r#"{"city":"Oslo"}"#), ("weather", "{\"city\":")]),
        ScriptedTurn::text("Done."),
    ])
    .tool(weather(Rc::new(Cell::new(0))))
    .build();
    h.send("Weather in Oslo?").unwrap();
    let invocations: Vec<(Value, Value)> = h
        .event_log()
        .json()
        .into_iter()
        .filter(|e| e["type"] == "toolInvocation")
        .map(|e| (e["arguments"].clone(), e["argumentsText"].clone()))
        .collect();
    assert_eq!(
        invocations,
        [
            (json!({"city": "Oslo"}), json!(r#"{"city":"Oslo"}"#)),
            (Value::Null, json!("{\"city\":")),
        ]
    );
}

/// Two tools that each wait until both have started: they can only finish if
/// they run at the same time.
fn rendezvous(name: &'static str, started: Rc<Cell<u32>>, clock: &ManualClock) -> impl Tool {
    let clock = clock.clone();
    FnTool::new(
        name,
        "waits for its partner",
        json!({"type": "object"}),
        move |_args: Value, _ctx: ToolContext| {
            let (started, clock) = (started.clone(), clock.clone());
            Box::pin(async move {
                started.set(started.get() + 1);
                while started.get() < 2 {
                    clock.sleep(1).await;
                }
                Ok(json!(name))
            }) as LocalBoxFuture<'static, ToolResult>
        },
    )
}

#[test]
fn calls_in_one_response_run_concurrently_and_results_keep_call_order() {
    let started = Rc::new(Cell::new(0));
    let clock = ManualClock::with_timers(0.0);
    let h = agent(vec![
        ScriptedTurn::tools(&[("first", "{}"), ("second", "{}")]),
        ScriptedTurn::text("Both done."),
    ])
    .clock(clock.clone())
    .tool(rendezvous("first", started.clone(), &clock))
    .tool(rendezvous("second", started.clone(), &clock))
    .build();
    let reply = h.send("Run both").unwrap();
    let results: Vec<Option<&str>> = reply.tool_calls.iter().map(|c| c.result.as_deref()).collect();
    assert_eq!(
        results,
        [Some("first"), Some("second")],
        "both finished, in call order"
    );
    assert_eq!(h.tool_results(), ["first", "second"]);
}

#[test]
fn parallel_tool_calls_off_runs_them_one_by_one() {
    let running = Rc::new(Cell::new(0));
    let most = Rc::new(Cell::new(0));
    let clock = ManualClock::with_timers(0.0);
    let tool = |name: &'static str| {
        let (running, most, clock) = (running.clone(), most.clone(), clock.clone());
        FnTool::new(
            name,
            "counts overlap",
            json!({"type": "object"}),
            move |_a: Value, _c: ToolContext| {
                let (running, most, clock) = (running.clone(), most.clone(), clock.clone());
                Box::pin(async move {
                    running.set(running.get() + 1);
                    most.set(most.get().max(running.get()));
                    clock.sleep(5).await;
                    running.set(running.get() - 1);
                    Ok(json!("ok"))
                }) as LocalBoxFuture<'static, ToolResult>
            },
        )
    };
    let config = AgentConfig {
        parallel_tool_calls: false,
        ..AgentConfig::default()
    };
    let h = agent(vec![
        ScriptedTurn::tools(&[("a", "{}"), ("b", "{}"), ("c", "{}")]),
        ScriptedTurn::text("done"),
    ])
    .config(config)
    .clock(clock.clone())
    .tool(tool("a"))
    .tool(tool("b"))
    .tool(tool("c"))
    .build();
    h.send("go").unwrap();
    assert_eq!(most.get(), 1);
}

#[test]
fn failures_are_results_the_model_reads() {
    let h = agent(vec![
        ScriptedTurn::tools(&[
            ("broken", "{}"),
            ("slow", "{}"),
            ("nonexistent", "{}"),
            ("weather", "{not json"),
            ("weather", r#"{"town":"Oslo"}"#),
        ]),
        ScriptedTurn::tools(&[("weather", r#"{"city":"Oslo"}"#)]),
        ScriptedTurn::text("Recovered."),
    ]);
    let runs = Rc::new(Cell::new(0));
    let broken = FnTool::new(
        "broken",
        "always fails",
        json!({"type": "object"}),
        |_a: Value, _c: ToolContext| boxed(Err("database is down".into())),
    );
    let h = h
        .tool(weather(runs.clone()))
        .tool(broken)
        .tool(tools::hanging("slow", "never returns").with_timeout_ms(250))
        .build();
    let reply = h.send("Try everything").unwrap();
    assert_eq!(reply.text, "Recovered.");
    let errors: Vec<Option<&str>> = reply.tool_calls.iter().map(|c| c.error.as_deref()).collect();
    assert_eq!(errors[0], Some("database is down"));
    assert_eq!(errors[1], Some("Tool timed out after 250 ms"));
    assert_eq!(errors[2], Some("Unknown tool: nonexistent"));
    assert!(
        errors[3]
            .unwrap()
            .starts_with("Invalid arguments: not valid JSON"),
        "{errors:?}"
    );
    assert_eq!(errors[4], Some("Invalid arguments: city: is required"));
    assert_eq!(errors[5], None, "the corrected call ran");
    assert_eq!(runs.get(), 1, "invalid arguments never reach the tool");
    let contents = h.tool_results();
    assert_eq!(contents[2], r#"{"error":"Unknown tool: nonexistent"}"#);
    assert_eq!(contents[4], r#"{"error":"Invalid arguments: city: is required"}"#);
    let second_request = &h.model.requests()[1];
    assert_eq!(
        second_request
            .messages
            .iter()
            .filter(|m| m.role == Role::ToolResult)
            .count(),
        5
    );
    let result_events = h
        .events()
        .iter()
        .filter(|e| matches!(e, EventKind::ToolResult { error: Some(_), .. }))
        .count();
    assert_eq!(result_events, 5);
}

#[test]
fn tools_outside_the_allowed_list_are_neither_offered_nor_run() {
    let runs = Rc::new(Cell::new(0));
    let config = AgentConfig {
        tool_shell: ToolShell {
            allowed_tools: Some(vec!["clock".into()]),
        },
        ..AgentConfig::default()
    };
    let h = agent(vec![
        ScriptedTurn::tools(&[("weather", r#"{"city":"Oslo"}"#)]),
        ScriptedTurn::text("ok"),
    ])
    .config(config)
    .clock(ManualClock::new(0.0))
    .tool(weather(runs.clone()))
    .tool(FnTool::new(
        "clock",
        "time",
        json!({"type": "object"}),
        |_a: Value, _c: ToolContext| boxed(Ok(json!("noon"))),
    ))
    .build();
    let reply = h.send("weather?").unwrap();
    let offered: Vec<String> = h.model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["clock"]);
    assert_eq!(
        reply.tool_calls[0].error.as_deref(),
        Some("Unknown tool: weather")
    );
    assert_eq!(runs.get(), 0);
}

#[test]
fn iteration_limit_rejects_with_the_steps_done_and_keeps_them() {
    let config = AgentConfig {
        limits: RunLimits {
            max_iterations: 2,
            ..RunLimits::default()
        },
        ..AgentConfig::default()
    };
    let h = agent(vec![
        ScriptedTurn::tools(&[("weather", r#"{"city":"A"}"#)]),
        ScriptedTurn::tools(&[("weather", r#"{"city":"B"}"#)]),
    ])
    .config(config)
    .clock(ManualClock::new(0.0))
    .tool(weather(Rc::new(Cell::new(0))))
    .build();
    let failure = h.send("loop").unwrap_err();
    assert_eq!(failure.error, Error::MaxIterations { limit: 2 });
    assert_eq!((failure.steps, failure.tool_calls.len()), (2, 2));
    assert_eq!(
        h.roles(),
        [
            Role::User,
            Role::Assistant,
            Role::ToolResult,
            Role::Assistant,
            Role::ToolResult
        ]
    );
}

#[test]
fn tool_call_limit_refuses_the_excess_and_rejects() {
    let runs = Rc::new(Cell::new(0));
    let config = AgentConfig {
        limits: RunLimits {
            max_tool_calls: 2,
            ..RunLimits::default()
        },
        ..AgentConfig::default()
    };
    let calls = [
        ("weather", r#"{"city":"A"}"#),
        ("weather", r#"{"city":"B"}"#),
        ("weather", r#"{"city":"C"}"#),
    ];
    let h = agent(vec![ScriptedTurn::tools(&calls)])
        .config(config)
        .clock(ManualClock::new(0.0))
        .tool(weather(runs.clone()))
        .build();
    let failure = h.send("three cities").unwrap_err();
    assert_eq!(failure.error.name(), "MaxToolCallsError");
    assert_eq!(runs.get(), 2);
    assert!(failure.tool_calls[2]
        .error
        .as_deref()
        .unwrap()
        .contains("limit of 2 tool calls"));
    assert_eq!(
        h.tool_results().len(),
        3,
        "every call has a result, so the history stays replayable"
    );
}

#[test]
fn model_failure_after_a_tool_step_keeps_the_step_and_writes_no_answer() {
    let h = agent(vec![
        ScriptedTurn::tools(&[("weather", r#"{"city":"Oslo"}"#)]),
        ScriptedTurn::error(Error::Api {
            status: 503,
            body: "overloaded".into(),
        }),
    ])
    .tool(weather(Rc::new(Cell::new(0))))
    .build();
    let failure = h.send("weather").unwrap_err();
    assert_eq!(failure.error.name(), "ApiError");
    assert_eq!((failure.steps, failure.tool_calls.len()), (2, 1));
    assert_eq!(h.roles(), [Role::User, Role::Assistant, Role::ToolResult]);
}

#[test]
fn tool_results_are_in_the_next_turns_context() {
    let h = agent(vec![
        ScriptedTurn::tools(&[("weather", r#"{"city":"Oslo"}"#)]),
        ScriptedTurn::text("21 °C."),
        ScriptedTurn::text("Still 21 °C."),
    ])
    .tool(weather(Rc::new(Cell::new(0))))
    .build();
    h.send("weather").unwrap();
    h.send("and now?").unwrap();
    let third = &h.model.requests()[2];
    let roles: Vec<Role> = third.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::ToolResult,
            Role::Assistant,
            Role::User
        ]
    );
    assert_eq!(third.messages[2].content, r#"{"celsius":21,"city":"Oslo"}"#);
}

#[test]
fn history_cap_keeps_tool_calls_with_their_results() {
    let config = AgentConfig {
        context: ContextStrategy::FullHistory { max_messages: 4 },
        ..AgentConfig::default()
    };
    let h = agent(vec![
        ScriptedTurn::tools(&[("weather", r#"{"city":"A"}"#), ("weather", r#"{"city":"B"}"#)]),
        ScriptedTurn::text("Two cities."),
        ScriptedTurn::text("ok"),
    ])
    .config(config)
    .clock(ManualClock::new(0.0))
    .tool(weather(Rc::new(Cell::new(0))))
    .build();
    h.send("weather in A and B").unwrap();
    h.send("thanks").unwrap();
    // Stored: user, ask, result, result, answer, user. Four would start at a result: the unit goes whole.
    let last = h
        .model
        .requests()
        .last()
        .unwrap()
        .messages
        .iter()
        .map(|m| m.role)
        .collect::<Vec<_>>();
    assert_eq!(last, [Role::Assistant, Role::User]);
}

#[test]
fn the_tenant_reaches_tools_and_arguments_cannot_override_it() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let record = seen.clone();
    let h = agent(vec![
        ScriptedTurn::tools(&[("whoami", r#"{"userId":"attacker","user_id":"attacker"}"#)]),
        ScriptedTurn::text("done"),
        ScriptedTurn::tools(&[("whoami", "{}")]),
        ScriptedTurn::text("done"),
    ])
    .config(AgentConfig {
        user_id: Some("tenant-1".into()),
        ..AgentConfig::default()
    })
    .clock(ManualClock::new(0.0))
    .tool(FnTool::new(
        "whoami",
        "the tenant",
        json!({"type": "object"}),
        move |args: Value, ctx: ToolContext| {
            record
                .borrow_mut()
                .push((ctx.user_id.clone(), args, ctx.conversation_id.clone()));
            boxed(Ok(json!(ctx.user_id)))
        },
    ))
    .build();
    h.send("who am I").unwrap();
    h.send_with(
        "again",
        &SendOptions {
            user_id: Some("tenant-2".into()),
            ..SendOptions::default()
        },
    )
    .unwrap();
    let seen = seen.borrow();
    assert_eq!(seen[0].0.as_deref(), Some("tenant-1"));
    assert_eq!(seen[0].1["userId"], "attacker", "arguments are only arguments");
    assert_eq!(seen[0].2, h.conversation);
    assert_eq!(seen[1].0.as_deref(), Some("tenant-2"), "per-send tenant");
}

#[test]
fn redacted_fields_never_reach_events_or_storage() {
    let config = AgentConfig {
        redact_arguments: vec!["password".into()],
        ..AgentConfig::default()
    };
    let got = Rc::new(RefCell::new(Value::Null));
    let sink = got.clone();
    let h = agent(vec![
        ScriptedTurn::tools(&[("login", r#"{"user":"ann","password":"hunter2"}"#)]),
        ScriptedTurn::text("in"),
    ])
    .config(config)
    .clock(ManualClock::new(0.0))
    .tool(FnTool::new(
        "login",
        "log in",
        json!({"type": "object"}),
        move |args: Value, _c: ToolContext| {
            *sink.borrow_mut() = args;
            boxed(Ok(json!("ok")))
        },
    ))
    .build();
    let reply = h.send("log me in").unwrap();
    assert_eq!(
        got.borrow()["password"],
        "hunter2",
        "the tool gets the real value"
    );
    assert!(!reply.tool_calls[0].arguments.contains("hunter2"));
    let stored = h.messages();
    assert!(!serde_json::to_string(&stored).unwrap().contains("hunter2"));
    assert!(!format!("{:?}", h.events()).contains("hunter2"));
}

#[test]
fn cached_results_are_reused_until_cleared() {
    let runs = Rc::new(Cell::new(0));
    let counter = runs.clone();
    let h = agent(vec![
        ScriptedTurn::tools(&[("rate", r#"{"from":"EUR","to":"USD"}"#)]),
        ScriptedTurn::tools(&[("rate", r#"{"to":"USD","from":"EUR"}"#)]),
        ScriptedTurn::text("1.08"),
        ScriptedTurn::tools(&[("rate", r#"{"from":"EUR","to":"USD"}"#)]),
        ScriptedTurn::text("1.08"),
    ])
    .tool(
        FnTool::new(
            "rate",
            "exchange rate",
            json!({"type": "object"}),
            move |_a: Value, _c: ToolContext| {
                counter.set(counter.get() + 1);
                boxed(Ok(json!(1.08)))
            },
        )
        .with_cache_ttl_ms(60_000),
    )
    .build();
    let reply = h.send("rate?").unwrap();
    let cached: Vec<bool> = reply.tool_calls.iter().map(|c| c.cached).collect();
    assert_eq!(
        cached,
        [false, true],
        "same arguments in another key order hit the cache"
    );
    assert_eq!(runs.get(), 1);
    h.agent.clear_tool_cache(Some("rate"));
    let again = h.send("rate again?").unwrap();
    assert!(!again.tool_calls[0].cached);
    assert_eq!(runs.get(), 2);
}

#[test]
fn turn_timeout_rejects_and_keeps_what_was_done() {
    let config = AgentConfig {
        limits: RunLimits {
            turn_timeout_ms: 5_000,
            ..RunLimits::default()
        },
        ..AgentConfig::default()
    };
    let h = agent(vec![ScriptedTurn::text("thinking").hanging()])
        .config(config)
        .clock(ManualClock::new(0.0))
        .build();
    let failure = h.send("hello").unwrap_err();
    assert_eq!(failure.error, Error::Timeout { after_ms: 5_000 });
    assert_eq!(h.roles(), [Role::User], "no answer is written on timeout");
}

#[test]
fn abort_keeps_the_partial_answer_marked_interrupted() {
    let clock = ManualClock::with_timers(0.0);
    let h = agent(vec![ScriptedTurn::text("The story begins ").hanging()])
        .config(AgentConfig {
            limits: RunLimits {
                turn_timeout_ms: 60_000,
                ..RunLimits::default()
            },
            ..AgentConfig::default()
        })
        .clock(clock.clone())
        .build();
    let options = SendOptions::default();
    let cancel = options.cancel.clone();
    let send = h.sending("tell a story", &options);
    let aborter = async {
        clock.sleep(20).await;
        cancel.cancel();
    };
    let (outcome, ()) = clock.drive(async { futures::join!(send, aborter) });
    assert_eq!(
        clock.now_ms(),
        20.0,
        "aborted by the host, well before the turn's limit"
    );
    let failure = outcome.unwrap_err();
    assert_eq!(failure.error, Error::Aborted);
    assert_eq!(failure.partial_text.as_deref(), Some("The story begins "));
    let stored = h.messages();
    assert_eq!(stored.len(), 2);
    assert!(stored[1].interrupted && stored[1].content == "The story begins ");
}

#[test]
fn two_sends_on_one_conversation_never_interleave() {
    let clock = ManualClock::with_timers(0.0);
    let h = agent(vec![
        ScriptedTurn::tools(&[("pause", "{}")]),
        ScriptedTurn::text("first done"),
        ScriptedTurn::text("second done"),
    ])
    .clock(clock.clone())
    .tool(pause_tool(&clock, 30))
    .build();
    let options = SendOptions::default();
    let (first, second) =
        clock.drive(async { futures::join!(h.sending("one", &options), h.sending("two", &options)) });
    assert_eq!(first.unwrap().text, "first done");
    assert_eq!(second.unwrap().text, "second done");
    assert_eq!(
        h.roles(),
        [
            Role::User,
            Role::Assistant,
            Role::ToolResult,
            Role::Assistant,
            Role::User,
            Role::Assistant
        ],
        "the second turn started after the first ended"
    );
}

#[test]
fn a_send_that_waits_too_long_for_the_conversation_is_refused() {
    let config = AgentConfig {
        limits: RunLimits {
            lock_wait_ms: Some(10),
            ..RunLimits::default()
        },
        ..AgentConfig::default()
    };
    let clock = ManualClock::with_timers(0.0);
    let h = agent(vec![
        ScriptedTurn::tools(&[("pause", "{}")]),
        ScriptedTurn::text("done"),
    ])
    .config(config)
    .clock(clock.clone())
    .tool(pause_tool(&clock, 200))
    .build();
    let options = SendOptions::default();
    let (first, (second, refused_at)) = clock.drive(async {
        futures::join!(h.sending("one", &options), async {
            let outcome = h.sending("two", &options).await;
            (outcome, clock.now_ms())
        })
    });
    assert!(first.is_ok());
    assert_eq!(second.unwrap_err().error.name(), "ConversationBusyError");
    assert_eq!(refused_at, 10.0, "refused once the wait ran out");
}

/// A `pause` tool that sleeps `ms` on `clock`.
fn pause_tool(clock: &ManualClock, ms: u64) -> impl Tool {
    tools::sleeping("pause", "waits", clock, ms, json!("paused"))
}

struct Notes;

impl MentionResolver for Notes {
    fn resolve(&self, mention: &Mention) -> LocalBoxFuture<'_, Result<String>> {
        let text = format!("Contents of {} {}", mention.kind, mention.id);
        Box::pin(async move { Ok(text) })
    }
}

#[test]
fn mentions_and_working_state_reach_the_system_message() {
    let h = agent(vec![
        ScriptedTurn::tools(&[("advance", "{}")]),
        ScriptedTurn::text("ok"),
    ])
    .mentions(Rc::new(Notes))
    .tool(FnTool::new(
        "advance",
        "moves on",
        json!({"type": "object"}),
        |_a: Value, ctx: ToolContext| {
            ctx.set_working_state(json!({"step": 2}));
            boxed(Ok(json!("advanced")))
        },
    ))
    .build();
    block_on(h.agent.set_working_state(&h.conversation, json!({"step": 1}))).unwrap();
    let options = SendOptions {
        mentions: vec![Mention {
            kind: "note".into(),
            id: "n1".into(),
        }],
        ..SendOptions::default()
    };
    h.send_with("use my note", &options).unwrap();
    let requests = h.model.requests();
    let first = requests[0].system.as_deref().unwrap();
    assert!(first.contains("### note n1\nContents of note n1"), "{first}");
    assert!(first.contains("\"step\": 1"));
    let second = requests[1].system.as_deref().unwrap();
    assert!(
        second.contains("\"step\": 2"),
        "a tool's working state shows at the next call"
    );
    assert_eq!(
        block_on(h.agent.working_state(&h.conversation)).unwrap(),
        Some(json!({"step": 2}))
    );
    // The stored state is told once, after its step and before the next model call.
    let types = h.event_log().types();
    let told = types
        .iter()
        .position(|t| t == "workingState")
        .expect("a workingState event");
    assert_eq!(types.iter().filter(|t| *t == "workingState").count(), 1);
    assert_eq!(&types[told - 1], "toolResult", "{types:?}");
    assert_eq!(&types[told + 1], "stepStart", "{types:?}");
    let events = h.event_log().json();
    let event = events.iter().find(|e| e["type"] == "workingState").unwrap();
    assert_eq!(event["state"], json!({"step": 2}));
}

#[test]
fn system_prompt_comes_first_from_a_template_with_variables() {
    let mut prompt_variables = lectern::domain::SortedMap::new();
    prompt_variables.insert("site".to_string(), "Lectern Books".to_string());
    let config = AgentConfig {
        prompts: lectern::agent::prompts::PromptLibrary::built_in().with_overrides(
            [(
                "librarian".to_string(),
                "You help readers of {{site}} in \"{{conversation_title}}\".".to_string(),
            )]
            .into(),
        ),
        persona: Persona {
            prompt: Some("librarian".into()),
            temperature: Some(0.3),
            ..Persona::default()
        },
        model_profile: lectern::agent::ModelProfile {
            temperature: Some(0.9),
            ..Default::default()
        },
        prompt_variables,
        ..AgentConfig::default()
    };
    let h = agent(vec![ScriptedTurn::text("hi")])
        .config(config)
        .clock(ManualClock::new(0.0))
        .build();
    h.send("hello").unwrap();
    let request = &h.model.requests()[0];
    assert_eq!(
        request.system.as_deref(),
        Some("You help readers of Lectern Books in \"Test\".")
    );
    assert_eq!(
        request.temperature,
        Some(0.3),
        "persona wins over the model profile"
    );

    let unknown = AgentConfig {
        persona: Persona {
            prompt: Some("missing".into()),
            ..Persona::default()
        },
        ..AgentConfig::default()
    };
    let h = agent(vec![ScriptedTurn::text("hi")])
        .config(unknown)
        .clock(ManualClock::new(0.0))
        .build();
    assert_eq!(h.send("hello").unwrap_err().error.name(), "ConfigError");
}

#[test]
fn validate_config_reports_errors_and_warnings_without_calling_a_model() {
    use lectern::agent::validate_config;
    use lectern::provider::ProviderConfig;
    let provider: ProviderConfig = serde_json::from_value(
        json!({"kind": "openai", "baseUrl": "https://api.openai.com/v1", "model": "gpt-4o-mini"}),
    )
    .unwrap();
    let config = AgentConfig {
        persona: Persona {
            system_prompt: Some("  ".into()),
            temperature: Some(3.5),
            tools: Some(vec!["weather".into(), "ghost".into()]),
            ..Persona::default()
        },
        ..AgentConfig::default()
    };
    let h = agent(vec![]).tool(weather(Rc::new(Cell::new(0)))).build();
    let report = validate_config(&provider, &config, h.agent.tools());
    assert!(!report.valid);
    assert_eq!(report.errors.len(), 3, "{:?}", report.errors);
    assert!(report.errors.iter().any(|e| e.contains("apiKey")));
    assert!(report.errors.iter().any(|e| e.contains("persona.temperature")));
    assert!(report.errors.iter().any(|e| e.contains("\"ghost\"")));
    assert_eq!(report.warnings, ["persona.systemPrompt is empty"]);
    assert!(h.model.requests().is_empty());

    let local: ProviderConfig = serde_json::from_value(
        json!({"kind": "openai", "baseUrl": "http://127.0.0.1:11434/v1", "model": "llama3.2"}),
    )
    .unwrap();
    let report = validate_config(&local, &AgentConfig::default(), h.agent.tools());
    assert!(report.valid, "{report:?}");
    assert_eq!(
        report.warnings.len(),
        1,
        "no key is only a warning for a local server"
    );
}
