//! Turning an SSE response body into stream parts, for any provider's event format.

use std::collections::VecDeque;

use futures::StreamExt;

use super::sse::{SseEvent, SseParser};
use super::{PartStream, StreamPart};
use crate::error::{Error, Result};
use crate::http::ByteStream;

/// A provider's SSE event format.
pub trait EventDecoder {
    /// Decodes one event, appending its parts to `out`.
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<StreamPart>) -> Result<()>;
    /// Whether the stream's end marker arrived (no more events will be read).
    fn is_done(&self) -> bool;
    /// Whether the answer is complete (a body ending now is not cut off).
    fn is_finished(&self) -> bool;
}

/// Decodes an SSE body lazily, as bytes arrive, until the decoder is done.
///
/// A decoding error ends the stream after the parts before it. A body that
/// ends before the answer finished is a `Connection` error (it was cut off).
pub fn decode_sse_body<D: EventDecoder + 'static>(body: ByteStream, decoder: D) -> PartStream {
    struct State<D> {
        body: ByteStream,
        parser: SseParser,
        decoder: D,
        queue: VecDeque<Result<StreamPart>>,
        ended: bool,
    }
    let state = State {
        body,
        parser: SseParser::new(),
        decoder,
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
                    s.parser.feed(&bytes, &mut events);
                    let mut parts = Vec::new();
                    for event in &events {
                        if let Err(e) = s.decoder.decode(event, &mut parts) {
                            s.queue.extend(parts.drain(..).map(Ok));
                            s.queue.push_back(Err(e));
                            s.ended = true;
                            break;
                        }
                        if s.decoder.is_done() {
                            s.ended = true;
                            break;
                        }
                    }
                    s.queue.extend(parts.into_iter().map(Ok));
                }
                Some(Err(e)) => {
                    s.queue.push_back(Err(e));
                    s.ended = true;
                }
                None => {
                    s.parser.finish();
                    if !s.decoder.is_finished() {
                        s.queue.push_back(Err(Error::connection(
                            "the stream ended before the model finished its answer",
                        )));
                    }
                    s.ended = true;
                }
            }
        }
    }))
}
