//! Turning a stream of provider events into stream parts, whatever carries
//! them: an SSE response body (`sse_body`) or a host function's async
//! iterator (the custom provider). One loop: parts in order, a decoding
//! error ends the stream after the parts before it, and an answer cut off
//! before its end is a `Connection` error.

use std::collections::VecDeque;

use futures::stream::LocalBoxStream;
use futures::StreamExt;

use super::sse::SseEvent;
use super::{PartStream, StreamPart};
use crate::error::{Error, Result};

/// Events as they arrive; an error ends them.
pub type EventStream = LocalBoxStream<'static, Result<SseEvent>>;

/// A provider's event format.
pub trait EventDecoder {
    /// Decodes one event, appending its parts to `out`.
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<StreamPart>) -> Result<()>;
    /// Whether the stream's end marker arrived (no more events will be read).
    fn is_done(&self) -> bool;
    /// Whether the answer is complete (events ending now are not cut off).
    fn is_finished(&self) -> bool;
}

/// Decodes `events` lazily, one at a time as they are asked for, until the
/// decoder is done: after a decoding error or an error of the events
/// themselves, no more events are read.
pub fn decode_events<D: EventDecoder + 'static>(events: EventStream, decoder: D) -> PartStream {
    struct State<D> {
        events: EventStream,
        decoder: D,
        queue: VecDeque<Result<StreamPart>>,
        ended: bool,
    }
    let state = State {
        events,
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
            match s.events.next().await {
                Some(Ok(event)) => {
                    let mut parts = Vec::new();
                    let decoded = s.decoder.decode(&event, &mut parts);
                    s.queue.extend(parts.into_iter().map(Ok));
                    if let Err(e) = decoded {
                        s.queue.push_back(Err(e));
                        s.ended = true;
                    }
                    s.ended |= s.decoder.is_done();
                }
                Some(Err(e)) => {
                    s.queue.push_back(Err(e));
                    s.ended = true;
                }
                None => {
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
