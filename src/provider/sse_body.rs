//! Turning an SSE response body into stream parts, for any provider's
//! event format: its events parsed lazily, then decoded by [`decode_events`].

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
/// past the parser's cap follows the events completed before it, as an
/// error, and ends the events, as an error of the body does.
fn sse_events(body: ByteStream) -> EventStream {
    let mut parser = SseParser::new();
    let events = body.flat_map(move |chunk| {
        let mut items: Vec<Result<SseEvent>> = Vec::new();
        match chunk {
            Ok(bytes) => {
                let mut events = Vec::new();
                let fed = parser.feed(&bytes, &mut events);
                items.extend(events.into_iter().map(Ok));
                items.extend(fed.err().map(Err));
            }
            Err(e) => items.push(Err(e)),
        }
        futures::stream::iter(items)
    });
    Box::pin(events.scan(false, |failed, item| {
        let next = (!*failed).then_some(item);
        *failed = next.as_ref().is_some_and(Result::is_err);
        futures::future::ready(next)
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
