//! all-MiniLM-L6-v2, the sentence encoder of issue 13, built up in Rust.
//! So far: its tokenizer, matching the reference id for id
//! (`tests/native_minilm_tokenizer.rs`). The encoder and its wiring into
//! the ingestion worker are not in yet.

#[rustfmt::skip]
pub mod tables;
pub mod tokenizer;
