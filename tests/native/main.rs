//! The native tests: one binary (each test file used to link its own,
//! the larger part of `npm test`'s compile time). A file a concern, as
//! `tests/native/<concern>.rs`; the harnesses and fixtures they share sit in
//! `tests/support/` (the folder the benches and the browser tests mount too).
//! Run one concern with `cargo test --test native <concern>::`.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../support/mod.rs"]
mod support;

mod agent;
mod approvals;
mod approvals_more;
mod books;
mod budget;
mod builtin_tools;
mod bundle;
mod context;
mod context_summary;
mod cut_off;
mod decoder_threads;
mod defaults;
mod egress;
mod epub_props;
mod exact_search;
mod fuzz_props;
mod fuzz_regressions;
mod gemma_decoder;
mod gemma_tokenizer;
mod ingest_job;
mod lexical;
mod lexical_eval;
mod lexical_first;
mod local;
mod local_decoder;
mod local_models;
mod minilm_encoder;
mod minilm_tokenizer;
mod one_shot;
mod open_options;
mod output_tokens;
mod pages;
mod policy;
mod portability;
mod prepared;
mod providers;
mod quoted_answers;
mod quoted_props;
mod quoted_turns;
mod reader_eval;
mod reasoning;
mod replay;
mod resume;
mod review;
mod sentence_gate;
mod snapshot;
mod sources;
mod spoiler_guard;
mod sse_fuzz;
mod storage_faults;
mod store;
mod structured;
mod sync;
mod sync_server;
mod tabs;
mod tagged_options;
mod text_props;
mod token_estimate;
mod tool_cache;
mod tool_results;
mod turn;
mod weather;
