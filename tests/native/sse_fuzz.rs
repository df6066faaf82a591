//! Property tests of the SSE parser: no input panics it, and however the bytes
//! are split into chunks, the same events come out — and, under a cap, the
//! same error at the same place (the fuzz target's property, `tests/fuzz_props`).

use crate::support::fuzz_props;

use lectern::provider::sse::{SseEvent, SseParser};
use proptest::prelude::*;

fn parse(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out).expect("within the cap");
    }
    parser.finish();
    out
}

/// Bytes biased towards what matters to the parser: field names, colons,
/// every kind of line end, multibyte UTF-8 and invalid bytes.
fn sse_like() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data:".to_vec()),
        Just(b"data: ".to_vec()),
        Just(b"event: ".to_vec()),
        Just(b"id: ".to_vec()),
        Just(b"retry: 10".to_vec()),
        Just(b":".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just("é😀".as_bytes().to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(vec![0xff, 0x00]),
        proptest::collection::vec(any::<u8>(), 0..8),
        "[a-z{}\":, ]{0,12}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_chunking_gives_the_same_events(input in sse_like(), cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12)) {
        let whole = parse(&[&input]);
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(input.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut last = 0;
        for p in points {
            chunks.push(&input[last..p]);
            last = p;
        }
        chunks.push(&input[last..]);
        prop_assert_eq!(parse(&chunks), whole);
    }

    #[test]
    fn under_a_cap_any_chunking_gives_the_same_events_and_error(input in sse_like(), control in any::<[u8; 3]>()) {
        fuzz_props::sse_parser(&[&control[..], &input].concat());
    }

    #[test]
    fn arbitrary_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..4096), size in 1usize..64) {
        let chunks: Vec<&[u8]> = input.chunks(size).collect();
        let events = parse(&chunks);
        prop_assert_eq!(events, parse(&[&input]));
    }
}

#[test]
fn byte_at_a_time_equals_whole_on_a_realistic_stream() {
    let stream = std::fs::read(format!(
        "{}/tests/fixtures/anthropic/02-tool-use.sse",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    let events = parse(&bytes);
    assert_eq!(events, parse(&[&stream]));
    assert_eq!(events[0].event.as_deref(), Some("message_start"));
    assert_eq!(events.last().unwrap().event.as_deref(), Some("message_stop"));
}
