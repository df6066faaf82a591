//! Which sentences the answer quotes: the best, then those that add what
//! it lacks (the question's words it has not covered), within the word limit.

use super::candidates::Sentence;
use super::score::Scorer;
use super::{MAX_QUOTES, MAX_WORDS};

/// The indices of the chosen `sentences` (best first), given their `scores`
/// and what each scores besides the scorer's parts (`meaning`, or zeros).
pub fn choose(sentences: &[Sentence<'_>], scores: &[f32], meaning: &[f32], scorer: &Scorer) -> Vec<usize> {
    // A sentence sharing no word with the question answers nothing, however near.
    let first = (0..sentences.len())
        .filter(|&i| scorer.bm25(&sentences[i], |_| 1.0) > 0.0)
        .reduce(|a, b| if scores[b] > scores[a] { b } else { a });
    let Some(first) = first else {
        return Vec::new();
    };
    let mut chosen = vec![first];
    let mut words = sentences[first].words;
    while chosen.len() < MAX_QUOTES {
        let covered: Vec<&str> = chosen
            .iter()
            .flat_map(|&i| sentences[i].stems.iter().map(String::as_str))
            .collect();
        let weight = |stem: &str| {
            if covered.contains(&stem) {
                scorer.weights.covered
            } else {
                1.0
            }
        };
        let next = (0..sentences.len())
            .filter(|i| !chosen.contains(i) && words + sentences[*i].words <= MAX_WORDS)
            .map(|i| {
                let bm25 = scorer.bm25(&sentences[i], weight);
                (i, bm25 + scorer.bonus(&sentences[i], bm25 > 0.0) + meaning[i])
            })
            .filter(|&(_, score)| score >= scorer.weights.follow * scores[first])
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((i, _)) = next else { break };
        words += sentences[i].words;
        chosen.push(i);
    }
    chosen
}
