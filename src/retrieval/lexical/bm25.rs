//! BM25 over a [`LexicalIndex`] under a page bound. The statistics (chunk
//! count, average length, each term's document frequency) are those of the
//! eligible chunks alone, so a search bounded at a page ranks exactly as it
//! would in the book cut there: no later chapter leaks into the results, nor
//! into their order through the weights of the terms.

use super::index::LexicalIndex;
use super::tokenize::terms;
use crate::retrieval::vectors::vector::Hit;

/// Term-frequency saturation (the usual 1.2).
pub const K1: f32 = 1.2;
/// Length normalisation (the usual 0.75).
pub const B: f32 = 0.75;

/// Which chunks may be returned: the first `count` (a page bound over
/// chunks in page order), or those a predicate lets through.
pub enum Eligible<'a> {
    /// Chunks `0..count`.
    Prefix(usize),
    /// Chunks for which this is true.
    Filter(&'a dyn Fn(usize) -> bool),
}

impl Eligible<'_> {
    fn admits(&self, chunk: usize) -> bool {
        match self {
            Eligible::Prefix(count) => chunk < *count,
            Eligible::Filter(f) => f(chunk),
        }
    }
}

/// The `k` eligible chunks with the highest BM25 score for `query`, best
/// first (ties by position): every eligible chunk that holds a query term,
/// up to `k`. Scores are BM25 sums (Lucene's non-negative IDF), > 0.
pub fn search(index: &LexicalIndex, query: &str, k: usize, eligible: Eligible) -> Vec<Hit> {
    // Each distinct term with how often the query has it, in query order.
    let mut query_terms: Vec<(String, u32)> = Vec::new();
    for term in terms(query) {
        match query_terms.iter_mut().find(|(t, _)| *t == term) {
            Some((_, times)) => *times += 1,
            None => query_terms.push((term, 1)),
        }
    }
    let (n, total_len) = statistics(index, &eligible);
    if k == 0 || n == 0 || query_terms.is_empty() {
        return Vec::new();
    }
    let avg_len = (total_len as f32 / n as f32).max(1.0);
    let mut scores = vec![0f32; index.len()];
    for (term, times) in &query_terms {
        let Some(postings) = index.postings(term) else {
            continue;
        };
        let end = match eligible {
            Eligible::Prefix(count) => postings.partition_point(|p| (p.chunk as usize) < count),
            Eligible::Filter(_) => postings.len(),
        };
        let hits: Vec<_> = postings[..end]
            .iter()
            .filter(|p| eligible.admits(p.chunk as usize))
            .collect();
        let df = hits.len() as f32;
        let idf = (1.0 + (n as f32 - df + 0.5) / (df + 0.5)).ln();
        let times = *times as f32;
        for p in hits {
            let tf = p.count as f32;
            let norm = 1.0 - B + B * index.length(p.chunk as usize) as f32 / avg_len;
            scores[p.chunk as usize] += times * idf * tf * (K1 + 1.0) / (tf + K1 * norm);
        }
    }
    let mut hits: Vec<Hit> = scores
        .into_iter()
        .enumerate()
        .filter(|&(_, score)| score > 0.0)
        .map(|(index, score)| Hit { index, score })
        .collect();
    hits.sort();
    hits.truncate(k);
    hits
}

/// The number of eligible chunks and their total length.
fn statistics(index: &LexicalIndex, eligible: &Eligible) -> (usize, u64) {
    let admitted = (0..index.len()).filter(|&i| eligible.admits(i));
    admitted.fold((0, 0), |(n, len), i| (n + 1, len + u64::from(index.length(i))))
}
