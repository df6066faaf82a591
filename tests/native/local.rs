//! Local models as first-class providers, natively with the scripted model:
//! `provider.local` gives limits a slow on-device model needs,
//! `retrieval.maxContextTokens` (or a send's) bounds the passages put into the prompt, and a
//! provider that reports no usage gets an estimate marked as such.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::agent::{AgentConfig, RetrievalStrategy, RunLimits, SendOptions};
use lectern::error::{Error, Result};
use lectern::events::EventKind;
use lectern::provider::scripted::{ScriptedModel, ScriptedTurn};
use lectern::provider::{with_policy, Model, ModelRequest, PartStream, ProviderConfig};
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::{Clock, ManualClock};

use crate::support::harness::books::Book;
use crate::support::harness::{Builder, TestAgent};

/// A model that reads its prompt for `prompt_ms` before its first part, like
/// a 135M model on two cores over a 1,000-token prompt (about 100 s).
struct SlowReader {
    inner: ScriptedModel,
    clock: ManualClock,
    prompt_ms: u64,
}

impl Model for SlowReader {
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>> {
        let (request, cancel) = (request.clone(), cancel.clone());
        Box::pin(async move {
            self.clock.sleep(self.prompt_ms).await;
            self.inner.stream(&request, &cancel).await
        })
    }

    fn model_name(&self) -> &str {
        "local"
    }
}

/// Sends one message to an agent whose provider is `provider` (JSON, as a host
/// passes it) over a model that takes 100 s to read the prompt.
fn send_to_slow_model(provider: &str) -> std::result::Result<String, Error> {
    let provider: ProviderConfig = serde_json::from_str(provider).unwrap();
    let clock = ManualClock::with_timers(1_700_000_000_000.0);
    let slow = SlowReader {
        inner: ScriptedModel::new(vec![ScriptedTurn::text("Syme is a poet.")]),
        clock: clock.clone(),
        prompt_ms: 100_000,
    };
    let model = with_policy(&provider, Rc::new(slow), Rc::new(clock.clone()));
    let config = AgentConfig {
        limits: RunLimits::resolve(None, provider.local).unwrap(),
        ..AgentConfig::default()
    };
    let h = Builder::over(model).clock(clock).config(config).build();
    h.send("Who is Syme?")
        .map(|reply| reply.text)
        .map_err(|e| e.error)
}

