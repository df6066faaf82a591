//! Every default the design names, decided and asserted (issue 48): each
//! value here is documented with its reason in docs/api.md, "Defaults", and
//! a change to any of them fails this test first.

use lectern::agent::{ContextStrategy, OpenOptions, DEFAULT_RUN_TIMEOUT_MS};
use lectern::approval::OnNewMessage;
use lectern::provider::answer_defaults::{apply_answer_defaults, DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE};
use lectern::provider::ProviderKind;
use serde_json::{json, Value};

/// `Lectern.open`'s options with only what is required.
fn least_options(provider: Value) -> OpenOptions {
    serde_json::from_value(json!({ "provider": provider })).expect("the least options are valid")
}

fn openai() -> Value {
    json!({"kind": "openai", "model": "gpt-4o-mini"})
}

#[test]
fn a_turn_calls_the_model_ten_times_and_tools_ten_times_at_most_within_30_seconds() {
    let config = least_options(openai()).agent_config(Vec::new()).unwrap();
    assert_eq!(config.limits.max_iterations, 10, "the design's iteration limit");
    assert_eq!(
        config.limits.max_tool_calls, 10,
        "the design's tool calls per turn"
    );
    assert_eq!(config.limits.turn_timeout_ms, 30_000);
    assert_eq!(config.limits.tool_timeout_ms, 10_000);
    assert_eq!(config.limits.lock_wait_ms, None);
}

#[test]
fn an_openai_compatible_answer_is_capped_at_2048_tokens_and_sampled_at_0_7() {
    assert_eq!(DEFAULT_MAX_TOKENS, 2048);
    assert_eq!(DEFAULT_TEMPERATURE, 0.7);
    let mut provider = openai().as_object().unwrap().clone();
    apply_answer_defaults("openai", &mut provider);
    assert_eq!(provider["maxTokens"], json!(2048));
}

#[test]
fn the_model_sees_the_newest_50_messages_uncompressed_and_passages_within_1500_tokens() {
    let config = least_options(openai()).agent_config(Vec::new()).unwrap();
    assert_eq!(config.context, ContextStrategy::FullHistory { max_messages: 50 });
    assert_eq!(
        config.max_context_tokens,
        Some(1500),
        "a book's passages, per retrieval"
    );
}

#[test]
fn a_headless_run_takes_the_turn_limits_and_120_seconds() {
    assert_eq!(DEFAULT_RUN_TIMEOUT_MS, 120_000);
    let request: lectern::agent::HeadlessRequest =
        serde_json::from_value(json!({"instruction": "Summarise the inbox."})).unwrap();
    assert_eq!(request.timeout_ms, 120_000);
    assert_eq!(request.max_iterations, None, "the configured limit (10)");
}

#[test]
fn a_paused_turn_waits_a_day_in_the_store_and_refuses_a_new_message() {
    let config = least_options(openai()).agent_config(Vec::new()).unwrap();
    assert_eq!(config.approvals.ttl_ms, 24 * 60 * 60 * 1000);
    assert_eq!(config.approvals.on_new_message, OnNewMessage::Refuse);
}

#[test]
fn an_openai_provider_without_a_base_url_asks_openai() {
    let options = least_options(openai());
    match &options.provider.kind {
        ProviderKind::Openai(settings) => assert_eq!(settings.base_url, "https://api.openai.com/v1"),
        other => panic!("an openai provider, got {other:?}"),
    }
}

#[test]
fn errors_reject_unless_friendly_errors_is_set() {
    assert!(!least_options(openai()).friendly_errors);
    let mut friendly = json!({"provider": openai(), "friendlyErrors": true});
    let options: OpenOptions = serde_json::from_value(friendly.take()).unwrap();
    assert!(options.friendly_errors);
}

/// Tool precedence: a tool is offered when the tool shell's `allowedTools`
/// allows it *and* the persona's `tools` lists it (each unset: no limit) —
/// the intersection, not the shell over the persona (docs/api.md, "Defaults").
#[test]
fn a_tool_is_offered_when_both_the_shell_and_the_persona_allow_it() {
    let config = |extra: Value| {
        let mut value = json!({ "provider": openai() });
        value
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::from_value::<OpenOptions>(value)
            .unwrap()
            .agent_config(Vec::new())
            .unwrap()
    };
    let neither = config(json!({}));
    assert!(neither.offers("lookup") && neither.offers("send_email"));
    let persona = config(json!({"persona": {"tools": ["lookup"]}}));
    assert!(
        persona.offers("lookup") && !persona.offers("send_email"),
        "the persona filters"
    );
    let shell = config(json!({"allowedTools": ["send_email"]}));
    assert!(
        !shell.offers("lookup") && shell.offers("send_email"),
        "the shell filters"
    );
    let both =
        config(json!({"allowedTools": ["send_email"], "persona": {"tools": ["lookup", "send_email"]}}));
    assert!(
        !both.offers("lookup"),
        "the shell's refusal stands over the persona's list"
    );
    assert!(both.offers("send_email"));
}
