//! A quoted answer: the one to three sentences of the passages in front of
//! the reader that best answer a question, quoted in book order, each with
//! its page. Every word is the book's (whitespace aside), so it cannot
//! invent; it answers a book question with no model at all (the `quotes`
//! provider), and stands in for a model that fails.
//!
//! Sentences are scored by measurement (`tests/native/quoted_answers.rs`):
//! BM25 of the rewritten question's terms over the passages' sentences, the
//! names asked about, a cue of the answer's kind ("why" → *because*, "who" →
//! a sentence describing the name), and nearness to the reader's page; then
//! chosen greedily for the terms they add.

mod candidates;
mod cues;
mod score;
mod select;

use serde::Serialize;

use crate::domain::Source;
use crate::json::from_json::FromJson;
use candidates::candidates;
use score::Scorer;

pub use cues::AnswerKind;
pub use score::Weights;

/// The most words a quoted answer holds (its first sentence may be longer, up to [`MAX_SENTENCE_WORDS`]).
pub const MAX_WORDS: usize = 80;

/// The most sentences a quoted answer holds.
pub const MAX_QUOTES: usize = 3;

/// Sentences longer than this are never quoted.
pub const MAX_SENTENCE_WORDS: usize = 120;

/// One quoted sentence.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    /// The first page of the passage it is from.
    pub start_page: u32,
    /// The last page of that passage.
    pub end_page: u32,
    /// The sentence as the book has it, its runs of whitespace made single spaces.
    pub text: String,
    /// The passage it is from: an index into the sources it was chosen from.
    pub passage: usize,
}

impl Quote {
    /// `p. 31` or `pp. 30–31`.
    pub fn page_label(&self) -> String {
        if self.start_page == self.end_page {
            format!("p. {}", self.start_page)
        } else {
            format!("pp. {}–{}", self.start_page, self.end_page)
        }
    }

    /// `p. 31: “…”`.
    pub fn line(&self) -> String {
        format!("{}: “{}”", self.page_label(), self.text)
    }
}

/// What the quoted answerer chose for a question.
#[derive(Debug, Clone, PartialEq, Default, Serialize, FromJson)]
pub struct QuotedAnswer {
    /// The quotes, in book order.
    pub quotes: Vec<Quote>,
    /// The answer as the reader reads it: one quote a paragraph ([`Quote::line`]),
    /// or, when no sentence bears on the question, a line saying so.
    pub text: String,
}

impl QuotedAnswer {
    /// The answer of `quotes` (in book order) at `reader_page`.
    pub fn new(quotes: Vec<Quote>, reader_page: u32) -> Self {
        let text = if quotes.is_empty() {
            format!("No passage up to page {reader_page} bears on this question.")
        } else {
            quotes.iter().map(Quote::line).collect::<Vec<_>>().join("\n\n")
        };
        QuotedAnswer { quotes, text }
    }
}

/// The quoted answer to `question` from `sources` (the passages the
/// context plan chose, none past `reader_page`).
pub fn quoted_answer(question: &str, sources: &[Source], reader_page: u32) -> QuotedAnswer {
    quoted_answer_weighed(question, sources, reader_page, Weights::default())
}

/// [`quoted_answer`] with other [`Weights`] (for measuring them).
pub fn quoted_answer_weighed(
    question: &str,
    sources: &[Source],
    reader_page: u32,
    weights: Weights,
) -> QuotedAnswer {
    quoted_answer_with(question, sources, reader_page, weights, None)
}

/// The sentences a quoted answer chooses among, in order: what a caller
/// embeds for [`quoted_answer_with`]'s `meaning`.
pub fn quote_candidates(sources: &[Source]) -> Vec<&str> {
    candidates(sources).into_iter().map(|s| s.text).collect()
}

/// [`quoted_answer_weighed`] with, for each of [`quote_candidates`], its
/// similarity of meaning to the question (the cosine of their embeddings),
/// where the book has vectors.
pub fn quoted_answer_with(
    question: &str,
    sources: &[Source],
    reader_page: u32,
    weights: Weights,
    meaning: Option<&[f32]>,
) -> QuotedAnswer {
    let sentences = candidates(sources);
    let scorer = Scorer::new(question, &sentences, reader_page, weights);
    let meaning: Vec<f32> = match meaning.filter(|m| m.len() == sentences.len()) {
        Some(similarities) => similarities.iter().map(|s| weights.meaning * s).collect(),
        None => vec![0.0; sentences.len()],
    };
    let scored: Vec<f32> = scorer
        .score_all(&sentences)
        .iter()
        .zip(&meaning)
        .map(|(s, m)| s + m)
        .collect();
    let chosen = select::choose(&sentences, &scored, &meaning, &scorer);
    let mut quotes: Vec<(usize, Quote)> = chosen
        .into_iter()
        .map(|i| {
            let s = &sentences[i];
            let source = &sources[s.passage];
            let quote = Quote {
                start_page: source.start_page,
                end_page: source.end_page,
                text: collapse_whitespace(s.text),
                passage: s.passage,
            };
            (i, quote)
        })
        .collect();
    quotes.sort_by_key(|(i, q)| (q.start_page, q.end_page, *i));
    QuotedAnswer::new(quotes.into_iter().map(|(_, q)| q).collect(), reader_page)
}

/// `answer` with each quote from a passage of several pages put on the one
/// of `pages` (numbers and texts) that holds it, and its text written again:
/// `p. 31` rather than `pp. 30–31`. A quote no single page holds (it runs
/// over a page break) keeps its passage's pages.
pub fn place_quotes(answer: QuotedAnswer, pages: &[(u32, String)], reader_page: u32) -> QuotedAnswer {
    let quotes = answer
        .quotes
        .into_iter()
        .map(|mut quote| {
            let holder = pages.iter().find(|(number, text)| {
                (quote.start_page..=quote.end_page).contains(number)
                    && collapse_whitespace(text).contains(&quote.text)
            });
            if let Some(&(number, _)) = holder {
                quote.start_page = number;
                quote.end_page = number;
            }
            quote
        })
        .collect();
    QuotedAnswer::new(quotes, reader_page)
}

/// `text` with each run of whitespace one space.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
