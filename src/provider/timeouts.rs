//! Time limits on a model call: until the first part, between parts, in total.

use std::rc::Rc;

use futures::StreamExt;

use super::PartStream;
use crate::error::Error;
use crate::runtime::cancel::CancelToken;
use crate::runtime::time::{within, Clock};

/// Guards the rest of an answer: each part must come within `idle_ms` of the
/// previous one, and the whole call must end by `deadline_ms` (`total_ms` from
/// its start). Cancellation ends it with `Aborted`.
pub fn guard_parts(
    parts: PartStream,
    clock: Rc<dyn Clock>,
    idle_ms: Option<u64>,
    total: Option<(u64, f64)>,
    cancel: CancelToken,
) -> PartStream {
    // The parts are dropped as soon as the answer ends, so a timed-out call
    // lets go of its request (the browser aborts the fetch) at once, not when
    // the caller drops the stream.
    let state = (Some(parts), clock, cancel);
    Box::pin(futures::stream::unfold(
        state,
        move |(parts, clock, cancel)| async move {
            let mut parts = parts?;
            let mut limit = idle_ms.map(|ms| (ms, ms));
            if let Some((total_ms, deadline)) = total {
                let left = (deadline - clock.now_ms()).max(0.0) as u64;
                if limit.is_none_or(|(ms, _)| left < ms) {
                    limit = Some((left, total_ms));
                }
            }
            let next = async { Ok(parts.next().await) };
            let outcome = cancel
                .run(async {
                    match limit {
                        None => next.await,
                        Some((wait, reported)) => match within(&*clock, Some(wait), next).await {
                            Err(Error::Timeout { .. }) => Err(Error::Timeout { after_ms: reported }),
                            other => other,
                        },
                    }
                })
                .await;
            match outcome {
                // An error ends the answer: nothing after it is read.
                Ok(Some(Err(error))) => Some((Err(error), (None, clock, cancel))),
                Ok(Some(part)) => Some((part, (Some(parts), clock, cancel))),
                Ok(None) => None,
                Err(error) => Some((Err(error), (None, clock, cancel))),
            }
        },
    ))
}
