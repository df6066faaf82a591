//! How a search ranks passages: BM25 alone, vectors alone, or both fused by
//! reciprocal rank (RRF), each under the page bound with a full top-k.

use serde::Deserialize;

use super::loaded_book::{search_book_lexical, search_book_vectors, LoadedBook};
use super::vector::Hit;

/// `search(query, { mode })`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SearchMode {
    /// BM25 over the chunks' words: every eligible chunk holding a query
    /// term, up to `k`; `score` is the BM25 score (> 0, higher is better).
    Lexical,
    /// The embedder's vectors: `score` is the cosine similarity (-1..=1).
    Semantic,
    /// Both lists fused by reciprocal rank: `score` is
    /// Σ 1 / ([`RRF_K`] + rank) over the lists the chunk is in (rank from 1).
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

/// The constant of reciprocal-rank fusion (Cormack et al., 2009: 60).
pub const RRF_K: f32 = 60.0;

/// Candidates taken from each list before fusing a top `k`.
pub fn candidates(k: usize) -> usize {
    (4 * k).max(50)
}

/// Fuses ranked lists (each best first, indexes unique within a list) into
/// the top `k` by reciprocal rank, best first (ties by index).
pub fn fuse(lists: &[&[Hit]], k: usize) -> Vec<Hit> {
    let size = lists
        .iter()
        .flat_map(|l| l.iter())
        .map(|h| h.index + 1)
        .max()
        .unwrap_or(0);
    let mut scores = vec![0f32; size];
    for list in lists {
        for (rank, hit) in list.iter().enumerate() {
            scores[hit.index] += 1.0 / (RRF_K + rank as f32 + 1.0);
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
            fuse(&[&lexical, &semantic], k)
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
        let lexical = hits(&[7, 3, 1]);
        let semantic = hits(&[5, 3, 7]);
        let fused = fuse(&[&lexical, &semantic], 10);
        // 7: 1/61 + 1/63; 3: 2/62; 5: 1/61; 1: 1/63.
        assert_eq!(order(&fused), [7, 3, 5, 1]);
        let expected = 1.0 / 61.0 + 1.0 / 63.0;
        assert!((fused[0].score - expected).abs() < 1e-7);
        assert_eq!(order(&fuse(&[&lexical, &semantic], 2)), [7, 3]);
    }

    #[test]
    fn equal_ranks_tie_by_position_and_one_list_keeps_its_order() {
        assert_eq!(order(&fuse(&[&hits(&[4, 2]), &hits(&[2, 4])], 5)), [2, 4]);
        assert_eq!(order(&fuse(&[&hits(&[9, 1, 5]), &[]], 5)), [9, 1, 5]);
        assert!(fuse(&[&[], &[]], 5).is_empty());
    }

    #[test]
    fn enough_candidates_for_a_full_top_k() {
        assert_eq!(candidates(1), 50);
        assert_eq!(candidates(100), 400);
    }
}
