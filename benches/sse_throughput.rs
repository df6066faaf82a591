//! SSE parse throughput, natively: `cargo bench --bench sse_throughput`.
//! Prints MB/s for a ~10 MB OpenAI stream and an 8 MiB single-line event, fed
//! in 1-, 64- and 1,460-byte chunks (best of three runs).

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Instant;

use support::bench::figures;
use support::bench::sse::{
    line, mb_s, openai_stream, parse_and_decode, parse_only, single_line_event, CHUNK_SIZES,
};

fn best_of_three(mut run: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64() * 1000.0
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let stream = openai_stream(10_000_000);
    let big = single_line_event(8 * 1024 * 1024);
    println!(
        "SSE throughput, native ({} MB stream, {} MiB single-line event)",
        stream.len() / 1_000_000,
        big.len() >> 20
    );
    for chunk in CHUNK_SIZES {
        let ms = best_of_three(|| assert!(parse_only(&stream, chunk).0 > 10_000));
        println!("{}", line("OpenAI stream, SSE parse", chunk, stream.len(), ms));
        if chunk == 1460 {
            println!(
                "{}",
                figures::figure("sse_parse", "native", mb_s(stream.len(), ms))
            );
        }
        let ms = best_of_three(|| assert!(parse_and_decode(&stream, chunk) > 100_000));
        println!(
            "{}",
            line("OpenAI stream, SSE parse + JSON decode", chunk, stream.len(), ms)
        );
        if chunk == 1460 {
            println!(
                "{}",
                figures::figure("sse_decode", "native", mb_s(stream.len(), ms))
            );
        }
        let ms = best_of_three(|| assert_eq!(parse_only(&big, chunk).0, 1));
        println!(
            "{}",
            line("8 MiB single-line event, SSE parse", chunk, big.len(), ms)
        );
    }
}
