//! Retrieval benchmark, natively: `cargo bench --bench retrieval`.
//! Needs `../shared/fixtures/embeddings` (53,901 MiniLM vectors); says so and
//! stops when they are missing. `cargo bench --bench retrieval -- exact`
//! measures exact search alone (no index build).
//!
//! The snapshot of the index it builds over every vector goes to
//! `bench/cache/` (or `$LECTERN_BENCH_CACHE_DIR`), named for its vectors and
//! settings: the browser benchmark (`tests/web_bench.rs`) loads it there to
//! time queries at 53,901, an index it cannot build in the page.

#[path = "../tests/support/mod.rs"]
mod support;

use support::bench::retrieval;
use support::shared_fixtures;

use std::path::PathBuf;
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
        let (lines, snapshot) = retrieval::run(&corpus, &queries, build_index, &now);
        for line in lines {
            println!("{line}");
        }
        if let (Some(snapshot), true) = (snapshot, n == all.len()) {
            cache_snapshot(&retrieval::snapshot_name(&corpus), &snapshot);
        }
    }
    if build_index {
        for line in retrieval::run_crossover(&all, &now) {
            println!("{line}");
        }
    }
}

/// Writes `snapshot` to the cache folder the browser benchmark reads.
fn cache_snapshot(name: &str, snapshot: &[u8]) {
    let dir = std::env::var_os("LECTERN_BENCH_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/cache"));
    let path = dir.join(name);
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, snapshot)) {
        Ok(()) => println!("  snapshot cached for the browser bench: {}", path.display()),
        Err(error) => println!("  snapshot not cached ({}): {error}", path.display()),
    }
}
