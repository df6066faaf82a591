//! The Rust code the tests and the benchmarks share, in one folder. Every
//! test crate and every Rust bench mounts all of it once, as `mod support` at
//! its crate root (`tests/native/main.rs`, `tests/web/main.rs` and
//! `benches/*.rs` with `#[path = "…/support/mod.rs"]`; `tests/web_*.rs` find
//! it by name), so a file here reaches another through `crate::support::…`.
//! The fuzz targets (`fuzz/`, a crate of their own without the
//! dev-dependencies) include `fuzz_props.rs` alone.
//!
//! What only the native or only the browser tests can build is gated on the
//! target; each crate uses a part of the rest.
#![allow(dead_code)]

/// The benchmarks' bodies and their figure lines (native and Chromium).
pub mod bench;
/// The behaviour every `Store` must show (memory natively, IndexedDB in Chromium).
pub mod conformance;
/// The decoder's grouped attention against its definition.
pub mod grouped_attention;
/// The retrieval-quality evaluation (issue 13); used natively, built for
/// wasm32 too with the benches, as are `minilm_env` and `reader_eval`.
pub mod lexical_eval;
/// The local decoder's block products against their definition.
pub mod local_kernels;
/// all-MiniLM-L6-v2 from `LECTERN_MINILM_DIR`.
pub mod minilm_env;
/// The reader-question evaluation (issue 31).
pub mod reader_eval;
/// The fixtures of `../shared` (the Thursday text, real MiniLM embeddings).
pub mod shared_fixtures;
/// Books in Japanese, Chinese, Arabic, emoji and French, and what to find in them.
pub mod unicode_books;

/// The properties of the parsers of outside input (also the fuzz targets').
#[cfg(not(target_arch = "wasm32"))]
pub mod fuzz_props;
/// `TestAgent` and the tools, approvals and books of the native agent tests.
#[cfg(not(target_arch = "wasm32"))]
pub mod harness;
/// A memory store with hooks: failing writes, counting reads.
#[cfg(not(target_arch = "wasm32"))]
pub mod hooked_store;
/// `Lectern.open`'s options, as the native tests build them.
#[cfg(not(target_arch = "wasm32"))]
pub mod open_options;
/// The proptest configuration (`PROPTEST_CASES`).
#[cfg(not(target_arch = "wasm32"))]
pub mod prop_config;

/// The browser tests' helpers: the mock server, pages' calls, the MiniLM check.
#[cfg(target_arch = "wasm32")]
pub mod web;
