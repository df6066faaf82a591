//! Lectern's own HNSW graph: the layers and the id mapping of an index built
//! by `instant-distance`, without the vectors (they stay in the book's
//! [`crate::retrieval::vectors::vector::VectorSet`], stored once), and the search over it.
//!
//! The search is the one `instant-distance` 0.6 runs (greedy descent through
//! the upper layers with one candidate, then `ef` candidates on layer zero;
//! a test checks that both answer alike on the same graph), with two
//! additions: a [`Scratch`] reused from query to query, and a filter on
//! layer zero (ineligible nodes are walked through but never kept, as
//! hnswlib filters), so a page-bounded search still finds `ef` eligible nodes.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// An empty link slot in `instant-distance`'s fixed-width link arrays.
pub const NO_LINK: u32 = u32::MAX;

/// The links of one layer, packed: node `i`'s links are
/// `links[offsets[i]..offsets[i + 1]]`, nearest-chosen first.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// `len() + 1` offsets into `links`, from 0.
    pub offsets: Vec<u32>,
    /// Every node's links, back to back.
    pub links: Vec<u32>,
}

impl Default for Layer {
    fn default() -> Self {
        Layer {
            offsets: vec![0],
            links: Vec::new(),
        }
    }
}

impl Layer {
    /// A layer from fixed-width slots (`width` per node, links first, then
    /// `NO_LINK`), keeping each node's first `keep` links.
    pub fn from_slots(slots: &[u32], width: usize, keep: usize) -> Layer {
        let mut layer = Layer::default();
        for node in slots.chunks(width) {
            layer.push(node.iter().take_while(|&&n| n != NO_LINK).take(keep).copied());
        }
        layer
    }

    /// Appends a node with these links.
    pub fn push(&mut self, links: impl IntoIterator<Item = u32>) {
        self.links.extend(links);
        self.offsets.push(self.links.len() as u32);
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The links of `node`.
    pub fn of(&self, node: u32) -> &[u32] {
        let node = node as usize;
        &self.links[self.offsets[node] as usize..self.offsets[node + 1] as usize]
    }

    /// The bytes it holds.
    pub fn bytes(&self) -> usize {
        (self.offsets.len() + self.links.len()) * 4
    }
}

/// An HNSW graph. Nodes are numbered in insertion order (node 0 is the
/// entry point, on every layer); layer `l` holds nodes `0..upper[l - 1].len()`.
#[derive(Debug, Clone, PartialEq)]
pub struct HnswGraph {
    /// Each node's position in the vector set.
    pub ids: Vec<u32>,
    /// Layer zero.
    pub zero: Layer,
    /// The upper layers, lowest first.
    pub upper: Vec<Layer>,
}

/// A node met by a search, with its distance to the query.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    /// Distance to the query (smaller is nearer).
    pub distance: f32,
    /// The node.
    pub node: u32,
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

/// The memory of a search, kept from one query to the next so a query does
/// not allocate it anew: the visited set (a byte per node, stamped: a new stamp
/// clears it), the candidate heap and the result list.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    visited: Vec<u8>,
    stamp: u8,
    candidates: BinaryHeap<Reverse<Candidate>>,
    /// Nearest first, at most `ef`.
    nearest: Vec<Candidate>,
    /// Distances computed by the last search.
    pub distances: usize,
    /// Whether the last search stopped at its distance budget.
    pub exhausted: bool,
}

impl Scratch {
    /// Forgets every visit (a new stamp), for `nodes` nodes.
    fn forget(&mut self, nodes: usize) {
        if self.visited.len() != nodes {
            self.visited.clear();
            self.visited.resize(nodes, 0);
            self.stamp = 0;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.iter_mut().for_each(|v| *v = 0);
            self.stamp = 1;
        }
    }

    /// Marks `node` visited; whether it was new.
    fn visit(&mut self, node: u32) -> bool {
        let slot = &mut self.visited[node as usize];
        let new = *slot != self.stamp;
        *slot = self.stamp;
        new
    }

    /// The bytes it holds.
    pub fn bytes(&self) -> usize {
        self.visited.capacity() + (self.candidates.capacity() + self.nearest.capacity()) * 8
    }
}

