//! The tool result cache through whole turns: results are shared only within
//! the tool's `cacheScope` (one user by default, a conversation, or everyone).

use std::cell::Cell;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{Agent, AgentConfig, SendOptions};
use lectern::domain::NewConversation;
use lectern::events::EventSink;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::storage::MemoryStore;
use lectern::time::ManualClock;
use lectern::tool::{CacheScope, FnTool, ToolContext, ToolResult};
use serde_json::{json, Value};

/// An agent with a `profile` tool that answers with the caller's user id and
/// counts its runs, cached for a minute in `scope`.
fn agent_with(scope: Option<CacheScope>, turns: usize) -> (Agent, Rc<Cell<u32>>) {
    let mut script = Vec::new();
    for _ in 0..turns {
        script.push(ScriptedTurn::tools(&[("profile", "{}")]));
        script.push(ScriptedTurn::text("ok"));
    }
    let model = Rc::new(ScriptedModel::new(script));
    let clock = Rc::new(ManualClock::new(1_700_000_000_000.0));
    let agent = Agent::new(Rc::new(MemoryStore::new()), model, clock, AgentConfig::default());
    let runs = Rc::new(Cell::new(0));
    let counter = runs.clone();
    let tool = FnTool::new(
        "profile",
        "the caller's profile",
        json!({"type": "object"}),
        move |_a: Value, ctx: ToolContext| -> LocalBoxFuture<'static, ToolResult> {
            counter.set(counter.get() + 1);
            let user = ctx.user_id.clone();
            Box::pin(async move { Ok(json!({ "user": user })) })
        },
    )
    .with_cache_ttl_ms(60_000);
    let tool = match scope {
        Some(scope) => tool.with_cache_scope(scope),
        None => tool,
    };
    agent.register_tool(Rc::new(tool)).unwrap();
    (agent, runs)
}

fn conversation(agent: &Agent) -> String {
    block_on(agent.create_conversation(NewConversation {
        title: None,
        book_id: None,
    }))
    .unwrap()
    .id
}

/// Sends as `user` and returns (the tool's result, whether it came from the cache).
fn ask(agent: &Agent, conversation: &str, user: &str) -> (String, bool) {
    let options = SendOptions {
        user_id: Some(user.to_owned()),
        ..SendOptions::default()
    };
    let reply = block_on(agent.send(conversation, "who am I?", &options, &EventSink::none())).unwrap();
    let call = &reply.tool_calls[0];
    (call.result.clone().unwrap(), call.cached)
}

#[test]
fn cached_results_never_cross_users_by_default() {
    let (agent, runs) = agent_with(None, 3);
    let conv = conversation(&agent);
    assert_eq!(ask(&agent, &conv, "alice"), (r#"{"user":"alice"}"#.into(), false));
    assert_eq!(
        ask(&agent, &conv, "bob"),
        (r#"{"user":"bob"}"#.into(), false),
        "bob must not get alice's cached result"
    );
    assert_eq!(ask(&agent, &conv, "alice"), (r#"{"user":"alice"}"#.into(), true));
    assert_eq!(runs.get(), 2);
}

#[test]
fn conversation_scope_shares_within_a_conversation_only() {
    let (agent, runs) = agent_with(Some(CacheScope::Conversation), 3);
    let (first, second) = (conversation(&agent), conversation(&agent));
    assert!(!ask(&agent, &first, "alice").1);
    assert!(ask(&agent, &first, "bob").1, "same conversation: shared");
    assert!(
        !ask(&agent, &second, "alice").1,
        "another conversation: not shared"
    );
    assert_eq!(runs.get(), 2);
}

#[test]
fn global_scope_shares_across_users_and_conversations() {
    let (agent, runs) = agent_with(Some(CacheScope::Global), 2);
    let (first, second) = (conversation(&agent), conversation(&agent));
    assert!(!ask(&agent, &first, "alice").1);
    assert_eq!(ask(&agent, &second, "bob"), (r#"{"user":"alice"}"#.into(), true));
    assert_eq!(runs.get(), 1);
}
