//! The best `k` hits of a scan, kept in a buffer of at most `2k` with a
//! score threshold: a hit below the threshold costs one comparison, and the
//! buffer is cut back to `k` only when it fills.

use crate::retrieval::vectors::vector::Hit;

/// The best `k` hits offered so far. Offer hits in ascending index order:
/// the threshold then decides ties exactly as [`Hit`]'s order does (a later
/// hit with the score of the `k`-th is worse). NaN scores never enter.
#[derive(Debug, Clone)]
pub struct TopK {
    k: usize,
    hits: Vec<Hit>,
    threshold: f32,
}

impl TopK {
    /// An empty selection of the best `k`.
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            hits: Vec::with_capacity(2 * k),
            threshold: f32::NEG_INFINITY,
        }
    }

    /// Scores at or below this cannot enter (once `k` hits are known).
    #[inline(always)]
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// Offers a hit; cheap when `score` does not beat the threshold.
    #[inline(always)]
    pub fn offer(&mut self, index: usize, score: f32) {
        if score > self.threshold || (self.hits.len() < self.k && score == f32::NEG_INFINITY) {
            self.push(Hit { index, score });
        }
    }

    fn push(&mut self, hit: Hit) {
        if self.k == 0 {
            return;
        }
        self.hits.push(hit);
        if self.hits.len() == 2 * self.k {
            self.cut();
        }
    }

    /// Keeps the best `k` and raises the threshold to the worst of them.
    /// (A full sort: it is rare, and the one `sort` of `Hit`s in the build
    /// costs no code size, where a selection would.)
    fn cut(&mut self) {
        self.hits.sort();
        self.hits.truncate(self.k);
        self.threshold = self.hits[self.k - 1].score;
    }

    /// The best `k` (fewer if fewer were offered), best first, ties by index.
    pub fn into_sorted(mut self) -> Vec<Hit> {
        self.hits.sort();
        self.hits.truncate(self.k);
        self.hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(scores: &[f32], k: usize) -> Vec<Hit> {
        let mut top = TopK::new(k);
        for (index, &score) in scores.iter().enumerate() {
            top.offer(index, score);
        }
        top.into_sorted()
    }

    #[test]
    fn keeps_the_best_k_best_first_ties_by_index() {
        let scores: Vec<f32> = (0..1000).map(|i| ((i * 7919) % 101) as f32 / 100.0).collect();
        let mut expected: Vec<Hit> = scores
            .iter()
            .enumerate()
            .map(|(index, &score)| Hit { index, score })
            .collect();
        expected.sort();
        for k in [1, 3, 10, 64, 999, 1000, 1500] {
            assert_eq!(best(&scores, k), expected[..k.min(1000)], "k = {k}");
        }
    }

    #[test]
    fn zero_k_empty_and_infinite_scores() {
        assert!(best(&[0.5, 0.2], 0).is_empty());
        assert!(best(&[], 5).is_empty());
        let hits = best(&[f32::NEG_INFINITY, 0.1, f32::NAN], 5);
        assert_eq!(hits.iter().map(|h| h.index).collect::<Vec<_>>(), [1, 0]);
    }
}
