//! Retrieval benchmark, natively: `cargo bench --bench retrieval`.
//! Needs `../shared/fixtures/embeddings` (53,901 MiniLM vectors); says so and
//! stops when they are missing. `cargo bench --bench retrieval -- exact`
//! measures exact search alone (no index build).

#[path = "../tests/shared_fixtures/mod.rs"]
mod shared_fixtures;

#[path = "../tests/bench_support/figures.rs"]
mod figures;
#[path = "../tests/bench_support/retrieval.rs"]
mod retrieval;

use std::time::Instant;

fn main() {
    let Some(all) = shared_fixtures::minilm(usize::MAX) else {
        println!("SKIPPED: the MiniLM fixture embeddings are not available");
        return;
    };
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    println!(
        "Retrieval, native ({} threads for the HNSW build)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let build_index = !std::env::args().any(|arg| arg == "exact");
    for n in [10_000, all.len()] {
        let (corpus, queries) = retrieval::corpus_and_queries(&all, n);
        for line in retrieval::run(&corpus, &queries, build_index, &now) {
            println!("{line}");
        }
    }
    for line in retrieval::run_crossover(&all, &[512, 1_024, 2_048, 4_096, 8_192], &now) {
        println!("{line}");
    }
}
