//! Sources on every answer (issue 31): a book conversation's completed turn
//! carries the passages its answer was given — the reader's pages, what
//! `alwaysRetrieve` found, what `search_book` returned — on the result, the
//! `finish` event and the stored answer (so a reload shows them), with the
//! answer checked against them: an answer that invents is not `grounded`.

use std::rc::Rc;

use futures::executor::block_on;
use lectern::agent::{AgentConfig, RetrievalStrategy, TurnResult};
use lectern::domain::{Role, Source, SourceVia};
use lectern::events::EventKind;
use lectern::provider::scripted::ScriptedTurn;

use crate::support::harness::books::{book_agent, thursday_pages};

/// One turn of `question` in a conversation bound to the three-page book,
/// the reader on page 2: the result, the `finish` event's sources, the stored answer's.
fn book_turn(
    config: AgentConfig,
    turns: Vec<ScriptedTurn>,
    question: &str,
) -> (TurnResult, Vec<Source>, lectern::domain::Message) {
    let (builder, book_id) = book_agent(config, thursday_pages(), 2, turns);
    let h = builder.book(&book_id).build();
    let result = h.send(question).unwrap();
    let finished = h
        .events()
        .into_iter()
        .filter_map(|e| match e {
            EventKind::Finish { sources, .. } => Some(sources),
            _ => None,
        })
        .flatten()
        .collect();
    let answer = h
        .messages()
        .into_iter()
        .rfind(|m| m.role == Role::Assistant)
        .unwrap();
    (result, finished, answer)
}

fn strategy(retrieval: RetrievalStrategy) -> AgentConfig {
    AgentConfig {
        retrieval,
        ..AgentConfig::default()
    }
}

fn vias(sources: &[Source]) -> Vec<(u32, u32, SourceVia)> {
    sources
        .iter()
        .map(|s| (s.start_page, s.end_page, s.via))
        .collect()
}

#[test]
fn an_answer_carries_its_passages_on_the_result_the_event_and_the_stored_message() {
    let turns = vec![ScriptedTurn::text(
        "Gregory is a poet; he took Syme to a secret meeting under a tavern.",
    )];
    let (result, finished, answer) = book_turn(
        strategy(RetrievalStrategy::AlwaysRetrieve),
        turns,
        "Who is Gregory?",
    );
    // Pages 1 and 2 are the reader's: every passage of the book up to the page is in them.
    assert_eq!(vias(&result.sources), [(1, 2, SourceVia::ReaderPage)]);
    let text = &result.sources[0].text;
    assert!(
        text.contains("poet Gregory") && text.contains("under a tavern"),
        "{text}"
    );
    assert!(!text.contains("policeman"), "never past the reader's page");
    assert_eq!(finished, result.sources, "the finish event");
    assert_eq!(answer.sources, result.sources, "stored with the answer");
    let check = result.source_check.clone().expect("a check");
    assert!(check.grounded, "{check:?}");
    assert_eq!(answer.source_check, result.source_check);
}

