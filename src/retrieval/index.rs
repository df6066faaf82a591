//! The approximate nearest-neighbour index of a book: an HNSW graph built by
//! `instant-distance` over the book's unit vectors, kept in Lectern's own
//! layout ([`HnswGraph`]) and snapshot format ([`super::snapshot`]), which
//! hold the graph and the ids but not the vectors: those live once, in the
//! book's [`VectorSet`].

use instant_distance::{Builder, Hnsw, Point};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::hnsw::{HnswGraph, UPPER_LINKS, ZERO_LINKS};
use super::library::INDEX_MIN_VECTORS;
use super::snapshot;
use super::vector::{dot, Hit, VectorSet};
use crate::error::Result;

/// An index with its snapshot bytes (what is stored).
pub type BuiltIndex = (VectorIndex, Vec<u8>);

/// The HNSW index of `vectors` and its snapshot, if there are enough vectors
/// for one ([`INDEX_MIN_VECTORS`]).
pub fn build_index(vectors: &VectorSet, settings: IndexSettings) -> Option<BuiltIndex> {
    (vectors.len() >= INDEX_MIN_VECTORS).then(|| {
        let index = VectorIndex::build(vectors, settings);
        let snapshot = index.to_snapshot();
        (index, snapshot)
    })
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

/// An HNSW index over the positions of a book's vector set.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorIndex {
    graph: HnswGraph,
    ef_search: usize,
}

impl VectorIndex {
    /// Builds the index over every vector of `set`.
    pub fn build(set: &VectorSet, settings: IndexSettings) -> Self {
        VectorIndex {
            graph: graph_of(&build_hnsw(set, settings)),
            ef_search: settings.ef_search,
        }
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
        Ok(VectorIndex { graph, ef_search })
    }

    /// The best `k` hits in `vectors` (the set the index was built over)
    /// among those `eligible` lets through, if the index's candidates hold at
    /// least `k` of them; `None` tells the caller to search exactly.
    pub fn search(
        &self,
        vectors: &VectorSet,
        query: &[f32],
        k: usize,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<Vec<Hit>> {
        let hits: Vec<Hit> = self
            .graph
            .search(vectors, query, self.ef_search)
            .into_iter()
            .map(|(index, distance)| Hit {
                index,
                score: 1.0 - distance,
            })
            .filter(|hit| eligible(hit.index))
            .take(k)
            .collect();
        (hits.len() == k).then_some(hits)
    }
}

/// A vector of the set being indexed, as `instant-distance` sees it while
/// building: a position and a borrowed vector (nothing copied).
#[derive(Debug, Clone, Copy)]
struct Node<'a> {
    position: u32,
    vector: &'a [f32],
}

impl Point for Node<'_> {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - dot(self.vector, other.vector)
    }
}

/// Only the position goes into serde's view of the built graph.
impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.position)
    }
}

fn build_hnsw(set: &VectorSet, settings: IndexSettings) -> Hnsw<Node<'_>> {
    let points: Vec<Node<'_>> = (0..set.len())
        .map(|i| Node {
            position: i as u32,
            vector: set.get(i),
        })
        .collect();
    Builder::default()
        .ef_construction(settings.ef_construction)
        .ef_search(settings.ef_search)
        .seed(settings.seed)
        .build_hnsw(points)
        .0
}

/// `instant-distance` 0.6's `Hnsw` as its serde derive writes it (fields in
/// declaration order), with our points written as their positions.
#[derive(Deserialize)]
struct BuiltHnsw {
    _ef_search: usize,
    points: Vec<u32>,
    zero: Vec<Links<ZERO_LINKS>>,
    layers: Vec<Vec<Links<UPPER_LINKS>>>,
}

/// A node's fixed-size link array (serde: a tuple of `N` ids).
struct Links<const N: usize>([u32; N]);

impl<'de, const N: usize> Deserialize<'de> for Links<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct LinksVisitor<const N: usize>;
        impl<'de, const N: usize> Visitor<'de> for LinksVisitor<N> {
            type Value = Links<N>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{N} point ids")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Links<N>, A::Error> {
                let mut links = [0u32; N];
                for (i, slot) in links.iter_mut().enumerate() {
                    *slot = seq
                        .next_element()?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))?;
                }
                Ok(Links(links))
            }
        }
        deserializer.deserialize_tuple(N, LinksVisitor::<N>)
    }
}

/// The graph of a freshly built `Hnsw`, taken out through serde (in memory,
/// never stored). The shape is pinned with the dependency's version, and the
/// tests check that searching the graph answers exactly like `instant-distance`.
fn graph_of(hnsw: &Hnsw<Node<'_>>) -> HnswGraph {
    let bytes = postcard::to_allocvec(hnsw).expect("an in-memory graph serialises");
    let built: BuiltHnsw =
        postcard::from_bytes(&bytes).expect("instant-distance's Hnsw has the shape BuiltHnsw reads");
    HnswGraph {
        ids: built.points,
        zero: built.zero.iter().flat_map(|l| l.0).collect(),
        upper: built
            .layers
            .iter()
            .map(|layer| layer.iter().flat_map(|l| l.0).collect())
            .collect(),
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
        let restored = VectorIndex::from_snapshot(&index.to_snapshot(), set.len()).unwrap();
        assert_eq!(restored, index);
        let queries = random_set(50, 32, 99);
        let mut found = 0;
        for q in 0..queries.len() {
            let query = queries.get(q);
            let exact: Vec<usize> = exact_top_k(&set, query, 10, |_| true)
                .iter()
                .map(|h| h.index)
                .collect();
            let approx = index.search(&set, query, 10, |_| true).unwrap();
            let again = restored.search(&set, query, 10, |_| true).unwrap();
            assert_eq!(approx, again, "the snapshot answers like the original");
            found += approx.iter().filter(|h| exact.contains(&h.index)).count();
        }
        let recall = found as f64 / 500.0;
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn the_graph_answers_exactly_like_instant_distance() {
        let set = random_set(3000, 24, 11);
        let settings = IndexSettings::default();
        let hnsw = build_hnsw(&set, settings);
        let graph = graph_of(&hnsw);
        assert_eq!(graph.len(), set.len());
        assert!(!graph.upper.is_empty(), "3,000 points make upper layers");
        let queries = random_set(100, 24, 5);
        let mut scratch = instant_distance::Search::default();
        for q in 0..queries.len() {
            let point = Node {
                position: u32::MAX,
                vector: queries.get(q),
            };
            let theirs: Vec<(usize, f32)> = hnsw
                .search(&point, &mut scratch)
                .map(|item| (item.point.position as usize, item.distance))
                .collect();
            let ours = graph.search(&set, queries.get(q), settings.ef_search);
            assert_eq!(ours, theirs, "query {q}");
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
