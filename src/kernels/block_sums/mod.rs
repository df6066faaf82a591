//! The decoder's hot loop: the integer products of a weight row's 32-value
//! blocks with an activation's, one `i32` per block (the float scaling that
//! follows is llama.cpp's, block by block, in `blocks::BlockMatrix::row_dot`).
//! wasm `simd128` where it is compiled in, plain loops elsewhere; both give
//! the same sums.

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod portable;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use portable::{block_sums, nibble_block_sums, nibble_block_sums_each, wide_block_sums};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd128::{block_sums, nibble_block_sums, nibble_block_sums_each, wide_block_sums};
