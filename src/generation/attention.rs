//! Grouped-query attention of one position over the cached ones, computed
//! as llama.cpp's CPU flash attention computes it (its default): the query
//! meets the F16 keys as half floats, and the weighted sum of values runs
//! online (rescaled at each new maximum) in a half-float accumulator.

use super::attention_kernels::{accumulate_half, dot_in_f64, scale_half};
use super::blocks::half;
use std::ops::Range;

use super::config::ModelConfig;

/// `out` (all heads) = softmax(q·Kᵀ · `scale`) · V over the cached keys and
/// values of `positions`; query head `h` reads key/value head
/// `h / (heads / kv_heads)`.
pub fn attend(
    q: &[f32],
    (keys, values): (&[f32], &[f32]),
    positions: Range<usize>,
    scale: f32,
    c: &ModelConfig,
    out: &mut [f32],
) {
    let (hd, kv_dim) = (c.head_dim, c.kv_dim());
    let group = c.heads / c.kv_heads;
    let mut query = vec![0.0f32; hd];
    for (head, out) in out.chunks_exact_mut(hd).enumerate() {
        let column = (head / group) * hd;
        for (dst, src) in query.iter_mut().zip(&q[head * hd..][..hd]) {
            *dst = half(*src);
        }
        out.fill(0.0);
        let (mut max, mut total) = (f32::NEG_INFINITY, 0.0f32);
        for p in positions.clone() {
            let key = &keys[p * kv_dim + column..][..hd];
            let score = dot_in_f64(&query, key) * scale;
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
}
