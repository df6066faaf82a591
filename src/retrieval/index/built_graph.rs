//! The graph `instant-distance` built, taken out of its `Hnsw` into
//! Lectern's [`HnswGraph`] through serde (in memory, never stored).

use instant_distance::Hnsw;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use crate::retrieval::index::hnsw::{HnswGraph, Layer};
use instant_distance::{Builder, Heuristic, Point};
use serde::{Serialize, Serializer};

use crate::retrieval::index::settings::IndexSettings;
use crate::retrieval::vectors::quantized::{dot_rows, QuantizedSet};

/// Links per node on the upper layers of `instant-distance` 0.6 (its `M`).
pub const BUILT_UPPER_LINKS: usize = 32;
/// Links per node on its layer zero (`2 M`).
pub const BUILT_ZERO_LINKS: usize = 2 * BUILT_UPPER_LINKS;

/// `instant-distance` 0.6's `Hnsw` as its serde derive writes it (fields in
/// declaration order), with our points written as their positions.
#[derive(Deserialize)]
struct BuiltHnsw {
    _ef_search: usize,
    points: Vec<u32>,
    zero: Vec<Links<BUILT_ZERO_LINKS>>,
    layers: Vec<Vec<Links<BUILT_UPPER_LINKS>>>,
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

/// The graph of a freshly built `Hnsw`, each node with its first
/// `zero_links` links on layer zero and `upper_links` above. The shape is
/// pinned with the dependency's version, and the tests check that searching
/// the graph answers exactly like `instant-distance`.
pub(in crate::retrieval) fn graph_of(
    hnsw: &Hnsw<Node<'_>>,
    zero_links: usize,
    upper_links: usize,
) -> HnswGraph {
    let bytes = postcard::to_allocvec(hnsw).expect("an in-memory graph serialises");
    let built: BuiltHnsw =
        postcard::from_bytes(&bytes).expect("instant-distance's Hnsw has the shape BuiltHnsw reads");
    let slots = |nodes: &[Links<BUILT_UPPER_LINKS>], keep| {
        let flat: Vec<u32> = nodes.iter().flat_map(|l| l.0).collect();
        Layer::from_slots(&flat, BUILT_UPPER_LINKS, keep)
    };
    let zero: Vec<u32> = built.zero.iter().flat_map(|l| l.0).collect();
    HnswGraph {
        ids: built.points,
        zero: Layer::from_slots(&zero, BUILT_ZERO_LINKS, zero_links),
        upper: built
            .layers
            .iter()
            .map(|layer| slots(layer, upper_links))
            .collect(),
    }
}

/// A vector of the set being indexed, as `instant-distance` sees it while
/// building: a position and a handle into the quantised copy (nothing copied).
#[derive(Debug, Clone, Copy)]
pub(in crate::retrieval) struct Node<'a> {
    pub(in crate::retrieval) position: u32,
    pub(in crate::retrieval) vector: (&'a [i8], f32),
}

impl Point for Node<'_> {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - dot_rows(self.vector, other.vector)
    }
}

/// Only the position goes into serde's view of the built graph.
impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.position)
    }
}

/// `instant-distance`'s HNSW graph of every row of `set`.
pub(in crate::retrieval) fn build_hnsw(set: &QuantizedSet, settings: IndexSettings) -> Hnsw<Node<'_>> {
    let points: Vec<Node<'_>> = (0..set.len())
        .map(|i| Node {
            position: i as u32,
            vector: set.row(i),
        })
        .collect();
    Builder::default()
        .ef_construction(settings.ef_construction)
        .ef_search(settings.ef_search)
        .seed(settings.seed)
        .ml(settings.ml)
        .select_heuristic(settings.heuristic.then_some(Heuristic {
            extend_candidates: false,
            keep_pruned: settings.keep_pruned,
        }))
        .build_hnsw(points)
        .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::index::hnsw::Scratch;
    use crate::retrieval::index::settings::IndexSettings;
    use crate::retrieval::vectors::quantized::quantize_into;
    use crate::retrieval::vectors::test_vectors::random_set;

    #[test]
    fn the_graph_answers_exactly_like_instant_distance() {
        let vectors = random_set(3000, 24, 11);
        let set = vectors.quantized();
        let settings = IndexSettings::default();
        let hnsw = build_hnsw(set, settings);
        let graph = graph_of(&hnsw, BUILT_ZERO_LINKS, BUILT_UPPER_LINKS);
        assert_eq!(graph.len(), set.len());
        assert!(!graph.upper.is_empty(), "3,000 points make upper layers");
        let queries = random_set(100, 24, 5);
        let mut theirs_scratch = instant_distance::Search::default();
        let mut ours_scratch = Scratch::default();
        let mut codes = vec![0i8; set.stride()];
        for q in 0..queries.len() {
            let scale = quantize_into(queries.get(q), &mut codes);
            let point = Node {
                position: u32::MAX,
                vector: (&codes, scale),
            };
            let theirs: Vec<(usize, f32)> = hnsw
                .search(&point, &mut theirs_scratch)
                .map(|item| (item.point.position as usize, item.distance))
                .collect();
            let ours = graph.search(
                &mut ours_scratch,
                |p| 1.0 - dot_rows((&codes, scale), set.row(p as usize)),
                (settings.ef_search, usize::MAX),
                |_| true,
            );
            assert_eq!(ours, theirs, "query {q}");
        }
    }
}
