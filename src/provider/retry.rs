//! Which failures are worth another attempt, and how long to wait first.

use std::future::Future;

use super::policy::{CallPolicy, RetryTuning};
use crate::error::{Error, Result};
use crate::runtime::cancel::CancelToken;
use crate::runtime::time::Clock;

/// Whether a failure before any part of the answer arrived may be retried:
/// 429, 408, any 5xx, and connection failures.
pub fn is_retryable(error: &Error) -> bool {
    match error {
        Error::RateLimited { .. } | Error::Connection { .. } => true,
        Error::Api { status, .. } => *status == 408 || (500..=599).contains(status),
        _ => false,
    }
}

/// The wait before retry number `attempt + 1`, in milliseconds.
///
/// A server's `Retry-After` wins (capped at `max_retry_after_ms`); otherwise
/// exponential backoff from `initial_delay_ms`, capped at `max_delay_ms`, with
/// `jitter` in `0..=1` spreading it over its upper half.
pub fn backoff_ms(error: &Error, attempt: u32, tuning: &RetryTuning, jitter: f64) -> u64 {
    if let Error::RateLimited {
        retry_after_ms: Some(ms),
    } = error
    {
        return (*ms).min(tuning.max_retry_after_ms);
    }
    let base = tuning
        .initial_delay_ms
        .saturating_mul(1u64 << attempt.min(30))
        .min(tuning.max_delay_ms);
    (base as f64 * (0.5 + 0.5 * jitter.clamp(0.0, 1.0))) as u64
}

/// A random number in `0..=1` for jitter.
pub fn jitter() -> f64 {
    let mut bytes = [0u8; 4];
    match getrandom::getrandom(&mut bytes) {
        Ok(()) => u32::from_le_bytes(bytes) as f64 / u32::MAX as f64,
        Err(_) => 0.5,
    }
}

/// Runs `call` under `policy`: retryable failures are retried with backoff
/// (and the server's `Retry-After`), up to `max_retries` times.
pub async fn with_retries<T, F, Fut>(
    clock: &dyn Clock,
    policy: &CallPolicy,
    cancel: &CancelToken,
    mut call: F,
) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let mut attempt = 0;
    loop {
        let error = match cancel.run(call()).await {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        if attempt >= policy.max_retries || !is_retryable(&error) {
            return Err(error);
        }
        let wait = backoff_ms(&error, attempt, &policy.retry, jitter());
        cancel
            .run(async {
                clock.sleep(wait).await;
                Ok(())
            })
            .await?;
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_kinds() {
        assert!(is_retryable(&Error::RateLimited { retry_after_ms: None }));
        assert!(is_retryable(&Error::connection("reset")));
        for status in [408, 500, 502, 503, 529] {
            assert!(
                is_retryable(&Error::Api {
                    status,
                    body: String::new()
                }),
                "{status}"
            );
        }
        for status in [400, 404, 409, 422] {
            assert!(
                !is_retryable(&Error::Api {
                    status,
                    body: String::new()
                }),
                "{status}"
            );
        }
        assert!(!is_retryable(&Error::Auth {
            status: 401,
            body: String::new()
        }));
        assert!(!is_retryable(&Error::protocol("bad")));
        assert!(!is_retryable(&Error::Aborted));
    }

    #[test]
    fn backoff_doubles_within_its_jitter_band_and_is_capped() {
        let tuning = RetryTuning::default();
        let error = Error::Api {
            status: 500,
            body: String::new(),
        };
        assert_eq!(backoff_ms(&error, 0, &tuning, 1.0), 500);
        assert_eq!(backoff_ms(&error, 0, &tuning, 0.0), 250);
        assert_eq!(backoff_ms(&error, 1, &tuning, 1.0), 1000);
        assert_eq!(backoff_ms(&error, 10, &tuning, 1.0), 8000);
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let tuning = RetryTuning::default();
        let asked = |ms| Error::RateLimited {
            retry_after_ms: Some(ms),
        };
        assert_eq!(backoff_ms(&asked(1000), 0, &tuning, 0.3), 1000);
        assert_eq!(backoff_ms(&asked(3_600_000), 0, &tuning, 0.3), 60_000);
        let j = jitter();
        assert!((0.0..=1.0).contains(&j));
    }
}
