//! The attention loops in plain Rust.

use crate::kernels::half::round_to_half;

/// `Σ a[i]·b[i]`, each product an `f32`, summed in `f64`.
pub fn dot_in_f64(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x * y) as f64).sum::<f64>() as f32
}

/// `out[i] = round_to_half(out[i] + v[i]·w)`.
pub fn accumulate_half(out: &mut [f32], v: &[f32], w: f32) {
    for (o, x) in out.iter_mut().zip(v) {
        *o = round_to_half(*o + x * w);
    }
}

/// `out[i] = round_to_half(out[i]·r)`.
pub fn scale_half(out: &mut [f32], r: f32) {
    for o in out.iter_mut() {
        *o = round_to_half(*o * r);
    }
}
