//! The tool result cache through whole turns: results are shared only within
//! the tool's `cacheScope` (one user by default, a conversation, or everyone).

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::agent::SendOptions;
use lectern::domain::NewConversation;
use lectern::provider::scripted::ScriptedTurn;
use lectern::tool::{CacheScope, FnTool, ToolContext, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::TestAgent;

/// An agent with a `profile` tool that answers with the caller's user id and
/// counts its runs, cached for a minute in `scope`.
fn agent_with(scope: Option<CacheScope>, turns: usize) -> (TestAgent, Rc<Cell<u32>>) {
    let mut script = Vec::new();
    for _ in 0..turns {
        script.push(ScriptedTurn::tools(&[("profile", "{}")]));
        script.push(ScriptedTurn::text("ok"));
    }
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
    let h = TestAgent::builder(script)
        .tool(tool)
        .without_conversation()
        .build();
    (h, runs)
}

fn conversation(h: &TestAgent) -> String {
    h.create_conversation(NewConversation {
        title: None,
        book_id: None,
    })
}

/// Sends as `user` and returns (the tool's result, whether it came from the cache).
fn ask(h: &TestAgent, conversation: &str, user: &str) -> (String, bool) {
    let options = SendOptions {
        user_id: Some(user.to_owned()),
        ..SendOptions::default()
    };
    let reply = h.send_in(conversation, "who am I?", &options).unwrap();
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

#[test]
fn one_argument_set_is_forgotten_for_everyone_and_others_are_kept() {
    let (agent, runs) = agent_with(Some(CacheScope::Global), 3);
    let conv = conversation(&agent);
    assert!(!ask(&agent, &conv, "alice").1);
    assert!(ask(&agent, &conv, "alice").1, "cached");
    assert_eq!(agent.agent.forget_tool_result("profile", &json!({"other": 1})), 0);
    assert_eq!(
        agent.agent.forget_tool_result("lookup", &json!({})),
        0,
        "another tool"
    );
    assert_eq!(agent.agent.forget_tool_result("profile", &json!({})), 1);
    assert!(!ask(&agent, &conv, "alice").1, "forgotten: the tool runs again");
    assert_eq!(runs.get(), 2);
}
