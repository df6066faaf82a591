//! The properties every parser of outside input must keep, as functions of raw
//! bytes that panic when one is broken. One oracle, three drivers: the
//! coverage-guided fuzz targets in `fuzz/` (nightly), the replay of every
//! crash they found (`tests/native/fuzz_regressions.rs`), and the proptest
//! properties `npm test` runs on stable (`tests/native/fuzz_props.rs`).
//!
//! Inputs start with a few control bytes the fuzzer chooses (split points,
//! sizes), then the payload. A property that does not hold panics with what
//! broke it.
#![allow(dead_code)]

use futures::future::LocalBoxFuture;
use futures::StreamExt;
use lectern::domain::ToolCall;
use lectern::error::Error;
use lectern::http::ByteStream;
use lectern::provider::anthropic::{parts_from_message, AnthropicDecoder};
use lectern::provider::openai::{parts_from_response, ChunkDecoder};
use lectern::provider::sse::{SseEvent, SseParser};
use lectern::provider::sse_body::{decode_sse_body, EventDecoder};
use lectern::provider::{Accumulator, StreamPart};
use lectern::retrieval::formats::epub::pages_from_epub;
use lectern::retrieval::fuzz_entry::{check_chunks, check_pages};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::retrieval::text::markup::{decode_entities, tokens, xhtml_text, Token};
use lectern::retrieval::text::pages::pages_from_list;
use lectern::tool::{prepare_call, redact_arguments, schema, FnTool, Tool, ToolRegistry, ToolResult};
use serde_json::Value;

/// A property of raw input bytes; it panics when broken.
pub type Property = fn(&[u8]);

/// Every fuzz target by name, for the regression replay.
pub const TARGETS: &[(&str, Property)] = &[
    ("sse_parser", sse_parser),
    ("openai_stream", openai_stream),
    ("anthropic_stream", anthropic_stream),
    ("responses", responses),
    ("tool_arguments", tool_arguments),
    ("markup", markup),
    ("pages", pages),
    ("chunks", chunks),
    ("epub", epub),
    ("sync_update", sync_update),
];

/// The first `n` bytes (control) and the rest, or `None` when too short.
fn control<const N: usize>(data: &[u8]) -> Option<([u8; N], &[u8])> {
    let head: [u8; N] = data.get(..N)?.try_into().ok()?;
    Some((head, &data[N..]))
}

/// `input` cut at two points the control bytes choose (either may be 0 or the end).
fn three_pieces(input: &[u8], a: u8, b: u8) -> [&[u8]; 3] {
    let at = |c: u8| input.len() * c as usize / 255;
    let (first, second) = (at(a.min(b)), at(a.max(b)));
    [&input[..first], &input[first..second], &input[second..]]
}

// --- SSE ------------------------------------------------------------------

/// What a parser capped at `limit` makes of `chunks`: the events, and the
/// error that stopped it.
pub fn parse_sse(chunks: &[&[u8]], limit: usize) -> (Vec<SseEvent>, Option<Error>) {
    let mut parser = SseParser::with_limit(limit);
    let mut out = Vec::new();
    for chunk in chunks {
        if let Err(error) = parser.feed(chunk, &mut out) {
            // A failed parser refuses everything after.
            assert_eq!(parser.feed(b"data: x\n\n", &mut Vec::new()), Err(error.clone()));
            return (out, Some(error));
        }
    }
    parser.finish();
    (out, None)
}

/// Control: two split points and the cap. The same events and the same error
/// come out whole, in three pieces and byte by byte; nothing exceeds the cap.
pub fn sse_parser(data: &[u8]) {
    let Some(([a, b, cap], input)) = control::<3>(data) else {
        return;
    };
    let limit = 1 + cap as usize * 4;
    let whole = parse_sse(&[input], limit);
    assert_eq!(
        parse_sse(&three_pieces(input, a, b), limit),
        whole,
        "three pieces"
    );
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(parse_sse(&bytes, limit), whole, "byte by byte");
    let (events, error) = whole;
    for event in &events {
        assert!(event.data.len() <= 3 * limit, "event data past the cap");
        assert!(event.event.as_ref().is_none_or(|e| e.len() <= 3 * limit));
        assert!(event.id.as_ref().is_none_or(|id| id.len() <= 3 * limit));
    }
    if let Some(error) = error {
        assert_eq!(error.name(), "ProtocolError");
    }
    let data_bytes: usize = events.iter().map(|e| e.data.len()).sum();
    // Invalid UTF-8 becomes U+FFFD: at most three bytes for one.
    assert!(data_bytes <= 3 * input.len(), "more data out than bytes in");
}

