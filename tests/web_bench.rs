//! SSE parse throughput, retrieval and context per step in headless Chromium.
//! A benchmark, not a test: it is `#[ignore]`d and run by `npm run bench`
//! with `--include-ignored`.
#![cfg(target_arch = "wasm32")]

mod support;

use lectern::storage::BookWrite;
use support::bench::sse::{
    line, mb_s, openai_stream, parse_and_decode, parse_only, single_line_event, CHUNK_SIZES,
};
use support::bench::{agent_loop, context, figures, minilm, retrieval};
use support::{shared_fixtures, web};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).unwrap();
    let now: js_sys::Function = js_sys::Reflect::get(&performance, &"now".into()).unwrap().into();
    now.call0(&performance).unwrap().as_f64().unwrap()
}

fn best_of_three(mut run: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let start = now_ms();
            run();
            now_ms() - start
        })
        .fold(f64::INFINITY, f64::min)
}

fn report(text: String) {
    web_sys::console::log_1(&text.into());
}

#[wasm_bindgen_test]
#[ignore]
fn sse_throughput_in_chromium() {
    let stream = openai_stream(10_000_000);
    let big = single_line_event(8 * 1024 * 1024);
    report(format!(
        "SSE throughput, wasm in headless Chromium ({} MB stream, {} MiB single-line event)",
        stream.len() / 1_000_000,
        big.len() >> 20
    ));
    for chunk in CHUNK_SIZES {
        let ms = best_of_three(|| assert!(parse_only(&stream, chunk).0 > 10_000));
        report(line("OpenAI stream, SSE parse", chunk, stream.len(), ms));
        if chunk == 1460 {
            report(figures::figure("sse_parse", "chromium", mb_s(stream.len(), ms)));
        }
        let ms = best_of_three(|| assert!(parse_and_decode(&stream, chunk) > 100_000));
        report(line(
            "OpenAI stream, SSE parse + JSON decode",
            chunk,
            stream.len(),
            ms,
        ));
        if chunk == 1460 {
            report(figures::figure("sse_decode", "chromium", mb_s(stream.len(), ms)));
        }
        let ms = best_of_three(|| assert_eq!(parse_only(&big, chunk).0, 1));
        report(line("8 MiB single-line event, SSE parse", chunk, big.len(), ms));
    }
}

/// Fetches the MiniLM fixture vectors through the mock server (`npm run bench` serves them).
async fn fixture_vectors() -> Option<lectern::retrieval::vectors::vector::VectorSet> {
    let base = option_env!("LECTERN_FIXTURES_URL")?;
    let bytes = web::fetch_bytes(&format!("{base}/embeddings/gutenberg-minilm-384.f16")).await?;
    let rows = bytes.len() / (384 * 2);
    // Decode through a lookup table, a slice at a time, yielding in between:
    // the driver gives up on a page busy for ~15 s.
    let table: Vec<f32> = (0..=u16::MAX).map(shared_fixtures::f16_to_f32).collect();
    let mut set = lectern::retrieval::vectors::vector::VectorSet::new(384);
    let mut row = vec![0.0f32; 384];
    for r in 0..rows {
        for (d, value) in row.iter_mut().enumerate() {
            let at = (r * 384 + d) * 2;
            *value = table[u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize];
        }
        set.push(&row);
        if r % 5_000 == 4_999 {
            web::sleep(0).await;
        }
    }
    Some(set)
}

