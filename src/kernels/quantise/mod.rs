//! One 32-value block of an activation quantised as llama.cpp's Q8_1 values
//! (`quantize_row_q8_1_ref`): `d = max|x| / 127` and `q = roundf(x / d)`,
//! halves rounded away from zero. wasm `simd128` where it is compiled in,
//! plain loops elsewhere; both give the same values, bit for bit.

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod portable;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use portable::q8_1_block;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd128::q8_1_block;

/// Values a block holds.
pub const BLOCK: usize = 32;
