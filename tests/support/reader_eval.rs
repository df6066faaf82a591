//! The reader-question evaluation of issue 31: the questions of
//! `tests/fixtures/thursday-reader-questions.json`, each asked at a reader's
//! page, and how often the context Lectern puts in front of the model
//! (`Library::reader_context`, formatted as the system message carries it)
//! holds every reference fact — its **evidence recall** — against the
//! context's size in tokens, for each way of choosing passages. Shared by the
//! native test and the native benchmark.
#![allow(dead_code)]

use std::rc::Rc;

use futures::executor::block_on;
use lectern::domain::estimate_tokens;
use lectern::domain::{Source, SourceVia};
use lectern::retrieval::embed::Embedder;
use lectern::retrieval::library::search_mode::SearchMode;
use lectern::retrieval::library::{BookSource, Library, NewBook};
use lectern::retrieval::reader::context::{format_sources, ReaderContextPlan};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::MemoryStore;
use regex::{Regex, RegexBuilder};
use serde::Deserialize;

/// The target: this share of the questions…
pub const TARGET_RECALL: f64 = 0.8;
/// …with at most this many tokens of context.
pub const TARGET_TOKENS: usize = 1500;

/// One reader question.
#[derive(Debug, Clone, Deserialize)]
pub struct ReaderQuestion {
    /// A short name.
    pub id: String,
    /// The reader's page when asking.
    pub page: u32,
    /// The question.
    pub question: String,
    /// Regexes a right answer must match (case-insensitive, whitespace collapsed).
    pub facts: Vec<String>,
    /// The page that reveals the deeper answer, for questions asked before it.
    #[serde(rename = "revealPage")]
    pub reveal_page: Option<u32>,
    /// Regexes of the reveal: they must match nothing the reader is given.
    pub spoilers: Vec<String>,
}

#[derive(Deserialize)]
struct QuestionFile {
    questions: Vec<ReaderQuestion>,
}

/// The question set.
pub fn questions() -> Vec<ReaderQuestion> {
    question_file("thursday-reader-questions.json")
}

/// The held-out question set: written after the quoted answerer's first
/// version and kept out of all tuning, so a gain that does not generalise shows.
pub fn held_out_questions() -> Vec<ReaderQuestion> {
    question_file("thursday-reader-questions-heldout.json")
}

/// The questions of `tests/fixtures/<name>`.
fn question_file(name: &str) -> Vec<ReaderQuestion> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("a reader question set");
    serde_json::from_str::<QuestionFile>(&text)
        .expect("valid questions")
        .questions
}

/// A fact or spoiler pattern, case-insensitive.
pub fn pattern(source: &str) -> Regex {
    RegexBuilder::new(source)
        .case_insensitive(true)
        .build()
        .expect("a valid regex")
}

/// `text` with every run of whitespace one space, as the patterns are matched.
pub fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The Thursday fixture in a library of its own, chunked as `chunking` says.
pub fn library(text: &str, embedder: Option<Rc<dyn Embedder>>, chunking: ChunkSettings) -> (Library, String) {
    let library = Library::with_embedder(
        Rc::new(MemoryStore::new()),
        embedder,
        Rc::new(ManualClock::new(1.0e12)),
        chunking,
    );
    let new = NewBook {
        title: "The Man Who Was Thursday".into(),
        author: Some("G. K. Chesterton".into()),
        source: BookSource::Text(text.to_owned()),
    };
    let book = block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("ingests");
    (library, book.id)
}

/// What one way of choosing passages gave over the question set.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The strategy's name.
    pub name: String,
    /// Questions whose context held every fact.
    pub answered: usize,
    /// Questions asked.
    pub asked: usize,
    /// Mean estimated tokens of the context.
    pub mean_tokens: f64,
    /// The largest context.
    pub max_tokens: usize,
    /// Contexts holding a spoiler pattern, or a passage past the reader's page.
    pub leaks: usize,
    /// The questions missed, by id.
    pub missed: Vec<String>,
}

impl Outcome {
    /// The share of questions whose context held every fact.
    pub fn recall(&self) -> f64 {
        self.answered as f64 / self.asked.max(1) as f64
    }
}

/// The context of one question: the sources, and their text as the model reads it.
pub fn context(
    library: &Library,
    book_id: &str,
    question: &ReaderQuestion,
    plan: &ReaderContextPlan,
) -> Vec<Source> {
    block_on(library.set_current_page(book_id, question.page)).expect("sets the page");
    block_on(library.reader_context(book_id, &question.question, plan, &CancelToken::new()))
        .expect("a context")
}

/// Evidence recall of `plan` over `questions`.
pub fn evaluate(
    name: &str,
    library: &Library,
    book_id: &str,
    plan: &ReaderContextPlan,
    questions: &[ReaderQuestion],
) -> Outcome {
    let mut outcome = Outcome {
        name: name.to_owned(),
        answered: 0,
        asked: questions.len(),
        mean_tokens: 0.0,
        max_tokens: 0,
        leaks: 0,
        missed: Vec::new(),
    };
    let mut total_tokens = 0;
    for question in questions {
        let sources = context(library, book_id, question, plan);
        let text = format_sources(&sources);
        let tokens = estimate_tokens(&text);
        total_tokens += tokens;
        outcome.max_tokens = outcome.max_tokens.max(tokens);
        let seen = collapsed(&text);
        if question.facts.iter().all(|f| pattern(f).is_match(&seen)) {
            outcome.answered += 1;
        } else {
            outcome.missed.push(question.id.clone());
        }
        let past_page = sources.iter().any(|s| s.end_page > question.page);
        if past_page || question.spoilers.iter().any(|s| pattern(s).is_match(&seen)) {
            outcome.leaks += 1;
        }
    }
    outcome.mean_tokens = total_tokens as f64 / questions.len().max(1) as f64;
    outcome
}

