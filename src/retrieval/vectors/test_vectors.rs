//! Random unit vectors, reproducible from a seed: for the tests of exact
//! search and the index (here and in `tests/`).

use crate::retrieval::vectors::vector::{normalize, VectorSet};

/// `n` random unit vectors of `dims` dimensions (xorshift from `seed`).
pub fn random_set(n: usize, dims: usize, seed: u64) -> VectorSet {
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
