//! Grouped-query attention of one query head over the cached positions, computed
//! as llama.cpp's CPU flash attention computes it (its default): the query
//! meets the F16 keys as half floats, and the weighted sum of values runs
//! online (rescaled at each new maximum) in a half-float accumulator.

use crate::kernels::attention::{accumulate_half, dot_in_f64, scale_half};
use crate::kernels::half::round_to_half;
use std::ops::Range;

use super::config::ModelConfig;

/// `out` = softmax(q·Kᵀ · `scale`) · V for query head `head` (`q` and `out`
/// that head's, `head_dim` wide) over the cached keys and values of
/// `positions`; it reads key/value head `head / (heads / kv_heads)`.
/// `query`: room for the query as half floats.
pub fn attend_head(
    (q, head): (&[f32], usize),
    (keys, values): (&[f32], &[f32]),
    positions: Range<usize>,
    scale: f32,
    c: &ModelConfig,
    query: &mut [f32],
    out: &mut [f32],
) {
    let (hd, kv_dim) = (c.head_dim, c.kv_dim());
    let column = (head / (c.heads / c.kv_heads)) * hd;
    for (dst, src) in query.iter_mut().zip(q) {
        *dst = round_to_half(*src);
    }
    out.fill(0.0);
    let (mut max, mut total) = (f32::NEG_INFINITY, 0.0f32);
    for p in positions {
        let key = &keys[p * kv_dim + column..][..hd];
        let score = dot_in_f64(query, key) * scale;
        let (mut rescale, mut weight) = (1.0f32, 1.0f32);
        if score > max {
            rescale = (max - score).exp();
            max = score;
            scale_half(out, rescale);
        } else {
            weight = (score - max).exp();
        }
        let value = &values[p * kv_dim + column..][..hd];
        accumulate_half(out, value, weight);
        total = total * rescale + weight;
    }
    let inverse = 1.0 / total;
    for o in out.iter_mut() {
        *o *= inverse;
    }
}
