//! The native system clock.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::LocalBoxFuture;

use super::Clock;

/// Wall-clock time from the OS; `sleep` blocks a helper thread, not the caller's executor.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> f64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = futures::channel::oneshot::channel::<()>();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(ms));
            let _ = tx.send(());
        });
        Box::pin(async move {
            let _ = rx.await;
        })
    }
}
