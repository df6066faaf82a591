//! The approximate nearest-neighbour index of a book: an HNSW graph built by
//! `instant-distance` over int8 handles into the quantised copy the book's
//! [`VectorSet`] keeps of its unit vectors (the one exact search scans too), kept in Lectern's own layout ([`HnswGraph`]) and
//! snapshot format ([`crate::retrieval::index::snapshot`]), which hold the graph and the ids
//! but not the vectors: those live once, in the book's [`VectorSet`].
//!
//! A query walks the graph comparing int8 vectors (a quarter of the bytes to
//! fetch: the walk is bound by memory latency) and re-ranks the candidates
//! it keeps by their exact `f32` score.

pub mod builder;
pub mod built_graph;
pub mod hnsw;
pub mod settings;
pub mod snapshot;

use std::cell::RefCell;

use crate::error::Result;
use crate::retrieval::index::built_graph::{build_hnsw, graph_of};
use crate::retrieval::index::hnsw::{HnswGraph, Scratch};
use crate::retrieval::index::settings::IndexSettings;
use crate::retrieval::vectors::quantized::{dot_rows, quantize_into};
use crate::retrieval::vectors::vector::{dot, Hit, VectorSet};

/// An index with its snapshot bytes (what is stored).
pub type BuiltIndex = (VectorIndex, Vec<u8>);

/// The HNSW index of `vectors` and its snapshot, if there are enough vectors
/// for one ([`IndexSettings::min_vectors`]).
pub fn build_index(vectors: &VectorSet, settings: IndexSettings) -> Option<BuiltIndex> {
    (vectors.len() >= settings.min_vectors).then(|| {
        let index = VectorIndex::build(vectors, settings);
        let snapshot = index.to_snapshot();
        (index, snapshot)
    })
}

/// An HNSW index over the positions of a book's vector set.
#[derive(Debug)]
pub struct VectorIndex {
    graph: HnswGraph,
    ef_search: usize,
    scratch: RefCell<(Scratch, Vec<i8>)>,
}

impl Clone for VectorIndex {
    fn clone(&self) -> Self {
        VectorIndex::new(self.graph.clone(), self.ef_search)
    }
}

/// Equal graphs and settings (the scratch is not part of the index).
impl PartialEq for VectorIndex {
    fn eq(&self, other: &Self) -> bool {
        self.graph == other.graph && self.ef_search == other.ef_search
    }
}

impl VectorIndex {
    fn new(graph: HnswGraph, ef_search: usize) -> Self {
        VectorIndex {
            graph,
            ef_search,
            scratch: RefCell::new((Scratch::default(), Vec::new())),
        }
    }

    /// Builds the index over every vector of `set`.
    pub fn build(set: &VectorSet, settings: IndexSettings) -> Self {
        let graph = graph_of(
            &build_hnsw(set.quantized(), settings),
            settings.zero_links,
            settings.upper_links,
        );
        VectorIndex::new(graph, settings.ef_search)
    }

    /// Searches with `ef` candidates from now on.
    pub fn set_ef_search(&mut self, ef: usize) {
        self.ef_search = ef;
    }

    /// The graph.
    pub fn graph(&self) -> &HnswGraph {
        &self.graph
    }

    /// The bytes it holds beyond the vectors and their int8 copy: graph and scratch.
    pub fn bytes(&self) -> usize {
        let scratch = self.scratch.borrow();
        self.graph.bytes() + scratch.0.bytes() + scratch.1.capacity()
    }

    /// The snapshot bytes to persist (Lectern's format: graph and ids, no vectors).
    pub fn to_snapshot(&self) -> Vec<u8> {
        snapshot::encode(&self.graph, self.ef_search)
    }

    /// An index read back from its snapshot, for a set of `vector_count`
    /// vectors; an error for bytes of another format or version, corrupt
    /// bytes, or a snapshot of another set (the caller rebuilds).
    pub fn from_snapshot(bytes: &[u8], vector_count: usize) -> Result<Self> {
        let (graph, ef_search) = snapshot::decode(bytes, vector_count)?;
        Ok(VectorIndex::new(graph, ef_search))
    }

