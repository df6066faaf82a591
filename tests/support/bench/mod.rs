//! The benchmarks' bodies, shared by the native benches (`benches/*.rs`) and
//! their browser twin (`tests/web_bench.rs`), and the figure lines every
//! benchmark prints.

pub mod agent_loop;
pub mod context;
pub mod figures;
pub mod minilm;
pub mod retrieval;
pub mod sse;
