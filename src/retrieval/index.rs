//! The approximate nearest-neighbour index of a book: HNSW (`instant-distance`)
//! over unit vectors, with a snapshot that a reload reads instead of rebuilding.

use instant_distance::{Builder, HnswMap, Point, Search};
use serde::{Deserialize, Serialize};

use super::vector::{dot, Hit, VectorSet};
use crate::error::{Error, Result};

/// A unit vector as an HNSW point; distance is `1 - cosine`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitVector(pub Vec<f32>);

impl Point for UnitVector {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - dot(&self.0, &other.0)
    }
}

/// How the index is built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexSettings {
    /// Candidate list size while building (quality vs build time).
    pub ef_construction: usize,
    /// Candidates examined per query; the most results one query can give.
    pub ef_search: usize,
    /// Seed of the level generator (fixed: the same vectors give the same index).
    pub seed: u64,
}

impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            ef_construction: 40,
            ef_search: 100,
            seed: 0x1ec7e4,
        }
    }
}

/// An HNSW index whose values are positions in the book's vector set.
pub struct VectorIndex {
    map: HnswMap<UnitVector, u32>,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex").finish_non_exhaustive()
    }
}

impl VectorIndex {
    /// Builds the index over every vector of `set`.
    pub fn build(set: &VectorSet, settings: IndexSettings) -> Self {
        let points: Vec<UnitVector> = (0..set.len()).map(|i| UnitVector(set.get(i).to_vec())).collect();
        let values: Vec<u32> = (0..set.len() as u32).collect();
        let map = Builder::default()
            .ef_construction(settings.ef_construction)
            .ef_search(settings.ef_search)
            .seed(settings.seed)
            .build(points, values);
        VectorIndex { map }
    }

    /// The snapshot bytes to persist.
    pub fn to_snapshot(&self) -> Result<Vec<u8>> {
        postcard::to_allocvec(&self.map)
            .map_err(|e| Error::storage(format!("cannot write the index snapshot: {e}")))
    }

    /// An index read back from its snapshot.
    pub fn from_snapshot(bytes: &[u8]) -> Result<Self> {
        let map = postcard::from_bytes(bytes)
            .map_err(|e| Error::storage(format!("the index snapshot is unreadable: {e}")))?;
        Ok(VectorIndex { map })
    }

    /// The best `k` hits among those `eligible` lets through, if the index's
    /// candidates hold at least `k` of them; `None` tells the caller to search exactly.
    pub fn search(&self, query: &[f32], k: usize, eligible: impl Fn(usize) -> bool) -> Option<Vec<Hit>> {
        let mut search = Search::default();
        let query = UnitVector(query.to_vec());
        let hits: Vec<Hit> = self
            .map
            .search(&query, &mut search)
            .map(|item| Hit {
                index: *item.value as usize,
                score: 1.0 - item.distance,
            })
            .filter(|hit| eligible(hit.index))
            .take(k)
            .collect();
        (hits.len() == k).then_some(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::vector::{exact_top_k, normalize};

    fn random_set(n: usize, dims: usize, seed: u64) -> VectorSet {
        let mut state = seed;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 2000) as f32 / 1000.0 - 1.0
        };
        let mut set = VectorSet::new(dims);
        for _ in 0..n {
            let mut v: Vec<f32> = (0..dims).map(|_| next()).collect();
            normalize(&mut v);
            set.push(&v);
        }
        set
    }

    #[test]
    fn agrees_with_exact_search_and_survives_a_snapshot() {
        let set = random_set(2000, 32, 7);
        let index = VectorIndex::build(&set, IndexSettings::default());
        let restored = VectorIndex::from_snapshot(&index.to_snapshot().unwrap()).unwrap();
        let queries = random_set(50, 32, 99);
        let mut found = 0;
        for q in 0..queries.len() {
            let query = queries.get(q);
            let exact: Vec<usize> = exact_top_k(&set, query, 10, |_| true)
                .iter()
                .map(|h| h.index)
                .collect();
            let approx = index.search(query, 10, |_| true).unwrap();
            let again = restored.search(query, 10, |_| true).unwrap();
            assert_eq!(approx, again, "the snapshot answers like the original");
            found += approx.iter().filter(|h| exact.contains(&h.index)).count();
        }
        let recall = found as f64 / 500.0;
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn too_few_eligible_candidates_asks_for_exact_search() {
        let set = random_set(500, 16, 3);
        let index = VectorIndex::build(&set, IndexSettings::default());
        assert!(index.search(set.get(0), 5, |i| i == 499).is_none());
        assert_eq!(index.search(set.get(0), 1, |_| true).unwrap()[0].index, 0);
    }
}