    /// The best `k` hits in `vectors` (the set the index was built over)
    /// among those `eligible` lets through, best first: the graph's
    /// `max(ef_search, k)` nearest eligible candidates re-ranked by their
    /// exact score. `None` tells the caller to search exactly: the graph
    /// did not reach `k` eligible candidates within distances to half the
    /// set (a page bound few chunks pass).
    pub fn search(
        &self,
        vectors: &VectorSet,
        query: &[f32],
        k: usize,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<Vec<Hit>> {
        let quantised = vectors.quantized();
        if quantised.len() != vectors.len() || self.graph.len() != vectors.len() {
            return None;
        }
        let mut fresh = (Scratch::default(), Vec::new());
        let mut borrowed = self.scratch.try_borrow_mut();
        let (scratch, codes) = match borrowed.as_mut() {
            Ok(state) => &mut **state,
            Err(_) => &mut fresh,
        };
        codes.resize(quantised.stride(), 0);
        let scale = quantize_into(query, codes);
        let query_codes = (&codes[..], scale);
        let budget = (vectors.len() / 2).max(64 * self.ef_search.max(k));
        let found = self.graph.search(
            scratch,
            |position| 1.0 - dot_rows(query_codes, quantised.row(position as usize)),
            (self.ef_search.max(k), budget),
            |position| eligible(position as usize),
        );
        if scratch.exhausted || found.len() < k {
            return None;
        }
        let mut hits: Vec<Hit> = found
            .into_iter()
            .map(|(index, _)| Hit {
                index,
                score: dot(vectors.get(index), query),
            })
            .collect();
        hits.sort();
        hits.truncate(k);
        Some(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::vectors::test_vectors::random_set;
    use crate::retrieval::vectors::vector::exact_top_k;

    fn recall(
        index: &VectorIndex,
        set: &VectorSet,
        queries: &VectorSet,
        eligible: impl Fn(usize) -> bool + Copy,
    ) -> f64 {
        let mut found = 0;
        for q in 0..queries.len() {
            let query = queries.get(q);
            let exact = exact_top_k(set, query, 10, eligible);
            let approx = index.search(set, query, 10, eligible).expect("enough candidates");
            assert_eq!(approx.len(), 10);
            for (i, hit) in approx.iter().enumerate() {
                assert!(eligible(hit.index), "only eligible hits");
                assert_eq!(hit.score, dot(set.get(hit.index), query), "exact scores");
                assert!(i == 0 || approx[i - 1] <= *hit, "best first");
            }
            found += approx.iter().filter(|h| exact.contains(h)).count();
        }
        found as f64 / (10 * queries.len()) as f64
    }

    #[test]
    fn agrees_with_exact_search_and_survives_a_snapshot() {
        let set = random_set(2000, 32, 7);
        let index = VectorIndex::build(&set, IndexSettings::default());
        let restored = VectorIndex::from_snapshot(&index.to_snapshot(), set.len()).unwrap();
        assert_eq!(restored, index);
        let queries = random_set(50, 32, 99);
        for q in 0..queries.len() {
            let approx = index.search(&set, queries.get(q), 10, |_| true);
            let again = restored.search(&set, queries.get(q), 10, |_| true);
            assert_eq!(approx, again, "the snapshot answers like the original");
        }
        let recall = recall(&index, &set, &queries, |_| true);
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn a_reused_scratch_answers_like_a_fresh_one() {
        let set = random_set(3000, 32, 21);
        let index = VectorIndex::build(&set, IndexSettings::default());
        let queries = random_set(40, 32, 8);
        let eligible = |i: usize| i % 3 != 0;
        for q in 0..queries.len() {
            let reused = index.search(&set, queries.get(q), 10, eligible);
            let fresh = index.clone().search(&set, queries.get(q), 10, eligible);
            assert!(reused.is_some());
            assert_eq!(reused, fresh, "query {q}");
        }
    }

    #[test]
    fn a_page_bounded_search_returns_a_full_correct_top_k() {
        let set = random_set(4000, 32, 5);
        let index = VectorIndex::build(&set, IndexSettings::default());
        let queries = random_set(40, 32, 77);
        for share in [2, 5, 10] {
            let bound = set.len() / share;
            let recall = recall(&index, &set, &queries, |i| i < bound);
            assert!(recall >= 0.9, "1/{share} eligible: recall@10 {recall}");
        }
    }

    #[test]
    fn too_few_eligible_candidates_asks_for_exact_search() {
        let set = random_set(500, 16, 3);
        let index = VectorIndex::build(&set, IndexSettings::default());
        assert!(index.search(&set, set.get(0), 5, |i| i == 499).is_none());
        assert_eq!(index.search(&set, set.get(0), 1, |_| true).unwrap()[0].index, 0);
    }

    #[test]
    fn an_empty_set_builds_an_empty_index() {
        let set = VectorSet::new(8);
        let index = VectorIndex::build(&set, IndexSettings::default());
        let restored = VectorIndex::from_snapshot(&index.to_snapshot(), 0).unwrap();
        assert!(restored.search(&set, &[0.0; 8], 1, |_| true).is_none());
    }
}
