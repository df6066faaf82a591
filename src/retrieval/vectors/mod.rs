//! Vectors: their quantised forms and exact top-k search (the kernels: `crate::kernels::search`).

pub mod quantized;
pub mod scan;
pub mod test_vectors;
pub mod topk;
pub mod vector;
