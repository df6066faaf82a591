//! The retrieval-quality evaluation of issue 13: the fixed questions of
//! `tests/fixtures/thursday-questions.json` on the Thursday fixture, and
//! how often the chapter that answers each is among the top five passages,
//! for hashed vectors (the old default), BM25, MiniLM and hybrid
//! (BM25 + MiniLM fused by reciprocal rank), on the named and the
//! paraphrased half. Shared by the native test and the native benchmark.
#![allow(dead_code)]

use std::rc::Rc;

use futures::executor::block_on;
use lectern::retrieval::embed::hashed::HashedEmbedder;
use lectern::retrieval::embed::Embedder;
use lectern::retrieval::library::search_mode::SearchMode;
use lectern::retrieval::library::{BookSource, Library, NewBook, SearchOptions};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::MemoryStore;
use serde::Deserialize;

/// Passages per question: a hit is the answering chapter among them.
pub const TOP: usize = 5;

/// One question and the chapter that answers it.
#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    /// `named` or `paraphrased`.
    pub kind: String,
    /// 1..=15.
    pub chapter: u32,
    /// The question.
    pub question: String,
}

#[derive(Deserialize)]
struct QuestionFile {
    questions: Vec<Question>,
}

/// The fixed question set.
pub fn questions() -> Vec<Question> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/thursday-questions.json"
    );
    let text = std::fs::read_to_string(path).expect("the question set");
    serde_json::from_str::<QuestionFile>(&text)
        .expect("valid questions")
        .questions
}

/// Hit rates of one method: named, paraphrased.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// Share of the named questions whose chapter is in the top five.
    pub named: f64,
    /// The same, paraphrased questions.
    pub paraphrased: f64,
}

/// The rates of every method measured (MiniLM and hybrid need the model).
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The hashed embedder, semantic search.
    pub hashed: Rates,
    /// BM25 (no embedder).
    pub bm25: Rates,
    /// MiniLM vectors, semantic search.
    pub minilm: Option<Rates>,
    /// BM25 and MiniLM fused.
    pub hybrid: Option<Rates>,
}

/// The chapter number of a chunk's chapter title (`CHAPTER XIV THE SIX ...`).
pub fn chapter_number(title: &str) -> Option<u32> {
    let roman = title.strip_prefix("CHAPTER ")?.split_whitespace().next()?;
    let value = |c| match c {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        'L' => Some(50),
        _ => None,
    };
    let digits: Vec<u32> = roman.chars().map(value).collect::<Option<_>>()?;
    let mut total = 0;
    for (i, &d) in digits.iter().enumerate() {
        match digits.get(i + 1) {
            Some(&next) if next > d => total -= d as i64,
            _ => total += d as i64,
        }
    }
    u32::try_from(total).ok()
}

/// A library over the book with `embedder` (none: lexical only), default chunks.
pub fn library(text: &str, embedder: Option<Rc<dyn Embedder>>) -> Library {
    let library = Library::with_embedder(
        Rc::new(MemoryStore::new()),
        embedder,
        Rc::new(ManualClock::new(1.0e12)),
        ChunkSettings::default(),
    );
    let new = NewBook {
        title: "The Man Who Was Thursday".into(),
        author: Some("G. K. Chesterton".into()),
        source: BookSource::Text(text.to_owned()),
    };
    block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("ingests");
    library
}

/// The hit rates of `library` searched in `mode`.
pub fn rates(library: &Library, mode: SearchMode, questions: &[Question]) -> Rates {
    let rate = |kind: &str| {
        let asked: Vec<&Question> = questions.iter().filter(|q| q.kind == kind).collect();
        let hits = asked.iter().filter(|q| chapter_in_top(library, mode, q)).count();
        hits as f64 / asked.len().max(1) as f64
    };
    Rates {
        named: rate("named"),
        paraphrased: rate("paraphrased"),
    }
}

fn chapter_in_top(library: &Library, mode: SearchMode, question: &Question) -> bool {
    let options = SearchOptions {
        book_ids: None,
        k: Some(TOP),
        max_page: None,
        mode: Some(mode),
    };
    let results =
        block_on(library.search(&question.question, &options, &CancelToken::new())).expect("searches");
    results
        .iter()
        .any(|r| r.chapter.as_deref().and_then(chapter_number) == Some(question.chapter))
}

