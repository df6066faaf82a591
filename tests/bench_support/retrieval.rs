//! The retrieval benchmark, shared by the native and the browser runs:
//! index build, snapshot, query latency and recall against exact search,
//! exact-search latency (f32 prefix scan, int8 scan with f32 re-rank, the
//! filtered heap scan, scalar), int8 recall, memory.
#![allow(dead_code)]

use super::figures::{env, figure};
use lectern::retrieval::index::{IndexSettings, VectorIndex};
use lectern::retrieval::quantized::QuantizedSet;
use lectern::retrieval::scan::{quantized_top_k, scan_top_k, RERANK_FACTOR};
use lectern::retrieval::vector::{dot_scalar, exact_top_k, top_k_with, Hit, VectorSet};

/// Splits `all` into a corpus of its first `n` rows (minus queries) and 200 queries taken from the rest.
pub fn corpus_and_queries(all: &VectorSet, n: usize) -> (VectorSet, VectorSet) {
    let mut corpus = VectorSet::new(all.dims());
    let mut queries = VectorSet::new(all.dims());
    let n = n.min(all.len());
    for i in 0..n {
        corpus.push(all.get(i));
    }
    // Queries: rows outside the corpus if there are any, else every 271st row of it.
    let step = 271;
    let mut i = if n < all.len() { n } else { 7 };
    while queries.len() < 200 && i < all.len() {
        queries.push(all.get(i));
        i += if n < all.len() { 1 } else { step };
    }
    (corpus, queries)
}

/// Percentile of sorted timings.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

/// Runs the measurements and returns report lines; `now` reads a millisecond clock.
pub fn run(corpus: &VectorSet, queries: &VectorSet, build_index: bool, now: &dyn Fn() -> f64) -> Vec<String> {
    let (mut lines, exact) = run_exact(corpus, queries, now);
    if build_index {
        lines.extend(run_index(corpus, queries, &exact, now));
    }
    lines
}

/// p50 and p99 in milliseconds of `search` over every query, and its results.
fn timed(
    queries: &VectorSet,
    now: &dyn Fn() -> f64,
    mut search: impl FnMut(&[f32]) -> Vec<Hit>,
) -> (f64, f64, Vec<Vec<Hit>>) {
    let mut results = Vec::new();
    let mut timings = Vec::new();
    for q in 0..queries.len() {
        let start = now();
        let hits = search(queries.get(q));
        timings.push(now() - start);
        results.push(hits);
    }
    timings.sort_by(f64::total_cmp);
    (percentile(&timings, 0.5), percentile(&timings, 0.99), results)
}

/// Share of the exact top-10 found, and how many result lists are identical.
fn recall(exact: &[Vec<Hit>], found: &[Vec<Hit>]) -> (f64, usize) {
    let mut hits = 0;
    let mut total = 0;
    for (e, f) in exact.iter().zip(found) {
        hits += f.iter().filter(|h| e.iter().any(|x| x.index == h.index)).count();
        total += e.len();
    }
    let same = exact.iter().zip(found).filter(|(e, f)| e == f).count();
    (hits as f64 / total.max(1) as f64, same)
}

