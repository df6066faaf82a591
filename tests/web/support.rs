//! What the browser tests share with each other, the native tests and the
//! benches (the files stay where those include them).

#[path = "../conformance/mod.rs"]
pub mod conformance;
#[path = "../bench_support/figures.rs"]
pub mod figures;
#[path = "../local_kernels/mod.rs"]
pub mod local_kernels;
#[path = "../bench_support/minilm.rs"]
pub mod minilm_bench;
#[path = "../minilm_support/mod.rs"]
pub mod minilm_support;
#[path = "../shared_fixtures/mod.rs"]
pub mod shared_fixtures;
#[path = "../unicode_books/mod.rs"]
pub mod unicode_books;
#[path = "../web_support/mod.rs"]
pub mod web_support;
