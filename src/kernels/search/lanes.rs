//! Dot products in plain Rust, written in independent lanes so the compiler
//! vectorises them natively (used on every target: `normalize` and the
//! benchmarks' baselines too).

/// Dot product in eight independent lanes (the compiler vectorises it natively).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 8];
    let chunks = n / 8;
    for c in 0..chunks {
        let (x, y) = (&a[c * 8..c * 8 + 8], &b[c * 8..c * 8 + 8]);
        for lane in 0..8 {
            acc[lane] += x[lane] * y[lane];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for i in chunks * 8..n {
        sum += a[i] * b[i];
    }
    sum
}

/// The int8 dot product in sixteen independent lanes (the compiler vectorises it natively).
#[inline(always)]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for lane in 0..16 {
            acc[lane] += x[lane] as i32 * y[lane] as i32;
        }
    }
    acc.iter().sum()
}
