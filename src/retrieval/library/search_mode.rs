//! How a search ranks passages: BM25 alone, vectors alone, or both fused by
//! weighted reciprocal rank (RRF), each under the page bound with a full top-k.

use crate::json::from_json::FromJson;
use crate::retrieval::library::loaded_book::{search_book_lexical, search_book_vectors, LoadedBook};
use crate::retrieval::vectors::vector::Hit;

/// `search(query, { mode })`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub enum SearchMode {
    /// BM25 over the chunks' words: every eligible chunk holding a query
    /// term, up to `k`; `score` is the BM25 score (> 0, higher is better).
    Lexical,
    /// The embedder's vectors: `score` is the cosine similarity (-1..=1).
    Semantic,
    /// Both lists fused by weighted reciprocal rank: `score` is
    /// Σ weight / ([`RRF_K`] + rank) over the lists the chunk is in (rank
    /// from 1; the vector list's weight 1, BM25's [`LEXICAL_WEIGHT`]).
    Hybrid,
}

impl SearchMode {
    /// Its name, as the option spells it.
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Lexical => "lexical",
            SearchMode::Semantic => "semantic",
            SearchMode::Hybrid => "hybrid",
        }
    }
}

/// The constant of reciprocal-rank fusion. Cormack et al. (2009) use 60 for
/// long lists of similar systems; here the top ranks must count: measured on
/// the Thursday question set (`tests/native/lexical_eval.rs`), equal-weight
/// fusion with 60 answered 6 of 15 paraphrases where MiniLM alone answered
/// 10, as BM25's noise on questions sharing no rare word with their passage
/// pushed MiniLM's hits out of the top 5. Every k from 2 to 15 with a BM25
/// weight from 0.15 to 0.25 (from 2 to 8 up to 0.45) answered 15/15 named and
/// 10/15 paraphrased questions, on each half of the set alike: 5 and 0.3 sit
/// inside that plateau, not on its edge.
pub const RRF_K: f32 = 5.0;

/// The weight of the BM25 list in hybrid fusion (the vector list's is 1):
/// a passage first for BM25 but 12th for the vectors still reaches the top 5
/// (0.3/6 + 1/17 > 1/10), one 16th does not.
pub const LEXICAL_WEIGHT: f32 = 0.3;

/// Candidates taken from each list before fusing a top `k`.
pub fn candidates(k: usize) -> usize {
    (4 * k).max(50)
}

/// Fuses ranked lists (each best first, indexes unique within a list, with
/// its weight) into the top `k` by weighted reciprocal rank, best first
/// (ties by index).
pub fn fuse(lists: &[(&[Hit], f32)], k: usize) -> Vec<Hit> {
    let size = lists
        .iter()
        .flat_map(|(l, _)| l.iter())
        .map(|h| h.index + 1)
        .max()
        .unwrap_or(0);
    let mut scores = vec![0f32; size];
    for (list, weight) in lists {
        for (rank, hit) in list.iter().enumerate() {
            scores[hit.index] += weight / (RRF_K + rank as f32 + 1.0);
        }
    }
    let mut fused: Vec<Hit> = scores
        .into_iter()
        .enumerate()
        .filter(|&(_, score)| score > 0.0)
        .map(|(index, score)| Hit { index, score })
        .collect();
    fused.sort();
    fused.truncate(k);
    fused
}

/// The top `k` of one book in `mode` under `max_page`; `vector` is the
/// query's (needed by `semantic` and `hybrid`, of the book's dimension).
pub fn search_book(
    loaded: &LoadedBook,
    query: &str,
    vector: Option<&[f32]>,
    mode: SearchMode,
    k: usize,
    max_page: Option<u32>,
) -> Vec<Hit> {
    match (mode, vector) {
        (SearchMode::Semantic, Some(vector)) => search_book_vectors(loaded, vector, k, max_page),
        (SearchMode::Hybrid, Some(vector)) => {
            let many = candidates(k);
            let lexical = search_book_lexical(loaded, query, many, max_page);
            let semantic = search_book_vectors(loaded, vector, many, max_page);
            fuse(&[(&lexical, LEXICAL_WEIGHT), (&semantic, 1.0)], k)
        }
        _ => search_book_lexical(loaded, query, k, max_page),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(indexes: &[usize]) -> Vec<Hit> {
        indexes.iter().map(|&index| Hit { index, score: 0.0 }).collect()
    }

    fn order(fused: &[Hit]) -> Vec<usize> {
        fused.iter().map(|h| h.index).collect()
    }

    #[test]
    fn a_chunk_high_in_both_lists_beats_one_first_in_only_one() {
        let (lexical, semantic) = (hits(&[7, 3, 1]), hits(&[5, 3, 7]));
        let fused = fuse(&[(&lexical, 1.0), (&semantic, 1.0)], 10);
        // 7: 1/6 + 1/8; 3: 2/7; 5: 1/6; 1: 1/8.
        assert_eq!(order(&fused), [7, 3, 5, 1]);
        assert!((fused[0].score - (1.0 / 6.0 + 1.0 / 8.0)).abs() < 1e-7);
        assert_eq!(order(&fuse(&[(&lexical, 1.0), (&semantic, 1.0)], 2)), [7, 3]);
    }

    #[test]
    fn the_lighter_list_reorders_only_what_the_heavier_leaves_close() {
        let semantic = hits(&[
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
        ]);
        // BM25's first is the vectors' 12th: it reaches the top 5; their 16th does not.
        let top = fuse(&[(&hits(&[12]), LEXICAL_WEIGHT), (&semantic, 1.0)], 5);
        assert!(order(&top).contains(&12), "{:?}", order(&top));
        let top = fuse(&[(&hits(&[16]), LEXICAL_WEIGHT), (&semantic, 1.0)], 5);
        assert!(!order(&top).contains(&16), "{:?}", order(&top));
        // … but BM25's order alone does not overturn the vectors' first two.
        let top = fuse(&[(&hits(&[9, 8, 7]), LEXICAL_WEIGHT), (&semantic, 1.0)], 5);
        assert_eq!(order(&top)[..2], [1, 2]);
    }

    #[test]
    fn equal_ranks_tie_by_position_and_one_list_keeps_its_order() {
        assert_eq!(
            order(&fuse(&[(&hits(&[4, 2]), 1.0), (&hits(&[2, 4]), 1.0)], 5)),
            [2, 4]
        );
        assert_eq!(
            order(&fuse(&[(&hits(&[9, 1, 5]), 1.0), (&[], 1.0)], 5)),
            [9, 1, 5]
        );
        assert!(fuse(&[(&[], 1.0), (&[], 1.0)], 5).is_empty());
    }

    #[test]
    fn enough_candidates_for_a_full_top_k() {
        assert_eq!(candidates(1), 50);
        assert_eq!(candidates(100), 400);
    }
}