#[test]
fn search_book_results_are_sources_with_their_text() {
    let turns = vec![
        ScriptedTurn::tools(&[("search_book", r#"{"query":"Gregory poet"}"#)]),
        ScriptedTurn::text("A poet who met Syme in Saffron Park."),
    ];
    let config = AgentConfig {
        reader_pages: 0,
        ..AgentConfig::default()
    };
    let (result, _, _) = book_turn(config, turns, "Who is Gregory?");
    assert!(!result.sources.is_empty());
    assert!(result
        .sources
        .iter()
        .all(|s| s.via == SourceVia::SearchBook && s.end_page <= 2));
    assert!(
        result.sources.iter().any(|s| s.text.contains("Saffron Park")),
        "{:?}",
        result.sources
    );
    assert!(result.source_check.unwrap().grounded);
}

#[test]
fn a_search_result_within_the_readers_pages_is_not_listed_twice() {
    let turns = vec![
        ScriptedTurn::tools(&[("search_book", r#"{"query":"Gregory poet"}"#)]),
        ScriptedTurn::text("A poet who met Syme in Saffron Park."),
    ];
    let (result, _, _) = book_turn(strategy(RetrievalStrategy::ToolUse), turns, "Who is Gregory?");
    assert_eq!(result.tool_calls.len(), 1);
    assert_eq!(vias(&result.sources), [(1, 2, SourceVia::ReaderPage)]);
}

#[test]
fn an_invented_answer_is_marked_and_keeps_its_sources() {
    let turns = vec![ScriptedTurn::text(
        "Gregory is a famous mathematician who won the Fields Medal in Stockholm.",
    )];
    let (result, _, answer) = book_turn(strategy(RetrievalStrategy::ToolUse), turns, "Who is Gregory?");
    let check = result.source_check.clone().unwrap();
    assert!(!check.grounded, "{check:?}");
    for word in ["Fields", "Medal", "Stockholm"] {
        assert!(check.unsupported.iter().any(|u| u == word), "{word}: {check:?}");
    }
    assert!(!check.unsupported.iter().any(|u| u == "Gregory"));
    assert_eq!(vias(&result.sources), [(1, 2, SourceVia::ReaderPage)]);
    assert_eq!(answer.source_check, Some(check));
}

#[test]
fn a_conversation_without_a_book_has_no_sources() {
    let (builder, _) = book_agent(
        AgentConfig::default(),
        thursday_pages(),
        2,
        vec![ScriptedTurn::text("Hello.")],
    );
    let result = builder.build().send("Hi").unwrap();
    assert!(result.sources.is_empty() && result.source_check.is_none());
    let json = serde_json::to_value(&result).unwrap();
    assert_eq!(json["sources"], serde_json::json!([]));
    assert!(json.get("sourceCheck").is_none());
}

#[test]
fn a_page_the_book_skips_is_left_out_of_the_readers_pages() {
    use lectern::retrieval::library::{BookSource, Library, NewBook};
    use lectern::retrieval::reader::context::ReaderContextPlan;
    use lectern::retrieval::text::chunk::ChunkSettings;
    use lectern::runtime::cancel::CancelToken;
    use lectern::runtime::time::ManualClock;
    use lectern::storage::MemoryStore;

    let library = Library::without_embedder(
        Rc::new(MemoryStore::new()),
        Rc::new(ManualClock::new(1.0e12)),
        ChunkSettings::default(),
    );
    // Its markers skip page 2: the reader on page 3 asks with two reader's pages.
    let text = "[[page 1]] Syme met the poet Gregory. [[page 3]] Gregory took Syme to a tavern.";
    let new = NewBook {
        title: "Thursday".into(),
        author: None,
        source: BookSource::Text(text.into()),
    };
    let book = block_on(library.add_book(new, &|_| {}, &CancelToken::new())).unwrap();
    block_on(library.set_current_page(&book.id, 3)).unwrap();
    let plan = ReaderContextPlan::default();
    let sources =
        block_on(library.reader_context(&book.id, "Who is Gregory?", &plan, &CancelToken::new())).unwrap();
    let reader: Vec<_> = sources
        .iter()
        .filter(|s| s.via == SourceVia::ReaderPage)
        .collect();
    assert_eq!(reader.len(), 1, "{sources:?}");
    assert_eq!((reader[0].start_page, reader[0].end_page), (3, 3));
    assert!(reader[0].text.contains("tavern"));
    // Page 1's passage comes as a found one (it introduces Gregory).
    assert!(
        sources.iter().any(|s| s.text.contains("poet Gregory")),
        "{sources:?}"
    );
}

/// A `search_book` result cut at `maxToolResultChars` lists as sources only
/// what the model read of it, never the passages past the cut.
#[test]
fn sources_are_what_the_model_read_of_a_capped_search_result() {
    let turns = vec![
        ScriptedTurn::tools(&[("search_book", r#"{"query":"Syme Gregory tavern"}"#)]),
        ScriptedTurn::text("Syme met the poet Gregory."),
    ];
    let config = AgentConfig {
        reader_pages: 0,
        max_tool_result_chars: 90,
        ..AgentConfig::default()
    };
    let (builder, book_id) = book_agent(config, thursday_pages(), 2, turns);
    let h = builder.book(&book_id).build();
    let result = h.send("Who is Syme?").unwrap();
    let whole = result.tool_calls[0].result.clone().unwrap();
    assert!(whole.matches("[Pages ").count() >= 2, "{whole}");
    let read = h.model.requests()[1].messages.last().unwrap().content.clone();
    assert!(read.contains("[truncated:"), "{read}");
    assert!(!result.sources.is_empty());
    for source in &result.sources {
        assert!(
            read.contains(&source.text),
            "{:?} is not in what the model read: {read}",
            source.text
        );
    }
}
