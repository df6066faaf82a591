//! Vectors: their quantised forms, the numeric kernels, and exact top-k search.

pub mod kernels;
pub mod quantized;
pub mod scan;
pub mod test_vectors;
pub mod topk;
pub mod vector;
