//! How well each sentence answers the question: BM25 of the question's
//! content words over the sentences, the names asked about, the answer
//! kind's cue and nearness to the reader's page.

use super::candidates::{stem, Sentence};
use super::cues::{cue, AnswerKind};
use crate::retrieval::lexical::bm25::{B, K1};
use crate::retrieval::lexical::tokenize::terms;
use crate::retrieval::reader::context::question_names;
use crate::retrieval::reader::query::{is_stop_term, reader_query};

/// How the parts of a sentence's score are weighed (measured on the reader
/// questions: `tests/native/quoted_answers.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Each name of the question a sentence holds.
    pub name: f32,
    /// A sentence reading as the kind of answer asked for.
    pub cue: f32,
    /// A sentence on the reader's page (falling off over `near_pages`).
    pub near: f32,
    /// Pages over which nearness falls to 1/e.
    pub near_pages: f32,
    /// What a word an earlier quote covers counts in a later one.
    pub covered: f32,
    /// A later quote scores at least this share of the first.
    pub follow: f32,
    /// The sentence's similarity of meaning to the question, where a caller
    /// gives it (`quoted_answer_with`). MiniLM's cosine, weighed 4 to 32,
    /// found fewer facts on the tuning set and one more on the held-out set
    /// (`quoted_answers::meaning_grid`), so it weighs nothing by default and
    /// the page does not embed sentences.
    pub meaning: f32,
}

/// Measured on the 32 tuning questions (42 of 86 facts; a grid over these
/// weights, `quoted_answers::grid`): the reader's own pages count most (an
/// answer is asked about what was just read), names count through BM25 alone
/// (a bonus of their own found less), and the answer kind's cue helps. Adding
/// the neighbouring sentences' BM25 found nothing more, so it is not scored.
impl Default for Weights {
    fn default() -> Self {
        Weights {
            name: 0.0,
            cue: 1.5,
            near: 8.0,
            near_pages: 4.0,
            covered: 0.3,
            follow: 0.35,
            meaning: 0.0,
        }
    }
}

/// The question, read for scoring.
pub struct Scorer {
    /// The stems of its content words, each with its inverse document frequency over the sentences.
    query: Vec<(String, f32)>,
    /// The names it asks about, lower-case.
    names: Vec<String>,
    /// The kind of answer it wants.
    kind: AnswerKind,
    /// The reader's page.
    reader_page: u32,
    /// How the parts weigh.
    pub weights: Weights,
    /// The sentences' mean length in terms.
    mean_length: f32,
}

impl Scorer {
    /// The scorer of `question` over `sentences`, read at `reader_page`.
    pub fn new(question: &str, sentences: &[Sentence<'_>], reader_page: u32, weights: Weights) -> Scorer {
        let mut stems: Vec<String> = terms(&reader_query(question))
            .iter()
            .filter(|t| !is_stop_term(t))
            .map(|t| stem(t))
            .collect();
        stems.sort_unstable();
        stems.dedup();
        let count = sentences.len() as f32;
        let query = stems
            .into_iter()
            .map(|s| {
                let df = sentences.iter().filter(|x| x.stems.contains(&s)).count() as f32;
                let idf = (1.0 + (count - df + 0.5) / (df + 0.5)).ln();
                (s, idf)
            })
            .collect();
        let total: usize = sentences.iter().map(|s| s.stems.len()).sum();
        Scorer {
            query,
            names: question_names(question),
            kind: AnswerKind::of(&terms(question)),
            reader_page,
            weights,
            mean_length: (total as f32 / count.max(1.0)).max(1.0),
        }
    }

    /// BM25 of `sentence` for the query stems, each weighted by `weight(stem)`.
    pub fn bm25(&self, sentence: &Sentence<'_>, weight: impl Fn(&str) -> f32) -> f32 {
        let length = sentence.stems.len() as f32;
        let norm = K1 * (1.0 - B + B * length / self.mean_length);
        self.query
            .iter()
            .map(|(stem, idf)| {
                let tf = sentence.stems.iter().filter(|s| *s == stem).count() as f32;
                weight(stem) * idf * tf * (K1 + 1.0) / (tf + norm)
            })
            .sum()
    }

    /// What a sentence scores besides BM25: names, the answer's cue (when
    /// it bears on the question at all) and nearness.
    pub fn bonus(&self, sentence: &Sentence<'_>, relevant: bool) -> f32 {
        let names = self.names.iter().filter(|n| sentence.terms.contains(n)).count() as f32;
        let cue = if relevant || names > 0.0 {
            cue(self.kind, sentence, &self.names)
        } else {
            0.0
        };
        let distance = self.reader_page.saturating_sub(sentence.end_page) as f32;
        let w = &self.weights;
        w.name * names + w.cue * cue + w.near * (-distance / w.near_pages).exp()
    }

    /// Each sentence's whole score, in order.
    pub fn score_all(&self, sentences: &[Sentence<'_>]) -> Vec<f32> {
        sentences
            .iter()
            .map(|s| {
                let bm25 = self.bm25(s, |_| 1.0);
                bm25 + self.bonus(s, bm25 > 0.0)
            })
            .collect()
    }
}
