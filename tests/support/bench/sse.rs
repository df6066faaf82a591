//! Inputs and timing shared by the native and the browser SSE benchmarks.
#![allow(dead_code)]

use lectern::provider::openai::ChunkDecoder;
use lectern::provider::sse::{SseEvent, SseParser};
use lectern::provider::sse_body::EventDecoder;
use lectern::provider::StreamPart;

/// A recorded-style OpenAI stream of about `target_bytes`: realistic
/// `chat.completion.chunk` events with one to four words each, then a usage
/// chunk and `[DONE]`.
pub fn openai_stream(target_bytes: usize) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "The",
        " man",
        " who",
        " was",
        " Thursday",
        ",",
        " said",
        " Syme",
        " — ",
        "café",
        " 😀",
        " anarchist.",
    ];
    let mut out = Vec::with_capacity(target_bytes + 1024);
    let mut i = 0usize;
    while out.len() < target_bytes {
        let n = 1 + i % 4;
        let content: String = (0..n).map(|k| WORDS[(i * 7 + k) % WORDS.len()]).collect();
        let chunk = serde_json::json!({
            "id": "chatcmpl-AbCdEf123", "object": "chat.completion.chunk", "created": 1731000000,
            "model": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_0ba0d124f1",
            "choices": [{"index": 0, "delta": {"content": content}, "logprobs": null, "finish_reason": null}]
        });
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(chunk.to_string().as_bytes());
        out.extend_from_slice(b"\n\n");
        i += 1;
    }
    out.extend_from_slice(b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    out.extend_from_slice(b"data: [DONE]\n\n");
    out
}

/// One event whose single `data:` line is `bytes` long (a JSON string).
pub fn single_line_event(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 16);
    out.extend_from_slice(b"data: \"");
    out.extend(std::iter::repeat_n(b'x', bytes.saturating_sub(2)));
    out.extend_from_slice(b"\"\n\n");
    out
}

/// Parses `input` fed in `chunk`-byte pieces; returns the event count and data bytes.
pub fn parse_only(input: &[u8], chunk: usize) -> (usize, usize) {
    let mut parser = SseParser::new();
    let mut events: Vec<SseEvent> = Vec::new();
    let (mut count, mut bytes) = (0, 0);
    for piece in input.chunks(chunk) {
        parser.feed(piece, &mut events).expect("within the cap");
        count += events.len();
        bytes += events.iter().map(|e| e.data.len()).sum::<usize>();
        events.clear();
    }
    (count, bytes)
}

/// Parses and decodes an OpenAI stream into parts; returns the answer length.
pub fn parse_and_decode(input: &[u8], chunk: usize) -> usize {
    let mut parser = SseParser::new();
    let mut decoder = ChunkDecoder::new();
    let mut events = Vec::new();
    let mut parts = Vec::new();
    let mut text = 0;
    for piece in input.chunks(chunk) {
        parser.feed(piece, &mut events).expect("within the cap");
        for event in events.drain(..) {
            decoder.decode(&event, &mut parts).expect("valid stream");
        }
        for part in parts.drain(..) {
            if let StreamPart::TextDelta(t) = part {
                text += t.len();
            }
        }
    }
    text
}

/// The chunk sizes the benchmark reports: one byte, a small write, a TCP segment.
pub const CHUNK_SIZES: [usize; 3] = [1, 64, 1460];

/// Megabytes a second for `bytes` in `ms` milliseconds.
pub fn mb_s(bytes: usize, ms: f64) -> f64 {
    bytes as f64 / 1e6 / (ms / 1e3)
}

/// Formats a throughput line.
pub fn line(what: &str, chunk: usize, bytes: usize, ms: f64) -> String {
    let mb_s = mb_s(bytes, ms);
    format!("{what:<38} {chunk:>5} B chunks  {ms:>9.1} ms  {mb_s:>8.1} MB/s")
}
