//! Retrieval quality on the Thursday fixture (issue 13): chapter-in-top-5
//! hit rates of hashed vectors and BM25 on the fixed question set, printed
//! as a table, with their target asserted. MiniLM and hybrid are
//! `npm run bench`'s (`benches/retrieval_quality.rs`), which fails on a
//! missed target. Skips without the fixture (`../shared`).

use crate::support::lexical_eval;
use crate::support::shared_fixtures;

#[test]
fn the_question_set_is_half_named_half_paraphrased_over_every_chapter() {
    let questions = lexical_eval::questions();
    assert!(questions.len() >= 24);
    let named = questions.iter().filter(|q| q.kind == "named").count();
    assert_eq!(named * 2, questions.len(), "half named");
    assert!(questions
        .iter()
        .all(|q| q.kind == "named" || q.kind == "paraphrased"));
    assert!((1..=15).all(|c| questions.iter().any(|q| q.chapter == c)));
    assert_eq!(
        lexical_eval::chapter_number("CHAPTER XIV THE SIX PHILOSOPHERS"),
        Some(14)
    );
    assert_eq!(
        lexical_eval::chapter_number("CHAPTER IX THE MAN IN SPECTACLES"),
        Some(9)
    );
}

/// The lexical rows (hashed vectors and BM25) and their target: BM25 at
/// least as good as hashed on named questions. The MiniLM and hybrid rows
/// embed the whole book (minutes natively), so `npm run bench`
/// (`benches/retrieval_quality.rs`) measures them and fails on a missed
/// target; `lexical_eval::missed_targets` is the one check of both.
#[test]
fn lexical_hit_rates_on_the_thursday_questions() {
    let Some(text) = shared_fixtures::thursday() else {
        return;
    };
    let evaluation = lexical_eval::evaluate(&text, None);
    for line in lexical_eval::table(&evaluation) {
        println!("{line}");
    }
    let missed = lexical_eval::missed_targets(&evaluation);
    assert!(missed.is_empty(), "{missed:?}");
}

/// The check fails when it should: BM25 below hashed, and hybrid below MiniLM.
#[test]
fn missed_targets_name_each_miss() {
    let rates = |named, paraphrased| lexical_eval::Rates { named, paraphrased };
    let evaluation = lexical_eval::Evaluation {
        hashed: rates(0.8, 0.3),
        bm25: rates(0.7, 0.2),
        minilm: Some(rates(0.6, 0.6)),
        hybrid: Some(rates(0.7, 0.5)),
    };
    let missed = lexical_eval::missed_targets(&evaluation);
    assert_eq!(missed.len(), 2, "{missed:?}");
    assert!(missed[0].starts_with("BM25") && missed[1].starts_with("hybrid"));
    let held = lexical_eval::Evaluation {
        bm25: rates(0.8, 0.2),
        hybrid: Some(rates(0.8, 0.6)),
        ..evaluation
    };
    assert!(lexical_eval::missed_targets(&held).is_empty());
}