/// Every method's rates on `text`; MiniLM and hybrid with `minilm`.
pub fn evaluate(text: &str, minilm: Option<Rc<dyn Embedder>>) -> Evaluation {
    let questions = questions();
    let hashed = library(text, Some(Rc::new(HashedEmbedder::default())));
    let hashed_rates = rates(&hashed, SearchMode::Semantic, &questions);
    let (bm25, minilm_rates, hybrid) = match minilm {
        Some(embedder) => {
            let semantic = library(text, Some(embedder));
            (
                rates(&semantic, SearchMode::Lexical, &questions),
                Some(rates(&semantic, SearchMode::Semantic, &questions)),
                Some(rates(&semantic, SearchMode::Hybrid, &questions)),
            )
        }
        None => (
            rates(&library(text, None), SearchMode::Lexical, &questions),
            None,
            None,
        ),
    };
    Evaluation {
        hashed: hashed_rates,
        bm25,
        minilm: minilm_rates,
        hybrid,
    }
}

/// The targets the evaluation misses, one line each (empty when all
/// hold): BM25 at least as good as hashed on named questions, and with the
/// model, hybrid at least as good as the better of BM25 and MiniLM on each
/// half. BM25 against hashed on paraphrases is printed, not a target (3/15
/// against 4/15: the hashed embedder's trigrams catch word forms whole words miss).
pub fn missed_targets(evaluation: &Evaluation) -> Vec<String> {
    let (hashed, bm25) = (evaluation.hashed, evaluation.bm25);
    let mut missed = Vec::new();
    if bm25.named < hashed.named {
        missed.push(format!(
            "BM25 {bm25:?} below hashed {hashed:?} on named questions"
        ));
    }
    if let (Some(minilm), Some(hybrid)) = (evaluation.minilm, evaluation.hybrid) {
        if hybrid.named < bm25.named.max(minilm.named)
            || hybrid.paraphrased < bm25.paraphrased.max(minilm.paraphrased)
        {
            missed.push(format!(
                "hybrid {hybrid:?} below the better of BM25 {bm25:?} and MiniLM {minilm:?}"
            ));
        }
    }
    missed
}

/// The table, one method a row.
pub fn table(evaluation: &Evaluation) -> Vec<String> {
    let row = |name: &str, rates: Option<Rates>| match rates {
        Some(r) => format!(
            "{name:<22} {:>8.0}%  {:>12.0}%",
            r.named * 100.0,
            r.paraphrased * 100.0
        ),
        None => format!("{name:<22} {:>9}  {:>13}", "-", "- (no model)"),
    };
    vec![
        format!("chapter in top {TOP}        named  paraphrased"),
        row("hashed (old default)", Some(evaluation.hashed)),
        row("BM25 (new default)", Some(evaluation.bm25)),
        row("MiniLM", evaluation.minilm),
        row("hybrid (BM25+MiniLM)", evaluation.hybrid),
    ]
}

/// The `FIGURE` lines of the measured rates.
pub fn figures(evaluation: &Evaluation) -> Vec<String> {
    let mut lines = Vec::new();
    let mut add = |name: &str, rates: Option<Rates>| {
        if let Some(r) = rates {
            lines.push(crate::support::bench::figures::figure(
                &format!("top5_{name}_named"),
                "native",
                r.named,
            ));
            lines.push(crate::support::bench::figures::figure(
                &format!("top5_{name}_paraphrased"),
                "native",
                r.paraphrased,
            ));
        }
    };
    add("hashed", Some(evaluation.hashed));
    add("bm25", Some(evaluation.bm25));
    add("minilm", evaluation.minilm);
    add("hybrid", evaluation.hybrid);
    lines
}

/// The stored lexical index of the book (bytes) and the book's characters.
pub fn lexical_size(text: &str) -> (usize, usize) {
    let library = library(text, None);
    let id = block_on(library.books()).expect("books")[0].id.clone();
    let loaded = block_on(library.load(&id)).expect("loads");
    let bytes = lectern::retrieval::lexical::encode::encode(&loaded.lexical).len();
    (bytes, text.chars().count())
}
