//! The numeric kernels, in one home for the decoder (`generation/`) and
//! retrieval (vector search, MiniLM): each with a wasm `simd128` form where
//! it is compiled in and a portable one elsewhere, giving the same results.
//!
//! - [`half`]: IEEE half-precision floats as bits;
//! - [`f32x4`]: four `f32` lanes (MiniLM's matrix products and norms);
//! - [`search`]: the hot loops of vector search (`f32` and int8 dot products, int8 scaling);
//! - [`block_sums`]: the decoder's integer products over quantised blocks;
//! - [`attention`]: the decoder's attention over half-precision keys and values;
//! - [`quantise`]: an activation's 32-value blocks quantised as Q8_1 for those products.

pub mod attention;
pub mod block_sums;
pub(crate) mod f32x4;
pub mod half;
pub mod quantise;
pub mod search;
