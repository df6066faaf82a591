//! A clock that only moves when told to, for deterministic tests.

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::Clock;

/// A test clock: a `sleep` that is awaited advances time at once and records
/// the wait; one that loses a race (is never polled) leaves time alone.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Rc<Cell<f64>>,
    slept: Rc<Cell<u64>>,
}

impl ManualClock {
    /// A clock reading `start_ms`.
    pub fn new(start_ms: f64) -> Self {
        ManualClock {
            now: Rc::new(Cell::new(start_ms)),
            slept: Rc::new(Cell::new(0)),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, ms: f64) {
        self.now.set(self.now.get() + ms);
    }

    /// Total milliseconds requested through `sleep`.
    pub fn total_slept_ms(&self) -> u64 {
        self.slept.get()
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let clock = self.clone();
        Box::pin(async move {
            clock.slept.set(clock.slept.get() + ms);
            clock.advance(ms as f64);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeping_advances_time_without_waiting() {
        let clock = ManualClock::new(10.0);
        let unpolled = clock.sleep(1000);
        drop(unpolled);
        assert_eq!(clock.now_ms(), 10.0, "a sleep never awaited does not move time");
        futures::executor::block_on(clock.sleep(500));
        assert_eq!(clock.now_ms(), 510.0);
        assert_eq!(clock.total_slept_ms(), 500);
    }
}
