//! Quoted answers in a turn (issue 46): the `quotes` provider answers a book
//! question with the book's own sentences, streamed, with sources and a
//! check, stored marked as quotes; a book question whose model fails before
//! writing is answered the same way (said so in a warning and on the
//! answer) unless `quoteFallback` is off; outside a book there is nothing to
//! quote.

use lectern::agent::{AgentConfig, QuoteAnswers, TurnResult};
use lectern::domain::{QuoteReason, Role};
use lectern::error::Error;
use lectern::events::EventKind;
use lectern::provider::scripted::ScriptedTurn;

use crate::support::harness::books::{book_agent, thursday_pages};
use crate::support::harness::TestAgent;

fn quotes(always: bool, fallback: bool) -> AgentConfig {
    AgentConfig {
        quotes: QuoteAnswers { always, fallback },
        ..AgentConfig::default()
    }
}

/// The pages of a three-page book, the reader on page 2.
fn ask(
    config: AgentConfig,
    turns: Vec<ScriptedTurn>,
    question: &str,
) -> (
    Result<TurnResult, lectern::agent::TurnError>,
    Vec<EventKind>,
    Vec<lectern::domain::Message>,
) {
    let (builder, book_id) = book_agent(config, thursday_pages(), 2, turns);
    let h = builder.book(&book_id).build();
    let result = h.send(question);
    (result, h.events(), h.messages())
}

fn streamed(events: &[EventKind]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_quotes_provider_answers_with_the_books_sentences() {
    let (result, events, messages) = ask(quotes(true, true), vec![], "Where did Gregory take Syme?");
    let result = result.expect("answered");
    assert_eq!(
        result.text,
        "p. 1: “Syme met the poet Gregory in the garden of Saffron Park.”\n\n\
         p. 2: “Gregory took Syme to a secret meeting under a tavern.”",
        "both sentences bear on it, in book order, each on its own page"
    );
    assert_eq!(streamed(&events), result.text, "streamed like any answer");
    assert_eq!(result.steps, 0, "no model was called");
    let quoted = result.quoted.clone().expect("marked as quotes");
    assert_eq!((quoted.reason, quoted.error), (QuoteReason::Provider, None));
    assert!(!result.sources.is_empty() && result.source_check.as_ref().is_some_and(|c| c.grounded));
    assert!(!result.text.contains("policeman"), "never past the reader's page");
    let stored = messages.into_iter().rfind(|m| m.role == Role::Assistant).unwrap();
    assert_eq!(stored.quoted, result.quoted, "stored marked");
    assert_eq!(stored.sources, result.sources);
    assert!(events
        .iter()
        .any(|e| matches!(e, EventKind::Finish { quoted: Some(_), .. })));
}

#[test]
fn a_failing_model_is_answered_with_quotes_said_to_be_quotes() {
    let down = || vec![ScriptedTurn::error(Error::connection("the network is off"))];
    let (result, events, _) = ask(quotes(false, true), down(), "Where did Gregory take Syme?");
    let result = result.expect("the quotes stand in");
    assert!(
        result
            .text
            .contains("“Gregory took Syme to a secret meeting under a tavern.”"),
        "{}",
        result.text
    );
    let quoted = result.quoted.expect("marked");
    assert_eq!(quoted.reason, QuoteReason::Fallback);
    assert!(quoted.error.unwrap().contains("the network is off"));
    assert!(events
        .iter()
        .any(|e| matches!(e, EventKind::Warning { code, .. } if code == "answeredWithQuotes")));

    let (off, _, messages) = ask(quotes(false, false), down(), "Where did Gregory take Syme?");
    assert!(
        matches!(off.unwrap_err().error, Error::Connection { .. }),
        "quoteFallback: false keeps the error"
    );
    assert!(messages.iter().all(|m| m.role != Role::Assistant));
}

#[test]
fn an_abort_or_a_model_that_answered_is_not_replaced() {
    let (result, _, _) = ask(
        quotes(false, true),
        vec![ScriptedTurn::text("Gregory is a poet.")],
        "Who is Gregory?",
    );
    assert_eq!(result.unwrap().quoted, None);
    let (aborted, _, _) = ask(
        quotes(false, true),
        vec![ScriptedTurn::error(Error::Aborted)],
        "Who is Gregory?",
    );
    assert_eq!(aborted.unwrap_err().error, Error::Aborted);
}

#[test]
fn outside_a_book_the_quotes_provider_has_nothing_to_quote() {
    let h = TestAgent::builder(vec![]).config(quotes(true, true)).build();
    let error = h.send("Who is Gregory?").unwrap_err().error;
    assert!(
        matches!(&error, Error::Config { message } if message.contains("no book")),
        "{error:?}"
    );
}
