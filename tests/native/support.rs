//! Harnesses, fixtures and evaluations the native tests share with the
//! benches and the browser tests (their files stay where those include them).

#[path = "../conformance/mod.rs"]
pub mod conformance;
#[path = "../bench_support/figures.rs"]
pub mod figures;
#[path = "../fuzz_props/mod.rs"]
pub mod fuzz_props;
#[path = "../harness/mod.rs"]
pub mod harness;
#[path = "../store_support/hooked_store.rs"]
pub mod hooked_store;
#[path = "../bench_support/lexical_eval.rs"]
pub mod lexical_eval;
#[path = "../local_kernels/mod.rs"]
pub mod local_kernels;
#[path = "../bench_support/minilm.rs"]
pub mod minilm_bench;
#[path = "../bench_support/minilm_env.rs"]
pub mod minilm_env;
#[path = "../prop_config/mod.rs"]
pub mod prop_config;
#[path = "../bench_support/reader_eval.rs"]
pub mod reader_eval;
#[path = "../shared_fixtures/mod.rs"]
pub mod shared_fixtures;
#[path = "../unicode_books/mod.rs"]
pub mod unicode_books;
