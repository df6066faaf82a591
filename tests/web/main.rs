//! The browser tests (wasm-bindgen-test in headless Chromium): one binary,
//! a file a concern, as `tests/web/<concern>.rs`, with what they share in
//! `tests/support/`. `web_panic.rs` and `web_minilm_memory.rs` stay binaries of
//! their own (a panic ends the instance; a memory figure needs a fresh one),
//! and `web_bench.rs` is `npm run bench`'s.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test_configure;

wasm_bindgen_test_configure!(run_in_browser);

#[path = "../support/mod.rs"]
mod support;

mod agent;
mod approvals;
mod books;
mod budget;
mod context;
mod controls;
mod exact_search;
mod lectern;
mod local_kernels;
mod minilm;
mod one_shot;
mod portability;
mod providers;
mod reasoning;
mod record_format;
mod storage_faults;
mod store;
mod subscribe;
mod tabs;
mod timeouts;
