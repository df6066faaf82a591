//! The kernels where `simd128` is not compiled in: the lane-wise dot
//! products; the parts the simd128 kernels do first are left to the
//! callers' scalar loops.

pub use super::lanes::{dot, dot_i8};

/// Nothing done here: the caller's loop finds the largest magnitude.
#[inline(always)]
pub fn largest_magnitude(_: &[f32]) -> (f32, usize) {
    (0.0, 0)
}

/// Nothing done here: the caller's loop scales every value.
#[inline(always)]
pub fn scale_to_i8(_: &[f32], _: &mut [i8], _: f32) -> usize {
    0
}