// --- Stream assembly --------------------------------------------------------

fn body(pieces: &[&[u8]]) -> ByteStream {
    let owned: Vec<lectern::Result<Vec<u8>>> = pieces.iter().map(|p| Ok(p.to_vec())).collect();
    Box::pin(futures::stream::iter(owned))
}

/// The parts of an SSE body, and the error that ended it.
fn decode<D: EventDecoder + 'static>(pieces: &[&[u8]], decoder: D) -> (Vec<StreamPart>, Option<Error>) {
    let items: Vec<lectern::Result<StreamPart>> =
        futures::executor::block_on(decode_sse_body(body(pieces), decoder).collect());
    let mut parts = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item {
            Ok(part) => parts.push(part.clone()),
            Err(error) => {
                assert_eq!(i + 1, items.len(), "a part after the error");
                return (parts, Some(error.clone()));
            }
        }
    }
    (parts, None)
}

/// Tool-call parts name calls that started; text and arguments come from the
/// input (never more bytes than it had); the accumulated answer holds one
/// call per start.
pub fn check_parts(parts: &[StreamPart], input_len: usize, arguments_bound: usize) {
    let mut started = Vec::new();
    let (mut text, mut arguments, mut reasoning) = (0, 0, 0);
    let mut accumulator = Accumulator::new();
    for part in parts {
        accumulator.push(part);
        match part {
            StreamPart::TextDelta(t) => text += t.len(),
            StreamPart::ToolCallStart { index, .. } => started.push(*index),
            StreamPart::ToolCallDelta { index, arguments: a } => {
                assert!(
                    started.contains(index),
                    "a delta for call {index}, which never started"
                );
                arguments += a.len();
            }
            StreamPart::ToolCallEnd { index } => {
                assert!(
                    started.contains(index),
                    "the end of call {index}, which never started"
                )
            }
            StreamPart::ReasoningDelta(r)
            | StreamPart::ReasoningSignature(r)
            | StreamPart::RedactedReasoning(r) => reasoning += r.len(),
            StreamPart::Usage(_) | StreamPart::Finish(_) => {}
        }
    }
    assert!(text <= input_len, "{text} bytes of text from {input_len} bytes");
    assert!(
        reasoning <= input_len,
        "{reasoning} bytes of reasoning from {input_len} bytes"
    );
    assert!(arguments <= arguments_bound, "{arguments} bytes of arguments");
    let response = accumulator.finish();
    assert_eq!(response.tool_calls.len(), started.len());
    assert_eq!(response.text.len(), text);
}

fn stream_property<D: EventDecoder + 'static>(data: &[u8], decoder: fn() -> D) {
    let Some(([a, b], input)) = control::<2>(data) else {
        return;
    };
    let whole = decode(&[input], decoder());
    assert_eq!(
        decode(&three_pieces(input, a, b), decoder()),
        whole,
        "three pieces"
    );
    check_parts(&whole.0, input.len(), input.len());
}

/// An OpenAI chat-completions SSE body: the same parts (and error) in any
/// chunking, within bounds.
pub fn openai_stream(data: &[u8]) {
    stream_property(data, ChunkDecoder::new);
}

/// An Anthropic Messages SSE body: the same parts (and error) in any
/// chunking, within bounds.
pub fn anthropic_stream(data: &[u8]) {
    stream_property(data, AnthropicDecoder::new);
}

/// A non-streamed answer in either format decodes or fails with a typed
/// error; text stays within the body (arguments that were a JSON object are
/// re-serialised, so they get a looser bound).
pub fn responses(data: &[u8]) {
    let body = String::from_utf8_lossy(data);
    for decoded in [parts_from_response(&body), parts_from_message(&body)] {
        match decoded {
            Ok(parts) => check_parts(&parts, body.len(), 8 * body.len() + 64),
            Err(error) => assert!(!error.name().is_empty()),
        }
    }
}

// --- Tool arguments -----------------------------------------------------------

/// Schemas tools really use, so most inputs exercise validation deeply.
const SCHEMAS: &[&str] = &[
    r#"{"type":"object","properties":{"city":{"type":"string","minLength":1,"maxLength":40}},"required":["city"],"additionalProperties":false}"#,
    r#"{"type":"object","properties":{"query":{"type":"string"},"top_k":{"type":"integer","minimum":1,"maximum":20}},"required":["query"]}"#,
    r#"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":3},"mode":{"const":"read"}}}"#,
    r#"{"type":"object","properties":{"n":{"type":["number","null"],"exclusiveMinimum":0,"exclusiveMaximum":1e3},"x":{"anyOf":[{"type":"string"},{"type":"object","properties":{"y":{"oneOf":[{"type":"integer"},{"type":"boolean"}]}}}]}}}"#,
    r#"{"type":"object","properties":{"deep":{"type":"object","properties":{"deeper":{"type":"object","additionalProperties":{"type":"array","items":{"allOf":[{"type":"integer"},{"minimum":-5}]}}}}}}}"#,
    r#"{"properties":{"free":true,"never":false}}"#,
];

