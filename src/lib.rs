//! Lectern: an LLM agent loop that runs inside the browser.
//!
//! The core (this crate without the `web` and `wasm` modules) is
//! platform-neutral and is tested natively; the browser implementations of
//! its seams (`web`: IndexedDB, `fetch`, `setTimeout`, ...) and the JS API
//! (`wasm`) compile for `wasm32` only.
#![deny(missing_docs)]

pub mod agent;
pub mod approval;
pub mod domain;
pub mod error;
pub mod events;
pub mod generation;
pub mod http;
pub mod json;
pub mod kernels;
pub mod provider;
pub mod retrieval;
pub mod runtime;
pub mod storage;
#[cfg(feature = "sync")]
pub mod sync;
pub mod tool;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use error::{Error, Result};