#[test]
fn a_local_provider_waits_for_a_slow_first_token_where_a_remote_one_times_out() {
    let remote = send_to_slow_model(r#"{"kind":"custom","model":"smollm2"}"#);
    assert_eq!(
        remote,
        Err(Error::Timeout { after_ms: 30_000 }),
        "the default turn limit"
    );
    let local = send_to_slow_model(r#"{"kind":"custom","model":"smollm2","local":true}"#);
    assert_eq!(local.as_deref(), Ok("Syme is a poet."));
    let overridden = send_to_slow_model(
        r#"{"kind":"custom","model":"smollm2","local":true,"timeouts":{"firstChunkMs":50000}}"#,
    );
    assert_eq!(
        overridden,
        Err(Error::Timeout { after_ms: 50_000 }),
        "the host's limit wins"
    );
}

/// An agent over a six-page book read up to page 5, each page one ~200-token
/// passage that mentions Syme.
fn book_agent(
    strategy: RetrievalStrategy,
    max_context_tokens: Option<usize>,
    turns: Vec<ScriptedTurn>,
) -> TestAgent {
    let pages = (1..=6)
        .map(|n| {
            format!(
                "Page {n}: Syme walked by the river with the Professor. {}",
                "The lamps were lit. ".repeat(36)
            )
        })
        .collect();
    let book = Book {
        pages,
        author: None,
        chunk_chars: 800,
    };
    // The reader's pages left out: these tests count the passages found.
    let config = AgentConfig {
        retrieval: strategy,
        max_context_tokens,
        reader_pages: 0,
        retrieved_passages: 5,
        ..AgentConfig::default()
    };
    let builder = TestAgent::builder(turns)
        .config(config)
        .clock(ManualClock::new(1.0e12));
    let (builder, book_id) = book.shelve(builder, 5);
    builder.book(&book_id).build()
}

fn passages_in(text: &str) -> usize {
    text.matches("[Pages ").count()
}

#[test]
fn always_retrieve_passages_stop_at_max_context_tokens() {
    // Each found passage is cut to the 400 characters around the question's words: ~105 tokens.
    for (budget, expected) in [(None, 5), (Some(450), 4), (Some(250), 2), (Some(1), 1)] {
        let h = book_agent(
            RetrievalStrategy::AlwaysRetrieve,
            budget,
            vec![ScriptedTurn::text("He walks.")],
        );
        h.send("Where did Syme walk?").unwrap();
        let system = h.model.requests()[0].system.clone().unwrap();
        assert_eq!(passages_in(&system), expected, "budget {budget:?}: {system}");
        assert!(!system.contains("Page 6:"), "past the reader's page");
    }
}

#[test]
fn search_book_results_stop_at_max_context_tokens() {
    let turns = || {
        vec![
            ScriptedTurn::tools(&[("search_book", r#"{"query":"Syme river Professor","top_k":5}"#)]),
            ScriptedTurn::text("By the river."),
        ]
    };
    for (budget, expected) in [(None, 5), (Some(650), 3)] {
        let h = book_agent(RetrievalStrategy::ToolUse, budget, turns());
        let reply = h.send("Where?").unwrap();
        let result = reply.tool_calls[0].result.clone().unwrap();
        assert_eq!(passages_in(&result), expected, "budget {budget:?}: {result}");
    }
}

/// `send`'s options with this turn's passage budget.
fn with_passage_budget(tokens: u32) -> SendOptions {
    let mut options = SendOptions::default();
    options.overrides.max_context_tokens = Some(tokens);
    options
}

#[test]
fn a_sends_max_context_tokens_bounds_its_turn_over_the_configured_one() {
    // Configured 450 (four passages); this turn 250 (two); the next turn the configured again.
    let turns = vec![ScriptedTurn::text("He walks."), ScriptedTurn::text("Again.")];
    let h = book_agent(RetrievalStrategy::AlwaysRetrieve, Some(450), turns);
    h.send_with("Where did Syme walk?", &with_passage_budget(250))
        .unwrap();
    h.send("Where did Syme walk?").unwrap();
    let systems: Vec<String> = h
        .model
        .requests()
        .iter()
        .map(|r| r.system.clone().unwrap())
        .collect();
    assert_eq!(passages_in(&systems[0]), 2, "{}", systems[0]);
    assert_eq!(passages_in(&systems[1]), 4, "{}", systems[1]);

    let turns = vec![
        ScriptedTurn::tools(&[("search_book", r#"{"query":"Syme river Professor","top_k":5}"#)]),
        ScriptedTurn::text("By the river."),
    ];
    let h = book_agent(RetrievalStrategy::ToolUse, None, turns);
    let reply = h.send_with("Where?", &with_passage_budget(650)).unwrap();
    let result = reply.tool_calls[0].result.clone().unwrap();
    assert_eq!(
        passages_in(&result),
        3,
        "search_book within the turn's budget: {result}"
    );
}

fn usage_events(turns: Vec<ScriptedTurn>) -> (Vec<(u64, u64, bool)>, lectern::domain::TurnUsage) {
    let h = TestAgent::builder(turns).clock(ManualClock::new(1.0e12)).build();
    let reply = h.send(&"question ".repeat(100)).unwrap();
    let events = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            EventKind::TokenUsage {
                input_tokens,
                output_tokens,
                estimated,
                ..
            } => Some((input_tokens, output_tokens, estimated)),
            _ => None,
        })
        .collect();
    (events, reply.usage)
}

#[test]
fn usage_is_estimated_and_marked_when_the_provider_reports_none() {
    let (events, usage) = usage_events(vec![ScriptedTurn::text(&"word ".repeat(20))]);
    assert_eq!(events.len(), 1);
    let (input, output, estimated) = events[0];
    assert!(estimated);
    assert!(input >= 100, "the 100-word question alone is 100 tokens: {input}");
    assert_eq!(output, 20, "20 words of answer");
    assert!(usage.estimated && usage.input_tokens == input && usage.output_tokens == output);
    let json = serde_json::to_value(usage).unwrap();
    assert_eq!(json["estimated"], true);

    let (events, usage) = usage_events(vec![ScriptedTurn::text("Hi.").with_usage(12, 3)]);
    assert_eq!(events, [(12, 3, false)]);
    assert!(!usage.estimated);
    assert!(
        serde_json::to_value(usage).unwrap().get("estimated").is_none(),
        "absent when reported"
    );
}
