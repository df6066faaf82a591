//! [`q8_1_block`] in plain loops: llama.cpp's reference, step by step.

use super::BLOCK;

/// The first 32 `values` quantised into `quants`: returns the block's `d`
/// (`max|x| / 127`, as a float) and `Σ q`. Panics if either holds fewer than 32.
pub fn q8_1_block(values: &[f32], quants: &mut [i8]) -> (f32, i32) {
    let (values, quants) = (&values[..BLOCK], &mut quants[..BLOCK]);
    let amax = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let d = amax / 127.0;
    let inverse = if d != 0.0 { 1.0 / d } else { 0.0 };
    let mut total = 0i32;
    for (q, v) in quants.iter_mut().zip(values) {
        *q = (v * inverse).round() as i8;
        total += *q as i32;
    }
    (d, total)
}
