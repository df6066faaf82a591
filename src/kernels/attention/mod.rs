//! The inner loops of attention: queries' products with a cached key, and
//! the half-float accumulators of weighted values (llama.cpp's CPU flash
//! attention keeps them in F16). The queries of one key/value head (grouped-
//! query attention) go through each key and value together. wasm `simd128`
//! where it is compiled in, plain loops elsewhere; both give the same values
//! as llama.cpp's scalar code, the key products summed in `f64` as it does
//! (in another order, which `f64` hides).

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod portable;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use portable::{accumulate_half, dots_in_f64, scale_half};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd128::{accumulate_half, dots_in_f64, scale_half};
