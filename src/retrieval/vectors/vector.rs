//! Vectors: dot products (wasm `simd128` where compiled in), normalising, and
//! exact top-k search over a flat, compact store of vectors.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::domain::StoredVectors;
use crate::kernels::search;
use crate::retrieval::vectors::quantized::QuantizedSet;

/// Dot product of two equally long vectors; SIMD in wasm builds with `simd128`.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    search::dot(a, b)
}

/// One multiply-add at a time: the baseline the benchmark compares against.
pub fn dot_scalar(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).fold(0.0, |acc, (x, y)| acc + x * y)
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = search::dot_lanes(v, v).sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Many vectors of one dimension: the stored rows, with their int8 copy (a
/// quarter of the size) for the quantised first pass of a scan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VectorSet {
    rows: StoredVectors,
    quantized: QuantizedSet,
}

impl VectorSet {
    /// An empty set of `dims`-dimensional vectors.
    pub fn new(dims: usize) -> Self {
        VectorSet {
            rows: StoredVectors::empty(dims),
            quantized: QuantizedSet::new(dims),
        }
    }

    /// A set over flat data (`data.len()` a multiple of `dims`).
    pub fn from_flat(dims: usize, data: Vec<f32>) -> Self {
        VectorSet::from(StoredVectors::from_flat(dims, data))
    }

    /// Appends a vector; its length must be `dims`.
    pub fn push(&mut self, vector: &[f32]) {
        self.rows.push(vector);
        self.quantized.push(vector);
    }

    /// The dimension.
    pub fn dims(&self) -> usize {
        self.rows.dims()
    }

    /// How many vectors.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Vector `i`.
    pub fn get(&self, i: usize) -> &[f32] {
        self.rows.row(i)
    }

    /// The flat data.
    pub fn as_flat(&self) -> &[f32] {
        self.rows.flat()
    }

    /// The rows as stored.
    pub fn rows(&self) -> &StoredVectors {
        &self.rows
    }

    /// The int8 copy, row for row.
    pub fn quantized(&self) -> &QuantizedSet {
        &self.quantized
    }
}

impl From<StoredVectors> for VectorSet {
    /// The set over stored rows, with their int8 copy made.
    fn from(rows: StoredVectors) -> Self {
        let mut quantized = QuantizedSet::new(rows.dims());
        (0..rows.len()).for_each(|i| quantized.push(rows.row(i)));
        VectorSet { rows, quantized }
    }
}

/// A scored hit: the vector's index and its similarity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index in the vector set.
    pub index: usize,
    /// Dot product with the query (cosine for unit vectors).
    pub score: f32,
}

impl Eq for Hit {}

impl Ord for Hit {
    /// Reversed, so a `BinaryHeap<Hit>` pops the worst hit first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.index.cmp(&other.index))
    }
}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The `k` vectors most similar to `query` among those `eligible` lets through,
/// best first (ties by index), scanning all of them with `score`.
pub fn top_k_with(
    set: &VectorSet,
    query: &[f32],
    k: usize,
    eligible: impl Fn(usize) -> bool,
    score: impl Fn(&[f32], &[f32]) -> f32,
) -> Vec<Hit> {
    if k == 0 {
        return Vec::new();
    }
    let mut heap: BinaryHeap<Hit> = BinaryHeap::with_capacity(k + 1);
    for index in (0..set.len()).filter(|&i| eligible(i)) {
        let hit = Hit {
            index,
            score: score(set.get(index), query),
        };
        if heap.len() < k {
            heap.push(hit);
        } else if heap.peek().is_some_and(|worst| hit < *worst) {
            heap.pop();
            heap.push(hit);
        }
    }
    let mut hits = heap.into_vec();
    hits.sort();
    hits
}

/// [`top_k_with`] using the fastest dot product of the build.
pub fn exact_top_k(set: &VectorSet, query: &[f32], k: usize, eligible: impl Fn(usize) -> bool) -> Vec<Hit> {
    top_k_with(set, query, k, eligible, dot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::search::dot_lanes;

    #[test]
    fn dot_products_agree() {
        let a: Vec<f32> = (0..385).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..385).map(|i| (i as f32 * 0.11).cos()).collect();
        let reference = dot_scalar(&a, &b);
        assert!((dot(&a, &b) - reference).abs() < 1e-3);
        assert!((dot_lanes(&a, &b) - reference).abs() < 1e-3);
    }

    #[test]
    fn top_k_is_best_first_and_respects_eligibility() {
        let mut set = VectorSet::new(2);
        for v in [[1.0, 0.0], [0.0, 1.0], [0.8, 0.6], [0.6, 0.8], [-1.0, 0.0]] {
            set.push(&v);
        }
        let hits = exact_top_k(&set, &[1.0, 0.0], 3, |_| true);
        assert_eq!(hits.iter().map(|h| h.index).collect::<Vec<_>>(), [0, 2, 3]);
        let hits = exact_top_k(&set, &[1.0, 0.0], 3, |i| i != 0);
        assert_eq!(hits.iter().map(|h| h.index).collect::<Vec<_>>(), [2, 3, 1]);
        assert_eq!(
            exact_top_k(&set, &[1.0, 0.0], 10, |i| i < 2).len(),
            2,
            "fewer eligible than k"
        );
    }

    #[test]
    fn normalizing() {
        let mut v = vec![3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut zero = vec![0.0, 0.0];
        normalize(&mut zero);
        assert_eq!(zero, [0.0, 0.0]);
    }
}
