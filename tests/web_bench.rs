//! SSE parse throughput in headless Chromium. A benchmark, not a test: it is
//! `#[ignore]`d and run by `npm run bench` with `--include-ignored`.
#![cfg(target_arch = "wasm32")]

mod bench_support;

use bench_support::{line, openai_stream, parse_and_decode, parse_only, single_line_event, CHUNK_SIZES};
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
        let ms = best_of_three(|| assert!(parse_and_decode(&stream, chunk) > 100_000));
        report(line(
            "OpenAI stream, SSE parse + JSON decode",
            chunk,
            stream.len(),
            ms,
        ));
        let ms = best_of_three(|| assert_eq!(parse_only(&big, chunk).0, 1));
        report(line("8 MiB single-line event, SSE parse", chunk, big.len(), ms));
    }
}
