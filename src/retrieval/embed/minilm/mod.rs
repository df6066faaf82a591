//! all-MiniLM-L6-v2, the sentence encoder of issue 13, in Rust: its
//! tokenizer, matching the reference id for id
//! (`tests/native/minilm_tokenizer.rs`), and its encoder on 4-lane kernels
//! (simd128 in wasm), matching the reference vectors
//! (`tests/native/minilm_encoder.rs`), behind the `Embedder` seam
//! ([`embedder::MiniLmEmbedder`]). Not yet an `embedder` option of `Lectern`,
//! nor run by the ingestion worker.

pub mod embedder;
pub mod encoder;
pub mod linear;
pub mod ops;
pub mod safetensors;
#[rustfmt::skip]
pub mod tables;
pub mod tokenizer;
