//! Tool results the model reads are capped (`maxToolResultChars`, default
//! 50,000 characters, cut at a character boundary with a note the model can
//! read); the tool-call record keeps the whole result. Both ways a result
//! reaches the model are covered: a step that runs at once, and a paused step
//! resumed after approval.

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::agent::{AgentConfig, TurnStatus};
use lectern::approval::ApprovalPolicy;
use lectern::domain::Role;
use lectern::provider::scripted::ScriptedTurn;
use lectern::tool::{FnTool, ToolResult};
use serde_json::{json, Value};

use crate::support::harness::approvals::{approve, fixed_policies, with_approvals};
use crate::support::harness::TestAgent;

/// 812,345 characters, two of every three multibyte, so a cut at a byte
/// offset would land inside a character.
fn long_result() -> String {
    "é😀a".repeat(812_345 / 3) + "é😀"
}

/// An agent with `config` whose `dump` tool answers `result`, scripted to call it once and answer.
fn setup(config: AgentConfig, result: String) -> TestAgent {
    let tool = FnTool::new(
        "dump",
        "Returns a long text",
        json!({"type": "object", "properties": {}}),
        move |_: Value, _| {
            let result = result.clone();
            Box::pin(async move { Ok(Value::String(result)) }) as LocalBoxFuture<'static, ToolResult>
        },
    );
    let turns = vec![
        ScriptedTurn::tools(&[("dump", "{}")]),
        ScriptedTurn::text("Read it."),
    ];
    TestAgent::builder(turns).config(config).tool(tool).build()
}

/// Sends "dump it".
fn send(s: &TestAgent) -> lectern::agent::TurnResult {
    s.send("dump it").unwrap()
}

/// The stored tool result, and the one the model got in its second call.
fn seen_by_model(s: &TestAgent) -> (String, String) {
    let stored = s.tool_results().remove(0);
    let requests = s.model.requests();
    let sent = requests[1]
        .messages
        .iter()
        .find(|m| m.role == Role::ToolResult)
        .unwrap()
        .content
        .clone();
    (stored, sent)
}

fn expected_cut(full: &str, shown: usize, note: &str) -> String {
    format!("{}\n\n{note}", full.chars().take(shown).collect::<String>())
}

#[test]
fn a_long_result_reaches_the_model_cut_with_a_note_and_the_record_keeps_it_whole() {
    let full = long_result();
    assert_eq!(full.chars().count(), 812_345);
    let s = setup(AgentConfig::default(), full.clone());
    let reply = send(&s);
    assert_eq!(reply.text, "Read it.");
    let (stored, sent) = seen_by_model(&s);
    let expected = expected_cut(&full, 50_000, "[truncated: 50,000 of 812,345 characters shown]");
    assert_eq!(stored, expected);
    assert_eq!(sent, expected);
    assert_eq!(reply.tool_calls[0].result.as_deref(), Some(full.as_str()));
    let records = block_on(s.agent.tool_calls(&s.conversation)).unwrap();
    assert_eq!(records[0].result.as_deref(), Some(full.as_str()));
}

#[test]
fn the_cap_is_configurable_and_a_result_at_the_cap_is_whole() {
    let config = |max| AgentConfig {
        max_tool_result_chars: max,
        ..AgentConfig::default()
    };
    let s = setup(config(10), "😀".repeat(25));
    send(&s);
    let (stored, _) = seen_by_model(&s);
    assert_eq!(
        stored,
        expected_cut(&"😀".repeat(25), 10, "[truncated: 10 of 25 characters shown]")
    );

    let s = setup(config(25), "😀".repeat(25));
    send(&s);
    assert_eq!(seen_by_model(&s).0, "😀".repeat(25));
}

#[test]
fn a_result_that_ran_after_approval_is_cut_the_same_way() {
    let config = with_approvals(fixed_policies(&[("dump", ApprovalPolicy::Ask)]));
    let full = long_result();
    let s = setup(config, full.clone());
    let paused = send(&s);
    assert_eq!(paused.status, TurnStatus::AwaitingApproval);
    let reply = s
        .resolve(&paused.turn_id, &[approve(&paused.pending[0].call_id)])
        .unwrap();
    assert_eq!(reply.text, "Read it.");
    let (stored, sent) = seen_by_model(&s);
    let expected = expected_cut(&full, 50_000, "[truncated: 50,000 of 812,345 characters shown]");
    assert_eq!(stored, expected);
    assert_eq!(sent, expected);
    assert_eq!(reply.tool_calls[0].result.as_deref(), Some(full.as_str()));
}

#[test]
fn validate_config_knows_the_cap() {
    use lectern::agent::{validate_config, ContextStrategy};
    use lectern::provider::ProviderConfig;
    use lectern::tool::ToolRegistry;
    let provider: ProviderConfig = serde_json::from_value(
        json!({"kind": "openai", "baseUrl": "http://127.0.0.1:11434/v1", "model": "m"}),
    )
    .unwrap();
    let report = |max, context| {
        let config = AgentConfig {
            max_tool_result_chars: max,
            context,
            ..AgentConfig::default()
        };
        validate_config(&provider, &config, &ToolRegistry::new())
    };
    let fine = report(50_000, ContextStrategy::default());
    assert!(fine.valid && !fine.warnings.iter().any(|w| w.contains("maxToolResultChars")));
    let zero = report(0, ContextStrategy::default());
    assert_eq!(zero.errors, ["maxToolResultChars must be at least 1"]);
    let small = report(200, ContextStrategy::default());
    assert!(small.valid);
    assert!(small
        .warnings
        .iter()
        .any(|w| w.contains("maxToolResultChars (200) is small")));
    let over_budget = report(50_000, ContextStrategy::TokenBudget { max_tokens: 4_000 });
    assert!(over_budget
        .warnings
        .iter()
        .any(|w| w.contains("exceeds context.maxTokens (4000)")));
}
