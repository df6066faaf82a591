//! Evidence recall on reader questions (issue 31): the context Lectern puts
//! in front of the model for a book conversation holds every reference fact
//! of at least 80% of the questions within 1,500 tokens, with no passage past
//! the reader's page and no spoiler. The default plan ranks with BM25 whatever
//! the embedder (it measured best), so no model is needed here; the hybrid
//! rows are in `npm run bench` (`benches/reader_evidence.rs`). Prints the
//! table of every lexical strategy measured. Skips without `../shared`.

use crate::support::reader_eval;
use crate::support::shared_fixtures;

use lectern::retrieval::library::search_mode::SearchMode;
use lectern::retrieval::reader::context::ReaderContextPlan;
use lectern::retrieval::text::chunk::ChunkSettings;
use reader_eval::{evaluate, head, library, pattern, questions, row, strategies};

#[test]
fn the_question_set_is_half_before_the_reveal_and_well_formed() {
    let questions = questions();
    assert!(questions.len() >= 24, "{} questions", questions.len());
    let before = questions.iter().filter(|q| q.reveal_page.is_some()).count();
    assert!(
        before >= 12 && questions.len() - before >= 12,
        "{before} asked before the reveal"
    );
    for q in &questions {
        assert!((1..=3).contains(&q.facts.len()), "{}: 1-3 facts", q.id);
        q.facts.iter().chain(&q.spoilers).for_each(|p| drop(pattern(p)));
        if let Some(reveal) = q.reveal_page {
            assert!(
                q.page < reveal && !q.spoilers.is_empty(),
                "{}: asked before its reveal",
                q.id
            );
        }
    }
    let mut ids: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), questions.len(), "ids are unique");
}

#[test]
fn the_default_context_holds_the_evidence_lexically() {
    let Some(text) = shared_fixtures::thursday() else {
        return;
    };
    let questions = questions();
    let (library, book) = library(&text, None, ChunkSettings::default());
    println!("{}\n{}", head()[0], head()[1]);
    for (name, plan) in strategies(SearchMode::Lexical) {
        println!("{}", row(&evaluate(&name, &library, &book, &plan, &questions)));
    }
    let default = evaluate(
        "default",
        &library,
        &book,
        &ReaderContextPlan::default(),
        &questions,
    );
    println!("{}\nmissed: {:?}", row(&default), default.missed);
    assert_eq!(default.leaks, 0, "nothing past the reader's page");
    assert!(default.max_tokens <= reader_eval::TARGET_TOKENS, "{default:?}");
    assert!(default.recall() >= reader_eval::TARGET_RECALL, "{default:?}");
}