/// The exact-search half: report lines and each query's exact top 10.
pub fn run_exact(
    corpus: &VectorSet,
    queries: &VectorSet,
    now: &dyn Fn() -> f64,
) -> (Vec<String>, Vec<Vec<usize>>) {
    let mut lines = Vec::new();
    let n = corpus.len();
    let mib = |bytes: usize| bytes as f64 / 1048576.0;
    lines.push(format!(
        "corpus {n} × {}-d, {} queries, k = 10",
        corpus.dims(),
        queries.len()
    ));
    lines.push(format!(
        "  vectors in memory: {:.1} MiB (f32) + {:.1} MiB (int8 copy)",
        mib(n * corpus.dims() * 4),
        mib(corpus.quantized().as_flat().len() + corpus.quantized().scales().len() * 4)
    ));
    let start = now();
    let mut copy = QuantizedSet::new(corpus.dims());
    (0..n).for_each(|i| copy.push(corpus.get(i)));
    lines.push(format!("  int8 copy made in {:.0} ms", now() - start));
    assert_eq!(&copy, corpus.quantized());
    let (p50, p99, exact) = timed(queries, now, |q| scan_top_k(corpus, q, 10, n));
    lines.push(format!(
        "  exact search f32 (prefix scan, simd dot): p50 {p50:.2} ms, p99 {p99:.2} ms"
    ));
    lines.push(figure(&format!("exact_p50_{n}"), env(), p50));
    lines.push(figure(&format!("exact_p99_{n}"), env(), p99));
    let (p50, p99, found) = timed(queries, now, |q| quantized_top_k(corpus, q, 10, n, RERANK_FACTOR));
    let (found, same) = recall(&exact, &found);
    lines.push(figure(&format!("int8_p50_{n}"), env(), p50));
    lines.push(figure(&format!("int8_recall_{n}"), env(), found));
    lines.push(format!(
        "  exact search int8 + f32 re-rank of {}: p50 {p50:.2} ms, p99 {p99:.2} ms, recall@10 {found:.4}, {same}/{} lists identical",
        10 * RERANK_FACTOR,
        queries.len()
    ));
    let by_factor: Vec<String> = [1, 2, 4, 8]
        .into_iter()
        .map(|r| {
            let (_, _, found) = timed(queries, now, |q| quantized_top_k(corpus, q, 10, n, r));
            let (found, same) = recall(&exact, &found);
            format!("R={r} {found:.4} ({same} identical)")
        })
        .collect();
    lines.push(format!(
        "  int8 recall@10 by re-rank factor: {}",
        by_factor.join(", ")
    ));
    let (p50, p99, _) = timed(queries, now, |q| exact_top_k(corpus, q, 10, |_| true));
    lines.push(format!(
        "  exact search f32 (per-vector filter, heap): p50 {p50:.2} ms, p99 {p99:.2} ms"
    ));
    let mut scalar = Vec::new();
    for q in 0..queries.len().min(50) {
        let start = now();
        let _ = top_k_with(corpus, queries.get(q), 10, |_| true, dot_scalar);
        scalar.push(now() - start);
    }
    scalar.sort_by(f64::total_cmp);
    lines.push(format!(
        "  exact search (scalar dot):     p50 {:.2} ms",
        percentile(&scalar, 0.5)
    ));
    let exact_lists = exact
        .iter()
        .map(|hits| hits.iter().map(|h| h.index).collect())
        .collect();
    (lines, exact_lists)
}

/// The index half: build, snapshot, query latency and recall against `exact_lists`.
pub fn run_index(
    corpus: &VectorSet,
    queries: &VectorSet,
    exact_lists: &[Vec<usize>],
    now: &dyn Fn() -> f64,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mib = |bytes: usize| bytes as f64 / 1048576.0;
    let start = now();
    let index = VectorIndex::build(corpus, IndexSettings::default());
    lines.push(format!(
        "  HNSW build (ef_construction 40): {:.0} ms",
        now() - start
    ));
    let start = now();
    let snapshot = index.to_snapshot();
    let save = now() - start;
    let start = now();
    let index = VectorIndex::from_snapshot(&snapshot, corpus.len()).expect("load");
    let load = now() - start;
    lines.push(format!(
        "  snapshot (graph and ids, no vectors): {:.2} MiB, encode {save:.0} ms, decode {load:.0} ms",
        mib(snapshot.len())
    ));
    let mut found = 0;
    let mut timings = Vec::new();
    for (q, exact) in exact_lists.iter().enumerate().take(queries.len()) {
        let start = now();
        let hits = index
            .search(corpus, queries.get(q), 10, |_| true)
            .expect("top 10");
        timings.push(now() - start);
        found += hits.iter().filter(|h| exact.contains(&h.index)).count();
    }
    timings.sort_by(f64::total_cmp);
    lines.push(format!(
        "  HNSW query (ef_search 100): p50 {:.3} ms, p99 {:.3} ms, recall@10 {:.3}",
        percentile(&timings, 0.5),
        percentile(&timings, 0.99),
        found as f64 / (queries.len() * 10) as f64
    ));
    lines
}
