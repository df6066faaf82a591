//! Cooperative ingestion in the page (no Worker): yields to the event loop
//! once work has run for [`SLICE_MS`], so that no task runs much longer.

use std::cell::Cell;

use futures::future::LocalBoxFuture;

use crate::retrieval::prepare::Pace;
use crate::time::{BrowserClock, Clock};

/// Work between two yields, in milliseconds (under a 16 ms frame).
const SLICE_MS: f64 = 10.0;

/// Texts the hashed embedder gets per call while paced (a few ms of work).
const LOCAL_BATCH: usize = 8;

/// Yields with `setTimeout(0)`: the page's own timers, messages and input
/// run in between (a `scheduler.yield()` continuation would go ahead of them).
pub struct BrowserPace {
    since: Cell<f64>,
}

impl BrowserPace {
    /// A pace whose first slice starts now.
    pub fn new() -> Self {
        BrowserPace {
            since: Cell::new(js_sys::Date::now()),
        }
    }
}

impl Pace for BrowserPace {
    fn pause(&self) -> LocalBoxFuture<'_, ()> {
        Box::pin(async move {
            if js_sys::Date::now() - self.since.get() < SLICE_MS {
                return;
            }
            BrowserClock.sleep(0).await;
            self.since.set(js_sys::Date::now());
        })
    }

    fn local_batch(&self) -> Option<usize> {
        Some(LOCAL_BATCH)
    }
}