#[wasm_bindgen_test]
#[ignore]
async fn minilm_in_chromium() {
    let (Some(models), Some(fixtures)) = (
        option_env!("LECTERN_MODELS_URL"),
        option_env!("LECTERN_FIXTURES_URL"),
    ) else {
        report("SKIPPED: MiniLM benchmark needs LECTERN_MODELS_URL and LECTERN_FIXTURES_URL".into());
        return;
    };
    let Some((tokenizer, encoder, sentences, reference)) = web::minilm::load(models, fixtures, 2000).await
    else {
        report("SKIPPED: MiniLM benchmark: the model or the fixtures are not served".into());
        return;
    };
    report("MiniLM, wasm (simd128) in headless Chromium, one thread".into());
    let found = web::minilm::check(&tokenizer, &encoder, &sentences, &reference).await;
    // Ten chunks at a time, yielding in between: one synchronous run of all would outlast the driver.
    let chunks = minilm::chunks(&sentences, 5000, 800, 100);
    let (mut ms, mut tokens) = (0.0, 0);
    for slice in chunks.chunks(10) {
        let (speed, count) = minilm::speed(&tokenizer, &encoder, slice, &now_ms);
        ms += count as f64 / speed * 1000.0;
        tokens += count;
        web::sleep(0).await;
    }
    let speed = tokens as f64 / ms * 1000.0;
    minilm::report(found.rows, found.min, found.mean, speed, tokens, chunks.len())
        .into_iter()
        .for_each(report);
}

#[wasm_bindgen_test]
#[ignore]
async fn retrieval_in_chromium() {
    use lectern::storage::{BookStore, BookWrite};
    use lectern::web::IndexedDbStore;
    let Some(all) = fixture_vectors().await else {
        report("SKIPPED: retrieval benchmark needs LECTERN_FIXTURES_URL serving ../shared/fixtures".into());
        return;
    };
    report(format!(
        "Retrieval, wasm (simd128) in headless Chromium, {} MiniLM vectors",
        all.len()
    ));
    // One synchronous step must stay under the driver's ~15 s patience: yield between steps.
    let (small, queries) = retrieval::corpus_and_queries(&all, 10_000);
    let (lines, exact) = retrieval::run_exact(&small, &queries, &now_ms);
    lines.into_iter().for_each(report);
    web::sleep(0).await;
    // `LECTERN_BENCH_EXACT_ONLY` (not empty) at build time skips the indexes (builds
    // of seconds in one synchronous call, which a busy machine's driver may give up on).
    if option_env!("LECTERN_BENCH_EXACT_ONLY").is_none_or(str::is_empty) {
        retrieval::run_index(&small, &queries, &exact, &now_ms)
            .0
            .into_iter()
            .for_each(report);
        web::sleep(0).await;
        report(cold_start_with_index(&small, &queries).await);
        web::sleep(0).await;
        let (medium, queries) = retrieval::corpus_and_queries(&all, 20_000);
        let (lines, exact) = retrieval::run_exact(&medium, &queries, &now_ms);
        lines.into_iter().for_each(report);
        web::sleep(0).await;
        retrieval::run_index(&medium, &queries, &exact, &now_ms)
            .0
            .into_iter()
            .for_each(report);
        web::sleep(0).await;
        report(cold_start_with_index(&medium, &queries).await);
        web::sleep(0).await;
    }
    let (full, queries) = retrieval::corpus_and_queries(&all, all.len());
    let (lines, exact) = retrieval::run_exact(&full, &queries, &now_ms);
    lines.into_iter().for_each(report);
    web::sleep(0).await;
    if option_env!("LECTERN_BENCH_EXACT_ONLY").is_none_or(str::is_empty) {
        index_from_native_snapshot(&full, &queries, &exact).await;
        crossover(&all).await;
    }

    // Cold start of an exact-searched book of every vector: open the database, read it, answer.
    let name = format!("bench-{}", js_sys::Date::now() as u64);
    let (book, chunks) = bench_book(full.len());
    let store = IndexedDbStore::open(&name).await.unwrap();
    let start = now_ms();
    store
        .put_book(BookWrite::new(&book, &chunks, full.rows()))
        .await
        .unwrap();
    report(format!(
        "  IndexedDB write of {} vectors and chunks: {:.0} ms",
        full.len(),
        now_ms() - start
    ));
    store.close();
    drop(store);
    let start = now_ms();
    let store = IndexedDbStore::open(&name).await.unwrap();
    let (_, rows) = store.book_content("bench").await.unwrap();
    let vectors = lectern::retrieval::vectors::vector::VectorSet::from(rows);
    let read = now_ms() - start;
    let hits = lectern::retrieval::vectors::scan::quantized_top_k(
        &vectors,
        queries.get(0),
        10,
        vectors.len(),
        lectern::retrieval::vectors::scan::RERANK_FACTOR,
    );
    let cold = now_ms() - start;
    report(format!(
        "  cold start (open → read {} vectors, int8 copy made → first exact top-10): {cold:.0} ms (read {read:.0} ms)",
        vectors.len(),
    ));
    report(figures::figure(
        &format!("cold_start_{}", vectors.len()),
        "chromium",
        cold,
    ));
    assert_eq!(hits.len(), 10);
    store.close();
    drop(store);
    IndexedDbStore::delete_database(&name).await.unwrap();
}