/// A plan: `reader_pages` of the reader's, `passages` found in `mode`, the query rewritten or not.
pub fn plan(
    reader_pages: u32,
    passages: usize,
    mode: SearchMode,
    rewrite_query: bool,
    max_tokens: Option<usize>,
) -> ReaderContextPlan {
    ReaderContextPlan {
        reader_pages,
        passages,
        introductions: 0,
        passage_chars: None,
        mode: Some(mode),
        rewrite_query,
        max_tokens,
        via: SourceVia::AlwaysRetrieve,
    }
}

/// What the reading site gives its in-browser model (`www/site/provider.js`):
/// `alwaysRetrieve` with `readerPages: 0`, `passages: 3`, `maxContextTokens: 300`.
pub fn local_model_plan(mode: SearchMode) -> ReaderContextPlan {
    ReaderContextPlan {
        passage_chars: Some(400),
        introductions: 2,
        ..plan(0, 3, mode, true, Some(300))
    }
}

/// The strategies measured on a library searched in `mode` (lexical, or hybrid with MiniLM).
pub fn strategies(mode: SearchMode) -> Vec<(String, ReaderContextPlan)> {
    let m = mode.name();
    let budget = Some(TARGET_TOKENS);
    vec![
        (
            format!("{m} top 5, the question as asked (the old alwaysRetrieve)"),
            plan(0, 5, mode, false, None),
        ),
        (
            format!("{m} top 5, query rewritten"),
            plan(0, 5, mode, true, None),
        ),
        (
            format!("{m} top 10, query rewritten"),
            plan(0, 10, mode, true, None),
        ),
        ("the reader's page alone".to_owned(), plan(1, 0, mode, true, None)),
        (
            "the reader's page and the one before".to_owned(),
            plan(2, 0, mode, true, None),
        ),
        (
            format!("reader's page + {m} top 5 rewritten, ≤ 1,500"),
            plan(1, 5, mode, true, budget),
        ),
        (
            format!("reader's 2 pages + {m} top 5 rewritten, ≤ 1,500"),
            plan(2, 5, mode, true, budget),
        ),
        (
            format!("reader's 2 pages + {m} top 5 question as asked, ≤ 1,500"),
            plan(2, 5, mode, false, budget),
        ),
        (
            format!("reader's 2 pages + {m} top 3 rewritten, ≤ 1,000"),
            plan(2, 3, mode, true, Some(1000)),
        ),
        (
            format!("reader's 2 pages + names' first passages + {m} top 5 rewritten, ≤ 1,500"),
            ReaderContextPlan {
                introductions: 2,
                ..plan(2, 5, mode, true, budget)
            },
        ),
        (
            format!("reader's 2 pages + {m} top 8 rewritten, ≤ 2,500"),
            plan(2, 8, mode, true, Some(2500)),
        ),
        (
            format!("reader's 2 pages + {m} top 10 rewritten, each cut to 400 chars, ≤ 1,500"),
            ReaderContextPlan {
                passage_chars: Some(400),
                ..plan(2, 10, mode, true, budget)
            },
        ),
        (
            format!("reader's 2 pages + {m} top 10 rewritten, each cut to 300 chars, ≤ 1,500"),
            ReaderContextPlan {
                passage_chars: Some(300),
                ..plan(2, 10, mode, true, budget)
            },
        ),
        (
            format!("reader's 2 pages + names' first + {m} top 10 rewritten, cut to 400, ≤ 1,500"),
            ReaderContextPlan {
                passage_chars: Some(400),
                introductions: 2,
                ..plan(2, 10, mode, true, budget)
            },
        ),
        (
            format!("reader's 2 pages + {m} top 10 rewritten, cut to 400, ≤ 1,000"),
            ReaderContextPlan {
                passage_chars: Some(400),
                ..plan(2, 10, mode, true, Some(1000))
            },
        ),
        // Small budgets, for a model that reads prompts slowly.
        (
            "the end of the reader's page, ≤ 300".to_owned(),
            plan(1, 0, mode, true, Some(300)),
        ),
        (
            format!("names' first + {m} top 3, cut to 300, ≤ 300"),
            ReaderContextPlan {
                passage_chars: Some(300),
                introductions: 1,
                ..plan(0, 3, mode, true, Some(300))
            },
        ),
        (
            format!("names' first + {m} top 5, cut to 300, ≤ 500"),
            ReaderContextPlan {
                passage_chars: Some(300),
                introductions: 1,
                ..plan(0, 5, mode, true, Some(500))
            },
        ),
        (
            format!("the reader's page + {m} top 5, cut to 300, ≤ 800"),
            ReaderContextPlan {
                passage_chars: Some(300),
                introductions: 1,
                ..plan(1, 5, mode, true, Some(800))
            },
        ),
        (
            format!("the site's local model: names' first + {m} top 3, cut to 400, ≤ 300"),
            local_model_plan(mode),
        ),
    ]
}

/// One table row.
pub fn row(outcome: &Outcome) -> String {
    format!(
        "| {} | {}/{} ({:.0}%) | {:.0} | {} | {} |",
        outcome.name,
        outcome.answered,
        outcome.asked,
        outcome.recall() * 100.0,
        outcome.mean_tokens,
        outcome.max_tokens,
        outcome.leaks
    )
}

/// The table's head.
pub fn head() -> [&'static str; 2] {
    [
        "| strategy | evidence recall | context tokens (mean) | (max) | past the page |",
        "| --- | --- | --- | --- | --- |",
    ]
}
