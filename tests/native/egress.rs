//! The egress ledger: each model request of a turn says where it went, how
//! big it was, and which book passages, tool results and mentions it
//! carried — on the result, the failed turn's error and headless runs.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use lectern::agent::{AgentConfig, MentionResolver, RetrievalStrategy, SendOptions};
use lectern::domain::{EgressEntry, EgressPurpose, Mention};
use lectern::error::{Error, Result};
use lectern::provider::scripted::ScriptedTurn;
use lectern::provider::{with_policy, ProviderConfig};
use lectern::runtime::time::ManualClock;
use serde_json::json;

use crate::support::harness::books::{book_agent, thursday_pages};
use crate::support::harness::TestAgent;

fn pages(entry: &EgressEntry) -> Vec<(u32, u32, &str)> {
    entry
        .passages
        .iter()
        .map(|p| (p.start_page, p.end_page, p.via.as_str()))
        .collect()
}

/// One turn in a conversation bound to the book, the reader on page 2.
fn book_turn(retrieval: RetrievalStrategy, turns: Vec<ScriptedTurn>) -> (Vec<EgressEntry>, String) {
    let config = AgentConfig {
        retrieval,
        ..AgentConfig::default()
    };
    let (builder, book_id) = book_agent(config, thursday_pages(), 2, turns);
    let h = builder.book(&book_id).build();
    (h.send("Who is Gregory?").unwrap().egress, book_id)
}

#[test]
fn an_always_retrieve_turn_lists_the_pages_in_its_system_message() {
    let (egress, book_id) = book_turn(
        RetrievalStrategy::AlwaysRetrieve,
        vec![ScriptedTurn::text("A poet.")],
    );
    assert_eq!(egress.len(), 1);
    let entry = &egress[0];
    assert_eq!((entry.step, entry.purpose), (1, EgressPurpose::Answer));
    let listed = pages(entry);
    assert!(!listed.is_empty());
    assert!(
        listed.iter().all(|(start, end, via)| *start <= 2
            && *end <= 2
            && ["readerPage", "alwaysRetrieve"].contains(via)),
        "{listed:?}"
    );
    assert!(
        listed
            .iter()
            .any(|(_, end, via)| *end == 2 && *via == "readerPage"),
        "{listed:?}"
    );
    assert!(entry.passages.iter().all(|p| p.book_id == book_id));
    assert!(entry.tool_results.is_empty() && entry.tools.is_empty());
    assert_eq!(entry.messages, 1);
    assert!(entry.system_chars > 100);
    assert_eq!(
        (entry.endpoint.provider.as_str(), entry.endpoint.host.as_deref()),
        ("custom", None)
    );
}

#[test]
fn search_book_results_are_listed_on_the_request_that_carried_them() {
    let turns = vec![
        ScriptedTurn::tools(&[("search_book", r#"{"query":"Gregory"}"#)]).with_usage(90, 10),
        ScriptedTurn::text("A poet.").with_usage(300, 20),
    ];
    let (egress, _) = book_turn(RetrievalStrategy::ToolUse, turns);
    assert_eq!(egress.len(), 2);
    // The first request carried only the reader's pages; the search's come with the second.
    assert!(egress[0].passages.iter().all(|p| p.via == "readerPage") && egress[0].tool_results.is_empty());
    assert_eq!(egress[0].tools, ["search_book"]);
    assert_eq!(
        (
            egress[0].input_tokens,
            egress[0].output_tokens,
            egress[0].estimated
        ),
        (90, 10, false)
    );
    let second = &egress[1];
    assert_eq!(
        (second.step, second.input_tokens, second.output_tokens),
        (2, 300, 20)
    );
    assert_eq!(second.tool_results.len(), 1);
    assert_eq!(second.tool_results[0].tool_name, "search_book");
    assert!(second.tool_results[0].chars > 20);
    let listed = pages(second);
    assert!(!listed.is_empty());
    assert!(
        listed
            .iter()
            .all(|(_, end, via)| *end <= 2 && ["readerPage", "search_book"].contains(via)),
        "{listed:?}"
    );
    assert!(
        listed.iter().any(|(_, _, via)| *via == "search_book"),
        "{listed:?}"
    );
}

#[test]
fn a_failed_call_is_listed_on_the_error_and_a_refused_connection_is_not() {
    let turns = vec![
        ScriptedTurn::error(Error::Api {
            status: 500,
            body: "boom".into(),
        }),
        ScriptedTurn::error(Error::Connection {
            message: "refused".into(),
        }),
    ];
    let h = TestAgent::builder(turns).clock(ManualClock::new(1.0e12)).build();
    let failure = h.send("hello").unwrap_err();
    assert_eq!(failure.egress.len(), 1, "the request reached the server");
    let entry = &failure.egress[0];
    assert!(entry.estimated && entry.input_tokens > 0 && entry.output_tokens == 0);
    let failure = h.send("again").unwrap_err();
    assert!(failure.egress.is_empty(), "a refused connection sent nothing");
}

#[test]
fn http_providers_name_their_host_and_a_local_one_says_so() {
    let endpoint = |config: serde_json::Value| {
        let config: ProviderConfig = serde_json::from_value(config).unwrap();
        let clock = Rc::new(ManualClock::new(0.0));
        let transport = Rc::new(lectern::http::ReplayTransport::new());
        let inner = lectern::provider::provider_for(&config.kind, transport, clock.clone()).unwrap();
        with_policy(&config, inner, clock).endpoint()
    };
    let openai =
        endpoint(json!({ "kind": "openai", "baseUrl": "https://API.example.com:8443/v1", "model": "m" }));
    assert_eq!(
        (openai.provider.as_str(), openai.host.as_deref(), openai.local),
        ("openai", Some("api.example.com"), false)
    );
    let anthropic = endpoint(json!({ "kind": "anthropic", "model": "claude", "apiKey": "k" }));
    assert_eq!(
        (anthropic.provider.as_str(), anthropic.host.as_deref()),
        ("anthropic", Some("api.anthropic.com"))
    );
    let local = endpoint(
        json!({ "kind": "openai", "baseUrl": "http://127.0.0.1:8080/v1", "model": "m", "local": true }),
    );
    assert_eq!((local.host.as_deref(), local.local), (Some("127.0.0.1"), true));
}

/// Resolves every mention to a line of text.
struct Notes;

impl MentionResolver for Notes {
    fn resolve(&self, mention: &Mention) -> LocalBoxFuture<'_, Result<String>> {
        let text = format!("contents of {}", mention.id);
        Box::pin(async move { Ok(text) })
    }
}

#[test]
fn mentions_are_listed_with_the_request_they_went_into() {
    let h = TestAgent::builder(vec![ScriptedTurn::text("ok")])
        .clock(ManualClock::new(1.0e12))
        .mentions(Rc::new(Notes))
        .build();
    let options = SendOptions {
        mentions: vec![Mention {
            kind: "note".into(),
            id: "n1".into(),
        }],
        ..SendOptions::default()
    };
    let result = h.send_with("see this", &options).unwrap();
    assert_eq!(result.egress[0].mentions, options.mentions);
}
