//! Evidence recall on reader questions natively: `cargo bench --bench reader_evidence`.
//! For each way of choosing the passages in front of the model, the share of
//! the 32 questions of `tests/fixtures/thursday-reader-questions.json` whose
//! context holds every reference fact, and the context's size in tokens:
//! lexically, and hybrid with MiniLM (`LECTERN_MINILM_DIR`). Needs `../shared/fixtures`.

#[path = "../tests/support/mod.rs"]
mod support;

use support::bench::figures;
use support::shared_fixtures;

use lectern::retrieval::library::search_mode::SearchMode;
use lectern::retrieval::reader::context::ReaderContextPlan;
use lectern::retrieval::text::chunk::ChunkSettings;
use support::minilm_env::minilm_from_env;
use support::reader_eval::{evaluate, head, library, questions, row, strategies};

fn main() {
    let Some(text) = shared_fixtures::thursday() else {
        println!("SKIPPED: evidence recall needs ../shared/fixtures");
        return;
    };
    let questions = questions();
    println!(
        "Evidence recall: {} reader questions on the Thursday fixture",
        questions.len()
    );
    let table = |line: &str| println!("TABLE reader_evidence {line}");
    table(head()[0]);
    table(head()[1]);
    let (lexical, book) = library(&text, None, ChunkSettings::default());
    for (name, plan) in strategies(SearchMode::Lexical) {
        table(&row(&evaluate(&name, &lexical, &book, &plan, &questions)));
    }
    let default = evaluate(
        "**the default (Lectern 0.1)**",
        &lexical,
        &book,
        &ReaderContextPlan::default(),
        &questions,
    );
    table(&row(&default));
    let old = &strategies(SearchMode::Lexical)[0].1;
    let baseline = evaluate("old", &lexical, &book, old, &questions);
    for (id, value) in [
        ("reader_recall_default", default.recall()),
        ("reader_tokens_default", default.mean_tokens),
        ("reader_recall_old", baseline.recall()),
        ("reader_tokens_old", baseline.mean_tokens),
    ] {
        println!("{}", figures::figure(id, "native", value));
    }
    let Some(minilm) = minilm_from_env() else {
        println!("SKIPPED: the hybrid rows need LECTERN_MINILM_DIR");
        return;
    };
    let (hybrid, book) = library(&text, Some(minilm), ChunkSettings::default());
    for (name, plan) in strategies(SearchMode::Hybrid) {
        table(&row(&evaluate(&name, &hybrid, &book, &plan, &questions)));
    }
    let hybrid_default = ReaderContextPlan {
        mode: Some(SearchMode::Hybrid),
        ..ReaderContextPlan::default()
    };
    let outcome = evaluate(
        "the default plan, hybrid",
        &hybrid,
        &book,
        &hybrid_default,
        &questions,
    );
    table(&row(&outcome));
    println!(
        "{}",
        figures::figure("reader_recall_hybrid", "native", outcome.recall())
    );
}