/// One search over one graph.
struct Walk<'a, D, E> {
    graph: &'a HnswGraph,
    scratch: &'a mut Scratch,
    distance: D,
    eligible: E,
    ef: usize,
    budget: usize,
}

impl<D: FnMut(u32) -> f32, E: Fn(u32) -> bool> Walk<'_, D, E> {
    /// Meets `node` (paper, algorithm 2, inner loop): a candidate if it is
    /// among the `ef` nearest, kept if it is also eligible.
    fn push(&mut self, node: u32, filtered: bool) {
        if !self.scratch.visit(node) {
            return;
        }
        self.scratch.distances += 1;
        let new = Candidate {
            distance: (self.distance)(self.graph.ids[node as usize]),
            node,
        };
        let nearest = &mut self.scratch.nearest;
        let at = nearest.binary_search(&new).unwrap_or_else(|at| at);
        if at < self.ef {
            self.scratch.candidates.push(Reverse(new));
            if !filtered || (self.eligible)(self.graph.ids[node as usize]) {
                nearest.insert(at, new);
                nearest.truncate(self.ef);
            }
        }
    }

    /// Searches one layer.
    fn layer(&mut self, layer: &Layer, filtered: bool) {
        while let Some(Reverse(candidate)) = self.scratch.candidates.pop() {
            let nearest = &self.scratch.nearest;
            if nearest.len() >= self.ef
                && compare(candidate.distance, nearest[nearest.len() - 1].distance) == Ordering::Greater
            {
                break;
            }
            if self.scratch.distances >= self.budget {
                self.scratch.exhausted = true;
                break;
            }
            for &node in layer.of(candidate.node) {
                self.push(node, filtered);
            }
        }
    }

    /// Goes down a layer: the nearest found become the entry points.
    fn cull(&mut self) {
        let scratch = &mut *self.scratch;
        scratch.candidates.clear();
        scratch.forget(self.graph.ids.len());
        for i in 0..scratch.nearest.len() {
            let c = scratch.nearest[i];
            scratch.candidates.push(Reverse(c));
            scratch.visit(c.node);
        }
    }

    /// Layer zero starts from the entry point the upper layers found, kept
    /// as a result only if eligible.
    fn enter_zero(&mut self) {
        let eligible = &self.eligible;
        let ids = &self.graph.ids;
        self.scratch.nearest.retain(|c| eligible(ids[c.node as usize]));
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

    /// The bytes it holds.
    pub fn bytes(&self) -> usize {
        self.ids.len() * 4 + self.zero.bytes() + self.upper.iter().map(Layer::bytes).sum::<usize>()
    }

    /// The (up to) `ef` nearest eligible nodes to a query, nearest first, as
    /// (position, distance), with `distance(position)` the query's distance to
    /// a vector. Only layer zero is filtered: the descent goes through any
    /// node. The walk stops once it has computed `budget` distances (then
    /// `scratch.exhausted` is set). Uses and leaves its state in `scratch`.
    pub fn search(
        &self,
        scratch: &mut Scratch,
        distance: impl FnMut(u32) -> f32,
        (ef, budget): (usize, usize),
        eligible: impl Fn(u32) -> bool,
    ) -> Vec<(usize, f32)> {
        scratch.forget(self.ids.len());
        scratch.candidates.clear();
        scratch.nearest.clear();
        scratch.distances = 0;
        scratch.exhausted = false;
        if self.ids.is_empty() {
            return Vec::new();
        }
        let mut walk = Walk {
            graph: self,
            scratch,
            distance,
            eligible,
            ef: 1,
            budget,
        };
        walk.push(0, false);
        for layer in self.upper.iter().rev() {
            walk.layer(layer, false);
            walk.cull();
        }
        walk.ef = ef.max(1);
        walk.enter_zero();
        walk.layer(&self.zero, true);
        let ids = &self.ids;
        walk.scratch
            .nearest
            .iter()
            .map(|c| (ids[c.node as usize] as usize, c.distance))
            .collect()
    }
}
