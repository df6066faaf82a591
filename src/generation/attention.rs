//! Grouped-query attention of the query heads that share one key/value head
//! over the cached positions, computed as llama.cpp's CPU flash attention
//! computes it (its default): each query meets the F16 keys as half floats,
//! and the weighted sum of values runs online (rescaled at each new maximum)
//! in a half-float accumulator. The heads of a group go through each cached
//! key and value together (read once for all of them); each head's values are
//! the same as when it is attended alone.

use crate::kernels::attention::{accumulate_half, dots_in_f64, scale_half};
use crate::kernels::half::round_to_half;
use std::ops::Range;

/// The most query heads that go through the cache together; a larger group
/// goes in parts of this many.
const TOGETHER: usize = 4;

/// Where a group's attention reads: the cached keys and values (`kv_dim`
/// wide rows), the column of its key/value head, and its width.
#[derive(Clone, Copy)]
pub struct Cached<'a> {
    /// Cached keys, a row of `kv_dim` per position.
    pub keys: &'a [f32],
    /// Cached values, a row of `kv_dim` per position.
    pub values: &'a [f32],
    /// The width of a cached row (key/value heads × head width).
    pub kv_dim: usize,
    /// Where the key/value head's columns start in a row.
    pub column: usize,
    /// The width of one head.
    pub head_dim: usize,
}

/// `out` = softmax(q·Kᵀ · `scale`) · V for each query head laid end to end
/// in `queries` (and its result in `out`, in the same place), over the cached
/// keys and values of `positions`. `query`: room for the queries as half floats.
pub fn attend_group(
    queries: &[f32],
    cached: Cached<'_>,
    positions: Range<usize>,
    scale: f32,
    query: &mut [f32],
    out: &mut [f32],
) {
    let width = cached.head_dim * TOGETHER;
    let parts = queries.chunks(width).zip(query.chunks_mut(width));
    for ((q, half), out) in parts.zip(out.chunks_mut(width)) {
        let part = (q, cached, positions.clone(), scale);
        match q.len() / cached.head_dim {
            1 => attend::<1>(part, half, out),
            2 => attend::<2>(part, half, out),
            3 => attend::<3>(part, half, out),
            _ => attend::<4>(part, half, out),
        }
    }
}

/// [`attend_group`] for `N` heads.
fn attend<const N: usize>(
    (q, cached, positions, scale): (&[f32], Cached<'_>, Range<usize>, f32),
    query: &mut [f32],
    out: &mut [f32],
) {
    let Cached {
        keys,
        values,
        kv_dim,
        column,
        head_dim: hd,
    } = cached;
    for (dst, src) in query.iter_mut().zip(q) {
        *dst = round_to_half(*src);
    }
    out.fill(0.0);
    let (mut max, mut total) = ([f32::NEG_INFINITY; N], [0.0f32; N]);
    for p in positions {
        let scores = dots_in_f64::<N>(query, &keys[p * kv_dim + column..][..hd]);
        let mut weights = [1.0f32; N];
        for j in 0..N {
            let score = scores[j] * scale;
            let mut rescale = 1.0f32;
            if score > max[j] {
                rescale = (max[j] - score).exp();
                max[j] = score;
                scale_half(&mut out[j * hd..][..hd], rescale);
            } else {
                weights[j] = (score - max[j]).exp();
            }
            total[j] = total[j] * rescale + weights[j];
        }
        accumulate_half::<N>(out, &values[p * kv_dim + column..][..hd], weights);
    }
    for (head, total) in out.chunks_exact_mut(hd).zip(total) {
        let inverse = 1.0 / total;
        head.iter_mut().for_each(|o| *o *= inverse);
    }
}
