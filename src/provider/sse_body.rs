//! Turning an SSE response body into stream parts, for any provider's
//! event format: its events parsed lazily, then decoded by [`decode_events`].

use std::collections::VecDeque;

use futures::StreamExt;

pub use super::event_parts::EventDecoder;
use super::event_parts::{decode_events, EventStream};
use super::sse::{SseEvent, SseParser};
use super::PartStream;
use crate::error::Result;
use crate::http::ByteStream;

/// Decodes an SSE body lazily, as bytes arrive, until the decoder is done.
///
/// A decoding error, or a line or event past the parser's cap (`Protocol`),
/// ends the stream after the parts before it, and no more of the body is read.
/// A body that ends before the answer finished is a `Connection` error (it was cut off).
pub fn decode_sse_body<D: EventDecoder + 'static>(body: ByteStream, decoder: D) -> PartStream {
    decode_events(sse_events(body), decoder)
}

/// The events of an SSE body, parsed as they are asked for: a body chunk is
/// read only once the events of the one before were taken. A line or event
/// past the parser's cap follows the events completed before it, as an error.
fn sse_events(body: ByteStream) -> EventStream {
    struct State {
        body: ByteStream,
        parser: SseParser,
        queue: VecDeque<Result<SseEvent>>,
        ended: bool,
    }
    let state = State {
        body,
        parser: SseParser::new(),
        queue: VecDeque::new(),
        ended: false,
    };
    Box::pin(futures::stream::unfold(state, |mut s| async move {
        loop {
            if let Some(item) = s.queue.pop_front() {
                return Some((item, s));
            }
            if s.ended {
                return None;
            }
            match s.body.next().await {
                Some(Ok(bytes)) => {
                    let mut events = Vec::new();
                    let fed = s.parser.feed(&bytes, &mut events);
                    s.queue.extend(events.into_iter().map(Ok));
                    if let Err(e) = fed {
                        s.queue.push_back(Err(e));
                        s.ended = true;
                    }
                }
                Some(Err(e)) => {
                    s.queue.push_back(Err(e));
                    s.ended = true;
                }
                None => {
                    s.parser.finish();
                    s.ended = true;
                }
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;
    use crate::error::Error;
    use crate::provider::openai::ChunkDecoder;
    use crate::provider::StreamPart;

    const MIB: usize = 1024 * 1024;

    /// A body of `chunks`, counting how many were read.
    fn counted(chunks: Vec<Vec<u8>>, read: Rc<Cell<usize>>) -> ByteStream {
        Box::pin(futures::stream::iter(chunks).map(move |chunk| {
            read.set(read.get() + 1);
            Ok(chunk)
        }))
    }

    fn first_error(body: ByteStream) -> Error {
        let parts: Vec<Result<StreamPart>> =
            futures::executor::block_on(decode_sse_body(body, ChunkDecoder::new()).collect());
        parts
            .into_iter()
            .find_map(|p| p.err())
            .expect("the stream ends in an error")
    }

    #[test]
    fn a_line_without_end_past_the_cap_is_a_protocol_error_and_reading_stops() {
        let read = Rc::new(Cell::new(0));
        let mut chunks = vec![b"data: ".to_vec()];
        chunks.extend((0..24).map(|_| vec![b'x'; MIB]));
        let error = first_error(counted(chunks, read.clone()));
        assert_eq!(error.name(), "ProtocolError", "{error}");
        assert!(error.to_string().contains("16 MiB"), "{error}");
        assert!(read.get() <= 18, "read {} chunks past the cap", read.get());
    }

    #[test]
    fn an_event_of_many_lines_past_the_cap_is_a_protocol_error() {
        let read = Rc::new(Cell::new(0));
        let line = [b"data: ".to_vec(), vec![b'y'; MIB], b"\n".to_vec()].concat();
        let chunks = vec![line; 24];
        let error = first_error(counted(chunks, read.clone()));
        assert_eq!(error.name(), "ProtocolError", "{error}");
        assert!(read.get() <= 18, "read {} chunks past the cap", read.get());
    }
}
