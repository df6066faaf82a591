//! The attention loops in plain Rust.

use crate::kernels::half::round_to_half;

/// For each of the `N` queries laid end to end in `queries` (each as wide as
/// `key`), `Σ q[i]·key[i]`, each product an `f32`, summed in `f64` in order.
pub fn dots_in_f64<const N: usize>(queries: &[f32], key: &[f32]) -> [f32; N] {
    let width = key.len();
    core::array::from_fn(|j| {
        let query = &queries[j * width..][..width];
        query.iter().zip(key).map(|(x, y)| (x * y) as f64).sum::<f64>() as f32
    })
}

/// For each of the `N` accumulators laid end to end in `outs` (each as wide as
/// `value`): `out[i] = round_to_half(out[i] + value[i]·weights[j])`.
pub fn accumulate_half<const N: usize>(outs: &mut [f32], value: &[f32], weights: [f32; N]) {
    for (out, w) in outs.chunks_exact_mut(value.len()).zip(weights) {
        for (o, x) in out.iter_mut().zip(value) {
            *o = round_to_half(*o + x * w);
        }
    }
}

/// `out[i] = round_to_half(out[i]·r)`.
pub fn scale_half(out: &mut [f32], r: f32) {
    for o in out.iter_mut() {
        *o = round_to_half(*o * r);
    }
}
