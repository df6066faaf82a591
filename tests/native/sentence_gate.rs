//! The gate on every generated sentence (issue 46): the system message
//! numbers its passages and asks for a citation after each sentence; each
//! sentence of the answer is checked against the passages it cites, and an
//! answer with one unsupported sentence is not grounded. A quoted answer's
//! sentences are its quotes, each citing its passage.

use lectern::agent::{AgentConfig, QuoteAnswers, RetrievalStrategy};
use lectern::domain::{Role, SourceVia};
use lectern::provider::scripted::ScriptedTurn;

use crate::support::harness::books::{book_agent, thursday_pages};

fn always_retrieve() -> AgentConfig {
    AgentConfig {
        retrieval: RetrievalStrategy::AlwaysRetrieve,
        reader_pages: 1,
        ..AgentConfig::default()
    }
}

#[test]
fn each_sentence_is_checked_against_the_passage_it_cites() {
    let answer = "Gregory took Syme to a secret meeting under a tavern [2]. \
                  There Gregory was crowned Emperor of Byzantium [2].";
    let (builder, book_id) = book_agent(
        always_retrieve(),
        thursday_pages(),
        2,
        vec![ScriptedTurn::text(answer)],
    );
    let h = builder.book(&book_id).build();
    let result = h.send("Where did Gregory take Syme in the garden?").unwrap();
    let system = h.model.requests()[0].system.clone().unwrap_or_default();
    assert!(
        system.contains("[1] [Pages 1-1]") && system.contains("[2] [Pages 2-2]"),
        "{system}"
    );
    assert!(system.contains("cite its passage's number"), "{system}");
    let vias: Vec<(u32, SourceVia)> = result.sources.iter().map(|s| (s.start_page, s.via)).collect();
    assert_eq!(vias, [(1, SourceVia::AlwaysRetrieve), (2, SourceVia::ReaderPage)]);
    let check = result.source_check.clone().expect("checked");
    let sentences: Vec<(Vec<u32>, bool)> = check
        .sentences
        .iter()
        .map(|s| (s.passages.clone(), s.supported))
        .collect();
    assert_eq!(sentences, [(vec![1], true), (vec![1], false)], "{check:?}");
    assert!(check.sentences[1].text.starts_with("There Gregory was crowned"));
    assert!(!check.grounded, "one invented sentence marks the answer");
    let stored = h
        .messages()
        .into_iter()
        .rfind(|m| m.role == Role::Assistant)
        .unwrap();
    assert_eq!(stored.source_check, result.source_check, "stored with the answer");
}

#[test]
fn a_quoted_answers_sentences_are_its_quotes() {
    let config = AgentConfig {
        quotes: QuoteAnswers {
            always: true,
            fallback: true,
        },
        ..always_retrieve()
    };
    let (builder, book_id) = book_agent(config, thursday_pages(), 2, vec![]);
    let h = builder.book(&book_id).build();
    let result = h.send("Where did Gregory take Syme?").unwrap();
    let check = result.source_check.expect("checked");
    assert!(check.grounded && !check.sentences.is_empty());
    for sentence in &check.sentences {
        assert!(sentence.supported && sentence.passages.len() == 1, "{sentence:?}");
        let source = &result.sources[sentence.passages[0] as usize];
        let quoted = sentence.text.split('“').nth(1).unwrap().trim_end_matches('”');
        assert!(source.text.contains(quoted), "{quoted:?} in its passage");
    }
}

#[test]
fn an_answer_with_no_supported_sentence_carries_the_quoted_answer() {
    let invented = "Gregory was crowned Emperor of Byzantium [1]. Sunday sold bicycles in Vienna.";
    let (builder, book_id) = book_agent(
        always_retrieve(),
        thursday_pages(),
        2,
        vec![ScriptedTurn::text(invented)],
    );
    let h = builder.book(&book_id).build();
    let check = h
        .send("Where did Gregory take Syme?")
        .unwrap()
        .source_check
        .expect("checked");
    assert!(check.sentences.iter().all(|s| !s.supported), "{check:?}");
    let quotes = check.quoted_answer.expect("the book's words beside it");
    assert!(
        quotes.contains("“Gregory took Syme to a secret meeting under a tavern.”"),
        "{quotes}"
    );

    let (builder, book_id) = book_agent(
        always_retrieve(),
        thursday_pages(),
        2,
        vec![ScriptedTurn::text(
            "Gregory took Syme to a secret meeting [2]. He was crowned Emperor of Byzantium.",
        )],
    );
    let h = builder.book(&book_id).build();
    let check = h
        .send("Where did Gregory take Syme?")
        .unwrap()
        .source_check
        .unwrap();
    assert!(
        !check.grounded && check.quoted_answer.is_none(),
        "one supported sentence: the answer stands, marked"
    );
}

#[test]
fn without_citations_the_passages_are_not_numbered_and_every_sentence_is_still_checked() {
    let config = AgentConfig {
        cite_passages: false,
        ..always_retrieve()
    };
    let answer = "Gregory took Syme to a secret meeting. He was crowned Emperor of Byzantium.";
    let (builder, book_id) = book_agent(config, thursday_pages(), 2, vec![ScriptedTurn::text(answer)]);
    let h = builder.book(&book_id).build();
    let check = h
        .send("Where did Gregory take Syme?")
        .unwrap()
        .source_check
        .unwrap();
    let system = h.model.requests()[0].system.clone().unwrap_or_default();
    assert!(
        system.contains("\n[Pages 1-1]") && !system.contains("[1] [Pages"),
        "{system}"
    );
    assert!(!system.contains("cite its passage's number"), "{system}");
    let supported: Vec<bool> = check.sentences.iter().map(|s| s.supported).collect();
    assert_eq!(supported, [true, false]);
}
