//! The retrieval benchmark, shared by the native and the browser runs:
//! index build, snapshot, query latency and recall against exact search,
//! exact-search latency (f32 prefix scan, int8 scan with f32 re-rank, the
//! filtered heap scan, scalar), int8 recall, memory.
#![allow(dead_code)]

use super::figures::{env, figure};
use lectern::retrieval::index::{settings::IndexSettings, VectorIndex};
use lectern::retrieval::vectors::quantized::QuantizedSet;
use lectern::retrieval::vectors::scan::{quantized_top_k, scan_top_k, RERANK_FACTOR};
use lectern::retrieval::vectors::vector::{dot_scalar, exact_top_k, top_k_with, Hit, VectorSet};

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

/// Runs the measurements; returns report lines and, if it built one, the
/// index's snapshot. `now` reads a millisecond clock.
pub fn run(
    corpus: &VectorSet,
    queries: &VectorSet,
    build_index: bool,
    now: &dyn Fn() -> f64,
) -> (Vec<String>, Option<Vec<u8>>) {
    let (mut lines, exact) = run_exact(corpus, queries, now);
    if !build_index {
        return (lines, None);
    }
    let (index_lines, snapshot) = run_index(corpus, queries, &exact, now);
    lines.extend(index_lines);
    (lines, Some(snapshot))
}

/// The file name under which the snapshot of the default-settings index of
/// `corpus` is cached for the browser benchmark (`bench/cache/`): the corpus
/// size and a digest of the settings and of every vector, so a snapshot is
/// only ever loaded for the very vectors and settings it was built with.
pub fn snapshot_name(corpus: &VectorSet) -> String {
    let settings = format!("{:?}", IndexSettings::default());
    let words = settings.bytes().map(u32::from);
    let vectors = (0..corpus.len()).flat_map(|i| corpus.get(i).iter().map(|v| v.to_bits()));
    let digest = fnv(words.chain(vectors));
    format!("hnsw-{}x{}-{digest:016x}.snapshot", corpus.len(), corpus.dims())
}

