//! The decoder's attention against its definition: llama.cpp's CPU flash
//! attention, one head at a time, written out in plain loops here (each key
//! product summed in `f64`, the values in a half-float accumulator rescaled
//! at each new maximum). Run natively (the plain kernels) and in Chromium
//! (the simd128 ones, whose heads of a group go through the cache together).

use lectern::generation::attention::{attend_group, Cached};
use lectern::kernels::half::round_to_half;

use crate::support::local_kernels::Numbers;

const HEAD: usize = 64;
const POSITIONS: usize = 40;

/// One head's attention by its definition.
fn definition(q: &[f32], cached: Cached<'_>, positions: std::ops::Range<usize>, scale: f32) -> Vec<f32> {
    let query: Vec<f32> = q.iter().map(|v| round_to_half(*v)).collect();
    let (mut out, mut max, mut total) = (vec![0.0f32; HEAD], f32::NEG_INFINITY, 0.0f32);
    for p in positions {
        let row = p * cached.kv_dim + cached.column;
        let key = &cached.keys[row..][..HEAD];
        let dot = query.iter().zip(key).map(|(a, b)| (a * b) as f64).sum::<f64>() as f32;
        let score = dot * scale;
        let (mut rescale, mut weight) = (1.0f32, 1.0f32);
        if score > max {
            rescale = (max - score).exp();
            max = score;
            out.iter_mut().for_each(|o| *o = round_to_half(*o * rescale));
        } else {
            weight = (score - max).exp();
        }
        for (o, v) in out.iter_mut().zip(&cached.values[row..][..HEAD]) {
            *o = round_to_half(*o + v * weight);
        }
        total = total * rescale + weight;
    }
    out.iter().map(|o| o * (1.0 / total)).collect()
}

/// Groups of one to seven query heads on two key/value heads: every head's
/// result is its definition's, bit for bit, over every prefix of the cache
/// and a window. Values span half floats' subnormal range and zero, so the
/// kernels' lane-by-lane rounding runs too.
pub fn grouped_attention_is_each_head_by_its_definition() {
    let mut numbers = Numbers(11);
    let kv_dim = 2 * HEAD;
    let keys: Vec<f32> = (0..POSITIONS * kv_dim)
        .map(|_| round_to_half(numbers.signed() * 3.0))
        .collect();
    let values: Vec<f32> = (0..POSITIONS * kv_dim)
        .map(|i| match i % 7 {
            0 => 0.0,
            1 => round_to_half(numbers.signed() * 1e-5),
            _ => round_to_half(numbers.signed() * 2.0),
        })
        .collect();
    for group in 1..=7 {
        let queries: Vec<f32> = (0..group * HEAD).map(|_| numbers.signed() * 2.0).collect();
        for column in [0, HEAD] {
            let cached = Cached {
                keys: &keys,
                values: &values,
                kv_dim,
                column,
                head_dim: HEAD,
            };
            for positions in (1..=POSITIONS).map(|end| 0..end).chain(std::iter::once(17..33)) {
                let (mut half, mut out) = (vec![0.0; group * HEAD], vec![f32::NAN; group * HEAD]);
                attend_group(&queries, cached, positions.clone(), 0.125, &mut half, &mut out);
                for head in 0..group {
                    let q = &queries[head * HEAD..][..HEAD];
                    let expected = definition(q, cached, positions.clone(), 0.125);
                    let got = &out[head * HEAD..][..HEAD];
                    let same = got.iter().zip(&expected).all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(
                        same,
                        "{group} heads, column {column}, positions {positions:?}, head {head}: {got:?} vs {expected:?}"
                    );
                }
            }
        }
    }
}
