//! Lectern's own HNSW graph: the layers and the id mapping of an index built
//! by `instant-distance`, without the vectors (they stay in the book's
//! [`VectorSet`], stored once), and the search over it.
//!
//! The search is the one `instant-distance` 0.6 runs (greedy descent through
//! the upper layers with one candidate, then `ef_search` candidates on layer
//! zero); a test checks that both answer alike on the same graph.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::vector::{dot, VectorSet};

/// Links per node on the upper layers (`M` of the paper and of `instant-distance`).
pub const UPPER_LINKS: usize = 32;
/// Links per node on layer zero (`2 M`).
pub const ZERO_LINKS: usize = 2 * UPPER_LINKS;
/// An empty link slot; a node's links end at the first one.
pub const NO_LINK: u32 = u32::MAX;

/// An HNSW graph over a vector set. Nodes are numbered in insertion order
/// (node 0 is the entry point, on every layer); layer `l` holds nodes
/// `0..upper[l - 1].len() / UPPER_LINKS`.
#[derive(Debug, Clone, PartialEq)]
pub struct HnswGraph {
    /// Each node's position in the vector set.
    pub ids: Vec<u32>,
    /// Layer zero: `ZERO_LINKS` slots per node, links first, then `NO_LINK`.
    pub zero: Vec<u32>,
    /// The upper layers, lowest first: `UPPER_LINKS` slots per node.
    pub upper: Vec<Vec<u32>>,
}

/// A node met by a search, with its distance to the query.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    distance: f32,
    node: u32,
}

/// Compares distances like `ordered-float` does (NaN above everything).
fn compare(a: f32, b: f32) -> Ordering {
    match a.partial_cmp(&b) {
        Some(order) => order,
        None => a.is_nan().cmp(&b.is_nan()),
    }
}

/// By distance, then by node.
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(self.distance, other.distance).then(self.node.cmp(&other.node))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

/// The state of one search (paper, algorithm 2).
struct Search<'a> {
    graph: &'a HnswGraph,
    vectors: &'a VectorSet,
    query: &'a [f32],
    visited: Vec<bool>,
    candidates: BinaryHeap<Reverse<Candidate>>,
    /// Nearest first, at most `ef`.
    nearest: Vec<Candidate>,
    ef: usize,
}

impl Search<'_> {
    fn push(&mut self, node: u32) {
        let seen = &mut self.visited[node as usize];
        if *seen {
            return;
        }
        *seen = true;
        let vector = self.vectors.get(self.graph.ids[node as usize] as usize);
        let new = Candidate {
            distance: 1.0 - dot(vector, self.query),
            node,
        };
        let at = self.nearest.binary_search(&new).unwrap_or_else(|at| at);
        if at < self.ef {
            self.nearest.insert(at, new);
            self.candidates.push(Reverse(new));
        }
    }

    /// Searches one layer whose nodes have `width` link slots each.
    fn layer(&mut self, links: &[u32], width: usize) {
        while let Some(Reverse(candidate)) = self.candidates.pop() {
            let furthest = self.nearest.last().map(|f| f.distance);
            if furthest.is_some_and(|f| compare(candidate.distance, f) == Ordering::Greater) {
                break;
            }
            let start = candidate.node as usize * width;
            for &node in links[start..start + width].iter().take_while(|&&n| n != NO_LINK) {
                self.push(node);
            }
            self.nearest.truncate(self.ef);
        }
    }

    /// Goes down a layer: the nearest found become the entry points.
    fn cull(&mut self) {
        self.candidates = self.nearest.iter().map(|&c| Reverse(c)).collect();
        self.visited.iter_mut().for_each(|v| *v = false);
        for c in &self.nearest {
            self.visited[c.node as usize] = true;
        }
    }
}

impl HnswGraph {
    /// How many nodes.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The (up to) `ef_search` nearest nodes to `query`, nearest first, as
    /// (position in `vectors`, distance `1 - cosine`).
    pub fn search(&self, vectors: &VectorSet, query: &[f32], ef_search: usize) -> Vec<(usize, f32)> {
        if self.ids.is_empty() {
            return Vec::new();
        }
        let mut search = Search {
            graph: self,
            vectors,
            query,
            visited: vec![false; self.ids.len()],
            candidates: BinaryHeap::new(),
            nearest: Vec::new(),
            ef: 1,
        };
        search.push(0);
        for links in self.upper.iter().rev() {
            search.ef = 1;
            search.layer(links, UPPER_LINKS);
            search.cull();
        }
        search.ef = ef_search.max(1);
        search.layer(&self.zero, ZERO_LINKS);
        search
            .nearest
            .iter()
            .map(|c| (self.ids[c.node as usize] as usize, c.distance))
            .collect()
    }
}