/// FNV-1a (64-bit) over `words`: a digest to tell inputs or snapshots apart.
fn fnv(words: impl Iterator<Item = u32>) -> u64 {
    words.fold(0xcbf2_9ce4_8422_2325, |digest, word| {
        (digest ^ u64::from(word)).wrapping_mul(0x100_0000_01b3)
    })
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

/// The index half: build, snapshot, then [`measure_index`]; returns the
/// report lines and the snapshot.
pub fn run_index(
    corpus: &VectorSet,
    queries: &VectorSet,
    exact_lists: &[Vec<usize>],
    now: &dyn Fn() -> f64,
) -> (Vec<String>, Vec<u8>) {
    let mut lines = Vec::new();
    let mib = |bytes: usize| bytes as f64 / 1048576.0;
    let settings = IndexSettings::default();
    let n = corpus.len();
    let start = now();
    let index = VectorIndex::build(corpus, settings);
    let build_ms = now() - start;
    lines.push(format!(
        "  HNSW build (int8; ef_construction {}, heuristic {}, keep pruned {}, ml {:.3}): {build_ms:.0} ms",
        settings.ef_construction, settings.heuristic, settings.keep_pruned, settings.ml,
    ));
    lines.push(figure(&format!("ann_build_{n}"), env(), build_ms / 1000.0));
    let start = now();
    let snapshot = index.to_snapshot();
    let save = now() - start;
    let start = now();
    let index = VectorIndex::from_snapshot(&snapshot, corpus.len()).expect("load");
    let load = now() - start;
    lines.push(format!(
        "  snapshot (graph and ids, no vectors): {:.2} MiB, encode {save:.0} ms, decode {load:.0} ms, digest {:016x}",
        mib(snapshot.len()),
        fnv(snapshot.iter().map(|&b| u32::from(b)))
    ));
    lines.extend(measure_index(index, corpus, queries, exact_lists, now));
    (lines, snapshot)
}

/// Query latency, recall against `exact_lists`, memory, and the speed-up
/// over exact search timed in the same run, of an index of `corpus`: with
/// the default `ef_search`, then with others.
pub fn measure_index(
    mut index: VectorIndex,
    corpus: &VectorSet,
    queries: &VectorSet,
    exact_lists: &[Vec<usize>],
    now: &dyn Fn() -> f64,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mib = |bytes: usize| bytes as f64 / 1048576.0;
    let settings = IndexSettings::default();
    let n = corpus.len();
    let exact_p50 = exact_p50(corpus, queries, now);
    for ef in [settings.ef_search, 64, 96, 160] {
        index.set_ef_search(ef);
        let (p50, p99, recall) = query_index(&index, corpus, queries, exact_lists, now);
        lines.push(format!(
            "  HNSW query (ef {ef}{}): p50 {p50:.3} ms, p99 {p99:.3} ms, recall@10 {recall:.3}, {:.1}× exact (p50 {exact_p50:.3} ms)",
            if ef == settings.ef_search { ", default" } else { "" },
            exact_p50 / p50,
        ));
        if ef == settings.ef_search {
            lines.push(figure(&format!("ann_p50_{n}"), env(), p50));
            lines.push(figure(&format!("ann_p99_{n}"), env(), p99));
            lines.push(figure(&format!("ann_recall_{n}"), env(), recall));
            lines.push(figure(&format!("ann_speedup_{n}"), env(), exact_p50 / p50));
        }
    }
    let vectors = corpus.len() * corpus.dims() * 4;
    let int8 = corpus.quantized().bytes();
    let ratio = (vectors + int8 + index.bytes()) as f64 / vectors as f64;
    lines.push(format!(
        "  memory: vectors {:.2} MiB (f32, held once) + their int8 copy {:.2} MiB (shared by exact search and the index) + index {:.2} MiB (graph {:.2} MiB, {:.1} links/node on layer zero; scratch {:.2} MiB) = {ratio:.3}× the vectors",
        mib(vectors),
        mib(int8),
        mib(index.bytes()),
        mib(index.graph().bytes()),
        index.graph().zero.links.len() as f64 / index.graph().len().max(1) as f64,
        mib(index.bytes() - index.graph().bytes()),
    ));
    lines.push(figure(&format!("ann_memory_{n}"), env(), ratio));
    lines
}

/// Median exact search time over `queries` (the f32 prefix scan), timed now.
fn exact_p50(corpus: &VectorSet, queries: &VectorSet, now: &dyn Fn() -> f64) -> f64 {
    let mut timings: Vec<f64> = (0..queries.len())
        .map(|q| {
            let start = now();
            std::hint::black_box(scan_top_k(corpus, queries.get(q), 10, corpus.len()));
            now() - start
        })
        .collect();
    timings.sort_by(f64::total_cmp);
    percentile(&timings, 0.5)
}

/// Index query p50 and p99 (ms) and recall@10 against `exact_lists`.
fn query_index(
    index: &VectorIndex,
    corpus: &VectorSet,
    queries: &VectorSet,
    exact_lists: &[Vec<usize>],
    now: &dyn Fn() -> f64,
) -> (f64, f64, f64) {
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
    let recall = found as f64 / (queries.len() * 10) as f64;
    (percentile(&timings, 0.5), percentile(&timings, 0.99), recall)
}

/// The corpus sizes of the crossover measurement (where the index starts to win).
pub const CROSSOVER_SIZES: [usize; 5] = [512, 1_024, 2_048, 4_096, 8_192];

/// One crossover point: exact scan and index query p50 (ms) and the index's
/// recall@10 on the first `n` vectors of `all` (200 held-out queries), the
/// index built with the defaults; `None` if `all` has no more than `n`.
pub fn crossover_at(all: &VectorSet, n: usize, now: &dyn Fn() -> f64) -> Option<(f64, f64, f64)> {
    if n >= all.len() {
        return None;
    }
    let (corpus, queries) = corpus_and_queries(all, n);
    let exact: Vec<Vec<usize>> = (0..queries.len())
        .map(|q| {
            let hits = exact_top_k(&corpus, queries.get(q), 10, |_| true);
            hits.iter().map(|h| h.index).collect()
        })
        .collect();
    let index = VectorIndex::build(&corpus, IndexSettings::default());
    let exact_p50 = exact_p50(&corpus, &queries, now);
    let (p50, _, recall) = query_index(&index, &corpus, &queries, &exact, now);
    Some((exact_p50, p50, recall))
}

/// The report line and figures of one crossover point (`exact_p50_<n>`,
/// `ann_p50_<n>`, `ann_recall_<n>`, `ann_speedup_<n>`, as at 10,000).
pub fn crossover_lines(n: usize, (exact_p50, p50, recall): (f64, f64, f64)) -> Vec<String> {
    vec![
        format!(
            "  {n:>6} vectors: exact {exact_p50:.3} ms, index {p50:.3} ms (recall@10 {recall:.3}), {:.2}×",
            exact_p50 / p50
        ),
        figure(&format!("exact_p50_{n}"), env(), exact_p50),
        figure(&format!("ann_p50_{n}"), env(), p50),
        figure(&format!("ann_recall_{n}"), env(), recall),
        figure(&format!("ann_speedup_{n}"), env(), exact_p50 / p50),
    ]
}

/// The one-line summary of the crossover points: `n: exact/index p50 (speed-up)`.
pub fn crossover_table(points: &[(usize, (f64, f64, f64))]) -> String {
    let cells: Vec<String> = points
        .iter()
        .map(|(n, (exact, index, _))| format!("{n}: {exact:.3}/{index:.3} ms ({:.2}×)", exact / index))
        .collect();
    format!("crossover ({}), exact/index p50: {}", env(), cells.join(" | "))
}

/// Where the index starts to beat the exact scan: every [`CROSSOVER_SIZES`]
/// point below the size of `all`, then the summary line.
pub fn run_crossover(all: &VectorSet, now: &dyn Fn() -> f64) -> Vec<String> {
    let mut lines = vec!["crossover, k = 10 (p50 of 200 queries):".to_owned()];
    let mut points = Vec::new();
    for n in CROSSOVER_SIZES {
        if let Some(point) = crossover_at(all, n, now) {
            lines.extend(crossover_lines(n, point));
            points.push((n, point));
        }
    }
    lines.push(crossover_table(&points));
    lines
}
