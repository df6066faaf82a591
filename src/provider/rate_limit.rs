//! A client-side sliding-window rate limiter that delays calls rather than failing them.

use std::cell::RefCell;
use std::collections::VecDeque;

use super::policy::RateLimit;
use crate::error::Result;
use crate::runtime::cancel::CancelToken;
use crate::runtime::time::Clock;

const WINDOW_MS: f64 = 60_000.0;

/// Requests and tokens sent in the last minute, and the wait a new call needs.
#[derive(Debug, Default)]
pub struct RateLimiter {
    limit: RateLimit,
    window: RefCell<VecDeque<(f64, u64)>>,
}

impl RateLimiter {
    /// A limiter enforcing `limit` (no limits: never waits).
    pub fn new(limit: RateLimit) -> Self {
        RateLimiter {
            limit,
            window: RefCell::new(VecDeque::new()),
        }
    }

    /// Waits until a call estimated at `tokens` fits the budget, then books it.
    pub async fn acquire(&self, clock: &dyn Clock, tokens: u64, cancel: &CancelToken) -> Result<()> {
        loop {
            cancel.check()?;
            let now = clock.now_ms();
            match self.wait_ms(now, tokens) {
                None => {
                    self.window.borrow_mut().push_back((now, tokens));
                    return Ok(());
                }
                Some(ms) => {
                    cancel
                        .run(async {
                            clock.sleep(ms).await;
                            Ok(())
                        })
                        .await?
                }
            }
        }
    }

    /// Replaces the latest call's token estimate with what it really used.
    pub fn record_usage(&self, tokens: u64) {
        if let Some(last) = self.window.borrow_mut().back_mut() {
            last.1 = tokens;
        }
    }

    /// How long a call of `tokens` must wait at `now`, or `None` if it may go.
    fn wait_ms(&self, now: f64, tokens: u64) -> Option<u64> {
        let mut window = self.window.borrow_mut();
        while window.front().is_some_and(|(at, _)| *at <= now - WINDOW_MS) {
            window.pop_front();
        }
        let until_oldest_leaves = || {
            window
                .front()
                .map(|(at, _)| ((at + WINDOW_MS - now).ceil() as u64).max(1))
        };
        if let Some(rpm) = self.limit.requests_per_minute {
            if window.len() >= rpm as usize {
                return until_oldest_leaves();
            }
        }
        if let Some(tpm) = self.limit.tokens_per_minute {
            let used: u64 = window.iter().map(|(_, t)| t).sum();
            // A call bigger than the whole budget goes alone into an empty window.
            if !window.is_empty() && used + tokens > tpm as u64 {
                return until_oldest_leaves();
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::time::ManualClock;
    use futures::executor::block_on;

    #[test]
    fn requests_past_the_limit_wait_for_the_window() {
        let clock = ManualClock::new(0.0);
        let limiter = RateLimiter::new(RateLimit {
            requests_per_minute: Some(2),
            tokens_per_minute: None,
        });
        let cancel = CancelToken::new();
        block_on(async {
            limiter.acquire(&clock, 0, &cancel).await.unwrap();
            clock.advance(10_000.0);
            limiter.acquire(&clock, 0, &cancel).await.unwrap();
            assert_eq!(clock.total_slept_ms(), 0);
            limiter.acquire(&clock, 0, &cancel).await.unwrap();
        });
        assert_eq!(
            clock.total_slept_ms(),
            50_000,
            "the third waits until the first leaves the window"
        );
    }

    #[test]
    fn tokens_are_budgeted_and_corrected_by_real_usage() {
        let clock = ManualClock::new(0.0);
        let limiter = RateLimiter::new(RateLimit {
            requests_per_minute: None,
            tokens_per_minute: Some(1000),
        });
        let cancel = CancelToken::new();
        block_on(async {
            limiter.acquire(&clock, 900, &cancel).await.unwrap();
            limiter.record_usage(100);
            limiter.acquire(&clock, 800, &cancel).await.unwrap();
            assert_eq!(clock.total_slept_ms(), 0, "real usage freed the budget");
            limiter.acquire(&clock, 200, &cancel).await.unwrap();
        });
        assert_eq!(clock.total_slept_ms(), 60_000);
    }

    #[test]
    fn no_limits_never_wait_and_cancel_stops_a_wait() {
        let clock = ManualClock::new(0.0);
        let free = RateLimiter::new(RateLimit::default());
        let cancel = CancelToken::new();
        block_on(async {
            for _ in 0..100 {
                free.acquire(&clock, 1_000_000, &cancel).await.unwrap();
            }
        });
        assert_eq!(clock.total_slept_ms(), 0);
        cancel.cancel();
        assert!(block_on(free.acquire(&clock, 1, &cancel)).is_err());
    }
}