/// A tool named `t` with these parameters, which does nothing.
fn tool_with(parameters: Value) -> std::rc::Rc<dyn Tool> {
    std::rc::Rc::new(FnTool::new("t", "fuzzed", parameters, |_: Value, _| {
        Box::pin(async { Ok(Value::Null) }) as LocalBoxFuture<'static, ToolResult>
    }))
}

/// Control: which schema (one of [`SCHEMAS`], or the input's own text up to a
/// NUL byte). Arguments the runner accepts parse and fit the schema; refused
/// ones say why, naming what is wrong in a bounded message.
pub fn tool_arguments(data: &[u8]) {
    let Some(([choice], rest)) = control::<1>(data) else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (schema_text, arguments) = match SCHEMAS.get(choice as usize) {
        Some(known) => (known.to_string(), text.to_string()),
        None => match text.split_once('\0') {
            Some((schema, arguments)) => (schema.to_owned(), arguments.to_owned()),
            None => return,
        },
    };
    let Ok(parameters) = serde_json::from_str::<Value>(&schema_text) else {
        return;
    };
    if let Ok(value) = serde_json::from_str::<Value>(&arguments) {
        let _ = schema::validate(&parameters, &value);
        let redacted = redact_arguments(&arguments, &["city".into(), "y".into()]);
        assert!(
            serde_json::from_str::<Value>(&redacted).is_ok(),
            "redaction broke valid JSON"
        );
    }
    let registry = ToolRegistry::new();
    if registry.register(tool_with(parameters.clone())).is_err() {
        return;
    }
    let call = ToolCall {
        id: "c".into(),
        name: "t".into(),
        arguments: arguments.clone(),
    };
    match prepare_call(&call, &["t".into()], &registry) {
        Ok((_, value)) => {
            let text = if arguments.trim().is_empty() {
                "{}"
            } else {
                arguments.as_str()
            };
            assert_eq!(serde_json::from_str::<Value>(text).ok(), Some(value.clone()));
            assert_eq!(schema::validate(&parameters, &value), Ok(()));
        }
        Err(message) => {
            assert!(message.starts_with("Invalid arguments: "), "{message}");
            let bound = 4 * (schema_text.len() + arguments.len()) + 256;
            assert!(message.len() <= bound, "a {}-byte message", message.len());
        }
    }
}

// --- Text: markup, pages, chunks, EPUB --------------------------------------

/// Entities decode to no more bytes than they took; tokens hold no more text
/// than the markup; the readable text is trimmed, collapsed and no longer than its source.
pub fn markup(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    assert!(decode_entities(&text).len() <= text.len(), "entities grew");
    let mut token_text = 0;
    for token in tokens(&text) {
        match token {
            Token::Text(t) => token_text += t.len(),
            Token::Start { name, .. } | Token::End { name } => {
                assert_eq!(
                    name,
                    name.to_ascii_lowercase(),
                    "tag names are lower-cased (ASCII)"
                )
            }
        }
    }
    assert!(token_text <= text.len(), "tokens hold more text than the markup");
    let readable = xhtml_text(&text);
    assert!(readable.len() <= text.len(), "readable text grew");
    assert_eq!(readable.trim(), readable, "readable text is trimmed");
    assert!(
        !readable.contains("\n\n\n"),
        "paragraphs are separated by one blank line"
    );
}

/// Control: the page size. The checks of `fuzz_entry::check_pages`: pages
/// numbered upwards; synthetic pages (no form feeds or `[[page N]]` markers)
/// are the text in order, and one longer than the page size is a single
/// unbreakable run of at most twice that size.
pub fn pages(data: &[u8]) {
    let Some(([hi, lo], rest)) = control::<2>(data) else {
        return;
    };
    let page_chars = 1 + u16::from_be_bytes([hi, lo]) as usize % 3000;
    check_pages(&String::from_utf8_lossy(rest), page_chars);
}

