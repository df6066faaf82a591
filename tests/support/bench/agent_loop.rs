//! The agent-loop benchmark, shared by the native run (memory store) and the
//! browser run (IndexedDB): what one model step costs Lectern itself
//! (persisting every step, building the context, running a tool, events)
//! with a scripted model that answers at once; and the store's share of it,
//! one step's append and a 1,000-message load.
#![allow(dead_code)]

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, SendOptions};
use lectern::domain::{Message, NewConversation, Role};
use lectern::events::EventSink;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::runtime::time::Clock;
use lectern::storage::Store;
use lectern::tool::{FnTool, ToolContext, ToolResult};
use serde_json::{json, Value};

use super::context::fill;

/// Median of a list of timings, in milliseconds.
fn median(mut timings: Vec<f64>) -> f64 {
    timings.sort_by(f64::total_cmp);
    timings[timings.len() / 2]
}

fn echo_tool() -> FnTool<impl Fn(Value, ToolContext) -> LocalBoxFuture<'static, ToolResult>> {
    FnTool::new(
        "echo",
        "Says the text back",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |args: Value, _ctx: ToolContext| Box::pin(async move { Ok(json!({ "echo": args["text"] })) }),
    )
}

/// Milliseconds per model step, the median over `turns` turns of two steps
/// each (a tool call, then the answer), and the report line.
pub async fn per_step(
    store: Rc<dyn Store>,
    clock: Rc<dyn Clock>,
    now: &dyn Fn() -> f64,
    turns: usize,
) -> (f64, String) {
    let script: Vec<ScriptedTurn> = (0..turns)
        .flat_map(|_| {
            [
                ScriptedTurn::tools(&[("echo", r#"{"text":"hi"}"#)]),
                ScriptedTurn::text("Done."),
            ]
        })
        .collect();
    let model = Rc::new(ScriptedModel::new(script));
    let agent = Agent::new(store, model, clock, AgentConfig::default());
    agent.register_tool(Rc::new(echo_tool())).expect("a new tool");
    let conversation = agent
        .create_conversation(NewConversation {
            title: Some("bench".into()),
            book_id: None,
        })
        .await
        .expect("conversation")
        .id;
    let sink = EventSink::new(|_| {});
    let mut timings = Vec::with_capacity(turns);
    for i in 0..turns {
        let start = now();
        agent
            .send(
                &conversation,
                &format!("Question {i}"),
                &SendOptions::default(),
                &sink,
            )
            .await
            .expect("a scripted turn");
        timings.push((now() - start) / 2.0);
    }
    let ms = median(timings);
    let line = format!("  agent loop, scripted model answering at once: {ms:.3} ms per step (median of {turns} turns, tool call + answer)");
    (ms, line)
}

/// One step's append (the median of `runs`) and a 1,000-message load, in
/// milliseconds, and the report lines.
pub async fn store_figures(store: &dyn Store, now: &dyn Fn() -> f64, runs: usize) -> (f64, f64, Vec<String>) {
    fill(store, "bench-load", 1_000).await;
    let mut timings = Vec::with_capacity(runs);
    for i in 0..runs {
        let message = Message::new(
            format!("bench-load-extra-{i}"),
            "bench-load",
            Role::Assistant,
            "An answer of a few words.",
            0.0,
        );
        let start = now();
        store.append_messages(vec![message]).await.expect("append");
        timings.push(now() - start);
    }
    let append = median(timings);
    let mut loads = Vec::with_capacity(5);
    for _ in 0..5 {
        let start = now();
        let messages = store.messages("bench-load").await.expect("messages");
        loads.push(now() - start);
        assert!(messages.len() >= 1_000);
    }
    let load = median(loads);
    let lines = vec![
        format!("  append one step's message: {append:.3} ms (median of {runs})"),
        format!("  load 1,000 messages: {load:.2} ms (median of 5)"),
    ];
    (append, load, lines)
}
