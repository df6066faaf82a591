//! Cooperative ingestion: yields to the event loop once work has run for a
//! slice — in the page (no Worker) so that no task runs much longer than
//! [`SLICE_MS`], in the worker every [`WORKER_SLICE_MS`] so that the page's
//! other messages to it (a query to embed, a cancel) are not kept waiting
//! for a whole book.

use std::cell::Cell;

use futures::future::LocalBoxFuture;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

use super::clock::BrowserClock;
use crate::retrieval::ingest::prepare::Pace;
use crate::runtime::time::Clock;

/// Work between two yields in the page, in milliseconds (under a 16 ms frame).
const SLICE_MS: f64 = 10.0;

/// Work between two yields in the worker, in milliseconds.
const WORKER_SLICE_MS: f64 = 100.0;

/// Texts the hashed embedder gets per call while paced (a few ms of work).
const LOCAL_BATCH: usize = 8;

/// Yields with `setTimeout(0)`: the page's own timers, messages and input
/// run in between (a `scheduler.yield()` continuation would go ahead of them).
/// In a hidden page, whose timers the browser throttles (WebKit: a few a
/// second), it yields with a `MessageChannel` message instead.
pub struct BrowserPace {
    since: Cell<f64>,
    slice_ms: f64,
    local_batch: Option<usize>,
}

impl BrowserPace {
    /// The page's pace, whose first slice starts now.
    pub fn new() -> Self {
        BrowserPace {
            since: Cell::new(js_sys::Date::now()),
            slice_ms: SLICE_MS,
            local_batch: Some(LOCAL_BATCH),
        }
    }

    /// The worker's pace: longer slices, and a local embedder's own batches.
    pub fn in_worker() -> Self {
        BrowserPace {
            slice_ms: WORKER_SLICE_MS,
            local_batch: None,
            ..BrowserPace::new()
        }
    }
}

impl Default for BrowserPace {
    /// The page's pace ([`BrowserPace::new`]).
    fn default() -> Self {
        BrowserPace::new()
    }
}

impl Pace for BrowserPace {
    fn pause(&self) -> LocalBoxFuture<'_, ()> {
        Box::pin(async move {
            if js_sys::Date::now() - self.since.get() < self.slice_ms {
                return;
            }
            if page_is_hidden() {
                yield_by_message().await;
            } else {
                BrowserClock.sleep(0).await;
            }
            self.since.set(js_sys::Date::now());
        })
    }

    fn local_batch(&self) -> Option<usize> {
        self.local_batch
    }
}

/// Whether this is a page (not a worker) the reader cannot see (`document.hidden`).
fn page_is_hidden() -> bool {
    let global = js_sys::global();
    let document = Reflect::get(&global, &JsValue::from_str("document")).unwrap_or(JsValue::UNDEFINED);
    document.is_object()
        && Reflect::get(&document, &JsValue::from_str("hidden"))
            .ok()
            .and_then(|hidden| hidden.as_bool())
            .unwrap_or(false)
}

/// Lets the event loop run one task, through a message to itself: not a timer,
/// so not throttled in a hidden page.
async fn yield_by_message() {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        return BrowserClock.sleep(0).await;
    };
    let delivered = js_sys::Promise::new(&mut |resolve, _reject| {
        channel.port1().set_onmessage(Some(&resolve));
    });
    if channel.port2().post_message(&JsValue::NULL).is_ok() {
        let _ = wasm_bindgen_futures::JsFuture::from(delivered).await;
    }
    channel.port1().set_onmessage(None);
}
