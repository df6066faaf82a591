//! The clock seam: what time it is, and waiting.
//!
//! The browser uses `Date.now()` and `setTimeout` (`web::BrowserClock`,
//! `wasm32` only); native code uses the system clock, and tests use
//! [`ManualClock`] so nothing really sleeps.

use futures::future::LocalBoxFuture;

mod civil;
mod manual;
#[cfg(not(target_arch = "wasm32"))]
mod system;
mod timeout;

pub use civil::civil_from_days;
pub use manual::ManualClock;
#[cfg(not(target_arch = "wasm32"))]
pub use system::SystemClock;
pub use timeout::within;

/// A source of the current time and of timers.
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> f64;
    /// Completes after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
}
