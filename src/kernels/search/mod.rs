//! The hot loops of vector search, one set per target: wasm `simd128` where
//! it is compiled in, plain lanes elsewhere. Only the module choice differs;
//! both give the same results (`tests/web/exact_search.rs`).

mod lanes;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod portable;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use portable::{dot, dot_i8, largest_magnitude, scale_to_i8};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd128::{dot, dot_i8, largest_magnitude, scale_to_i8};

/// The `f32` dot product in eight plain lanes, on every target.
pub use lanes::dot as dot_lanes;
/// The int8 dot product in sixteen plain lanes, on every target.
pub use lanes::dot_i8 as dot_i8_lanes;