/// Query latency and recall of the index over every vector, loaded from the
/// snapshot the native bench cached (`bench/cache/`, served by the mock
/// server under `/cache`): one synchronous build of 53,901 outlasts the
/// driver's renderer timeout (30 s), and the worker that builds it for
/// `addBook` is timed by `benches/worker_index.mjs`.
async fn index_from_native_snapshot(
    full: &lectern::retrieval::vectors::vector::VectorSet,
    queries: &lectern::retrieval::vectors::vector::VectorSet,
    exact: &[Vec<usize>],
) {
    use lectern::retrieval::index::VectorIndex;
    let name = retrieval::snapshot_name(full);
    let Some(bytes) = cached_snapshot(&name).await else {
        report(format!(
            "SKIPPED: HNSW at {}: no cached snapshot {name} (LECTERN_BENCH_CACHE_URL serving bench/cache, written by `cargo bench --bench retrieval`)",
            full.len()
        ));
        return;
    };
    let start = now_ms();
    let index = match VectorIndex::from_snapshot(&bytes, full.len()) {
        Ok(index) => index,
        Err(error) => {
            report(format!(
                "SKIPPED: HNSW at {}: the cached snapshot {name} does not load: {error}",
                full.len()
            ));
            return;
        }
    };
    report(format!(
        "  HNSW at {}: built natively by the retrieval bench, snapshot {name} ({:.2} MiB) decoded in {:.0} ms",
        full.len(),
        bytes.len() as f64 / 1048576.0,
        now_ms() - start
    ));
    web::sleep(0).await;
    retrieval::measure_index(index, full, queries, exact, &now_ms)
        .into_iter()
        .for_each(report);
    web::sleep(0).await;
}

/// The snapshot `name` from the bench cache, if it is served.
async fn cached_snapshot(name: &str) -> Option<Vec<u8>> {
    let base = option_env!("LECTERN_BENCH_CACHE_URL")?;
    web::fetch_bytes(&format!("{base}/{name}")).await
}

/// Exact scan against index query p50 at each crossover size (builds of
/// under a second or two each), yielding between sizes, then the summary line.
async fn crossover(all: &lectern::retrieval::vectors::vector::VectorSet) {
    report(format!(
        "crossover, k = 10 (p50 of 200 queries; performance.now() resolution {:.3} ms):",
        clock_resolution()
    ));
    let mut points = Vec::new();
    for n in retrieval::CROSSOVER_SIZES {
        if let Some(point) = retrieval::crossover_at(all, n, &now_ms) {
            retrieval::crossover_lines(n, point).into_iter().for_each(report);
            points.push((n, point));
        }
        web::sleep(0).await;
    }
    report(retrieval::crossover_table(&points));
}

/// The smallest step `performance.now()` takes (browsers coarsen it).
fn clock_resolution() -> f64 {
    let mut smallest = f64::INFINITY;
    for _ in 0..20 {
        let start = now_ms();
        let mut next = now_ms();
        while next == start {
            next = now_ms();
        }
        smallest = smallest.min(next - start);
    }
    smallest
}

