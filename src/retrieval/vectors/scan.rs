//! Exact top-k over the first `count` vectors of a set (a page bound is a
//! prefix of the chunks), with no per-vector filter: a plain f32 scan, and
//! an int8 first pass whose best `k × rerank` are re-ranked exactly in f32.

use crate::retrieval::vectors::quantized::dot_i8;
use crate::retrieval::vectors::topk::TopK;
use crate::retrieval::vectors::vector::{dot, Hit, VectorSet};

/// Candidates per wanted hit that the int8 pass hands to the f32 re-rank.
pub const RERANK_FACTOR: usize = 4;

/// The `k` vectors among the first `count` of `set` most similar to `query`
/// (of `set`'s dimension), best first, ties by index.
pub fn scan_top_k(set: &VectorSet, query: &[f32], k: usize, count: usize) -> Vec<Hit> {
    let count = count.min(set.len());
    if k == 0 || count == 0 {
        return Vec::new();
    }
    let dims = set.dims();
    let mut top = TopK::new(k);
    for (index, row) in set.as_flat()[..count * dims].chunks_exact(dims).enumerate() {
        top.offer(index, dot(row, query));
    }
    top.into_sorted()
}

/// Like [`scan_top_k`], but the scan reads the int8 copy (a quarter of the
/// memory) and keeps the best `k × rerank` candidates, whose exact f32
/// scores then choose the `k`. The hits and their scores are exact unless
/// one of the true top `k` ranked below every candidate in int8.
pub fn quantized_top_k(set: &VectorSet, query: &[f32], k: usize, count: usize, rerank: usize) -> Vec<Hit> {
    let count = count.min(set.len());
    if k == 0 || count == 0 {
        return Vec::new();
    }
    let quantized = set.quantized();
    let stride = quantized.stride();
    let query8 = quantized.quantize_query(query);
    let mut top = TopK::new(k.saturating_mul(rerank.max(1)));
    let rows = quantized.as_flat()[..count * stride].chunks_exact(stride);
    for ((index, row), scale) in rows.enumerate().zip(quantized.scales()) {
        // The query's own scale is left out: it scales every score alike.
        top.offer(index, dot_i8(row, &query8) as f32 * scale);
    }
    let mut hits: Vec<Hit> = top
        .into_sorted()
        .into_iter()
        .map(|candidate| Hit {
            index: candidate.index,
            score: dot(set.get(candidate.index), query),
        })
        .collect();
    hits.sort();
    hits.truncate(k);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::vectors::test_vectors::random_set;
    use crate::retrieval::vectors::vector::exact_top_k;

    #[test]
    fn the_prefix_scan_equals_the_filtered_scan() {
        for dims in [384, 100, 7] {
            let set = random_set(3000, dims, 7 + dims as u64);
            let queries = random_set(20, dims, 99);
            for q in 0..queries.len() {
                let query = queries.get(q);
                for count in [0, 1, 9, 10, 11, 777, 3000, 5000] {
                    for k in [1, 10, 100] {
                        let filtered = exact_top_k(&set, query, k, |i| i < count);
                        assert_eq!(
                            scan_top_k(&set, query, k, count),
                            filtered,
                            "{dims}-d, count {count}, k {k}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn quantized_with_re_rank_equals_exact_for_most_queries() {
        for dims in [384, 100, 23] {
            let set = random_set(4000, dims, 3 + dims as u64);
            let queries = random_set(100, dims, 5);
            let same = (0..queries.len())
                .filter(|&q| {
                    let query = queries.get(q);
                    let exact = scan_top_k(&set, query, 10, 4000);
                    quantized_top_k(&set, query, 10, 4000, RERANK_FACTOR) == exact
                })
                .count();
            assert!(same >= 95, "{dims}-d: {same} of 100 queries exact");
        }
    }

    #[test]
    fn more_wanted_than_there_are_and_empty_sets() {
        let set = random_set(30, 20, 1);
        let query = random_set(1, 20, 2);
        let query = query.get(0);
        let all = exact_top_k(&set, query, 100, |i| i < 12);
        assert_eq!(all.len(), 12);
        assert_eq!(scan_top_k(&set, query, 100, 12), all);
        assert_eq!(quantized_top_k(&set, query, 100, 12, RERANK_FACTOR), all);
        assert!(scan_top_k(&set, query, 0, 30).is_empty());
        assert!(quantized_top_k(&set, query, 0, 30, RERANK_FACTOR).is_empty());
        let empty = VectorSet::new(20);
        assert!(scan_top_k(&empty, query, 10, 10).is_empty());
        assert!(quantized_top_k(&empty, query, 10, 10, RERANK_FACTOR).is_empty());
        assert!(quantized_top_k(&VectorSet::default(), &[], 10, 10, RERANK_FACTOR).is_empty());
    }
}