/// Control: chunk and overlap sizes. Pages come from form feeds (so chunking
/// is tested apart from page cutting). The checks of
/// `fuzz_entry::check_chunks`: ordinals, page ranges, no chunk over the size,
/// and, whitespace aside, each chunk a piece of the text that starts inside
/// or right after the one before, together covering it.
pub fn chunks(data: &[u8]) {
    let Some(([a, b, c], rest)) = control::<3>(data) else {
        return;
    };
    let chunk_chars = 100 + u16::from_be_bytes([a, b]) as usize % 1900;
    let settings = ChunkSettings {
        chunk_chars,
        overlap_chars: c as usize * chunk_chars / 256,
        page_chars: 2000,
    };
    let text = String::from_utf8_lossy(rest);
    let pages = pages_from_list(text.split('\u{000C}').map(str::to_owned).collect());
    check_chunks(&pages, &settings);
}

/// Control: the page size. An EPUB (or any bytes) gives pages numbered 1, 2,
/// ... with text, or a `ConfigError`; never more text than deflate can make.
pub fn epub(data: &[u8]) {
    let Some(([hi, lo], rest)) = control::<2>(data) else {
        return;
    };
    let page_chars = 200 + u16::from_be_bytes([hi, lo]) as usize % 3000;
    match pages_from_epub(rest, page_chars) {
        Ok(pages) => {
            for (i, page) in pages.iter().enumerate() {
                assert_eq!(page.number as usize, i + 1);
                assert!(!page.text.trim().is_empty(), "an empty page");
            }
            let total: usize = pages.iter().map(|p| p.text.len()).sum();
            assert!(
                total <= 1100 * rest.len() + 1024,
                "{total} bytes of text from {} bytes",
                rest.len()
            );
        }
        Err(error) => assert_eq!(error.name(), "ConfigError", "{error}"),
    }
}

/// A device's document with a conversation, two messages and a call it owns.
fn sync_base() -> lectern::sync::SyncDocument {
    use lectern::domain::{Conversation, Message, Role};
    let doc = lectern::sync::SyncDocument::new("me", 1);
    doc.put_conversation(&Conversation {
        id: "c1".into(),
        title: "t".into(),
        created_at: 0.0,
        book_id: None,
        working_state: None,
    });
    for id in ["m1", "m2"] {
        doc.append_message(&Message::new(id.into(), "c1", Role::User, "kept", 1.0));
    }
    doc.add_call("call-1", "c1", "t1", "tool", "{}");
    doc.share_book("book-1", "t", None, "/book-1.lectern", 1.0)
        .expect("a shared book the rules take");
    doc
}

/// Control: how to read the rest. 0: the bytes as a remote update; 1: as a
/// frame from the server; else: a valid update from another device (one more
/// message) with the bytes spliced into it at an offset. Whatever comes, a
/// refused update leaves the document as it was, and an accepted one keeps
/// what was written (the two messages, in order, and the call's owner).
pub fn sync_update(data: &[u8]) {
    let Some(([mode, at], rest)) = control::<2>(data) else {
        return;
    };
    let doc = sync_base();
    let before = doc.snapshot();
    let input = match mode % 3 {
        0 | 1 => rest.to_vec(),
        _ => {
            let other = lectern::sync::SyncDocument::new("other", 2);
            other.apply_remote(&before).expect("its own snapshot");
            let extra =
                lectern::domain::Message::new("m3".into(), "c1", lectern::domain::Role::User, "new", 2.0);
            other.append_message(&extra);
            let mut update = other.diff_for(&doc.state_vector()).expect("a state vector");
            let at = at as usize % (update.len() + 1);
            update.splice(at..at, rest.iter().copied());
            update
        }
    };
    let accepted = if mode % 3 == 1 {
        doc.receive(&input).is_ok()
    } else {
        doc.apply_remote(&input).is_ok()
    };
    if !accepted {
        assert_eq!(doc.snapshot(), before, "a refused update changed the document");
    }
    let ids: Vec<String> = doc.messages("c1").into_iter().map(|m| m.id).collect();
    assert!(
        ids.starts_with(&["m1".to_owned(), "m2".to_owned()]),
        "history lost: {ids:?}"
    );
    assert!(
        doc.messages("c1").iter().take(2).all(|m| m.content == "kept"),
        "history rewritten"
    );
    assert_eq!(
        doc.call("t1:call-1").map(|c| c.owner),
        Some("me".to_owned()),
        "the call changed hands"
    );
    let books = doc.books();
    assert!(books.iter().any(|(id, _)| id == "book-1"), "a shared book lost");
    assert!(
        books.iter().all(|(id, book)| book.problem(id).is_none()),
        "a shared book the rules refuse: {books:?}"
    );
}