/// A book of `vectors` stored with its index snapshot, then opened cold:
/// open the database, read the vectors and the snapshot, decode it, answer
/// a top-10 through the index.
async fn cold_start_with_index(
    vectors: &lectern::retrieval::vectors::vector::VectorSet,
    queries: &lectern::retrieval::vectors::vector::VectorSet,
) -> String {
    use lectern::retrieval::index::{settings::IndexSettings, VectorIndex};
    use lectern::storage::BookStore;
    use lectern::web::IndexedDbStore;
    let snapshot = VectorIndex::build(vectors, IndexSettings::default()).to_snapshot();
    web::sleep(0).await;
    let name = format!("bench-index-{}", js_sys::Date::now() as u64);
    let (book, chunks) = bench_book(vectors.len());
    let store = IndexedDbStore::open(&name).await.unwrap();
    store
        .put_book(BookWrite {
            index_snapshot: Some(&snapshot),
            ..BookWrite::new(&book, &chunks, vectors.rows())
        })
        .await
        .unwrap();
    store.close();
    drop(store);
    let start = now_ms();
    let store = IndexedDbStore::open(&name).await.unwrap();
    let (_, rows) = store.book_content("bench").await.unwrap();
    let read = lectern::retrieval::vectors::vector::VectorSet::from(rows);
    let bytes = store.index_snapshot("bench").await.unwrap().unwrap();
    let index = VectorIndex::from_snapshot(&bytes, read.len()).unwrap();
    let hits = index.search(&read, queries.get(0), 10, |_| true).unwrap();
    let line = format!(
        "  cold start with the index (open → read {} vectors and the snapshot → first index top-10): {:.0} ms",
        read.len(),
        now_ms() - start
    );
    assert_eq!(hits.len(), 10);
    store.close();
    drop(store);
    IndexedDbStore::delete_database(&name).await.unwrap();
    line
}

#[wasm_bindgen_test]
#[ignore]
async fn context_per_step_in_chromium() {
    use lectern::web::IndexedDbStore;
    report("Context per step, wasm in headless Chromium (IndexedDB; median of 50)".into());
    let name = format!("bench-context-{}", js_sys::Date::now() as u64);
    let store = IndexedDbStore::open(&name).await.unwrap();
    for line in context::run(&store, &now_ms, 50, "chromium").await {
        report(line);
    }
    store.close();
    drop(store);
    IndexedDbStore::delete_database(&name).await.unwrap();
}

#[wasm_bindgen_test]
#[ignore]
async fn agent_loop_in_chromium() {
    use lectern::web::BrowserClock;
    use lectern::web::IndexedDbStore;
    use std::rc::Rc;
    report("Agent loop and store, wasm in headless Chromium (IndexedDB)".into());
    let name = format!("bench-loop-{}", js_sys::Date::now() as u64);
    let store = Rc::new(IndexedDbStore::open(&name).await.unwrap());
    let (step, line) = agent_loop::per_step(store.clone(), Rc::new(BrowserClock), &now_ms, 100).await;
    report(line);
    report(figures::figure("agent_step", "chromium", step));
    let (append, load, lines) = agent_loop::store_figures(store.as_ref(), &now_ms, 100).await;
    lines.into_iter().for_each(report);
    report(figures::figure("store_append", "chromium", append));
    report(figures::figure("store_load_1000", "chromium", load));
    store.close();
    drop(store);
    IndexedDbStore::delete_database(&name).await.unwrap();
}

/// A book record of `n` empty one-page chunks, to store `n` bench vectors under.
fn bench_book(n: usize) -> (lectern::domain::Book, Vec<lectern::domain::Chunk>) {
    let chunks = (0..n)
        .map(|i| lectern::domain::Chunk {
            ordinal: i as u32,
            text: String::new(),
            start_page: 1,
            end_page: 1,
            chapter: None,
        })
        .collect();
    let book = lectern::domain::Book {
        id: "bench".into(),
        title: "bench".into(),
        author: None,
        page_count: 1,
        chunk_count: n as u32,
        current_page: 1,
        embedder: "minilm".into(),
        dimensions: 384,
        chapters: Vec::new(),
        created_at: 0.0,
    };
    (book, chunks)
}
