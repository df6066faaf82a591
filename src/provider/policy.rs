//! How calls to a provider behave: retries, rate limits and timeouts.

use crate::error::{Error, Result};
use crate::json::from_json::FromJson;

/// Retries, rate limits and timeouts for one provider; every field has a default.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallPolicy {
    /// Retries after the first attempt for retryable failures (429, 408, 5xx, connection); default 2.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    /// Backoff tuning.
    #[serde(default)]
    pub retry: RetryTuning,
    /// Client-side rate limit.
    #[serde(default)]
    pub rate_limit: RateLimit,
    /// Timeouts of one model call.
    #[serde(default)]
    pub timeouts: Timeouts,
}

fn default_max_retries() -> u32 {
    2
}

impl Default for CallPolicy {
    fn default() -> Self {
        CallPolicy {
            max_retries: default_max_retries(),
            retry: RetryTuning::default(),
            rate_limit: RateLimit::default(),
            timeouts: Timeouts::default(),
        }
    }
}

impl CallPolicy {
    /// Checks the numbers without calling anything.
    pub fn validate(&self) -> Result<()> {
        if self.max_retries > 10 {
            return Err(Error::config("provider.maxRetries must be at most 10"));
        }
        if self.retry.initial_delay_ms == 0 || self.retry.max_delay_ms < self.retry.initial_delay_ms {
            return Err(Error::config(
                "provider.retry needs 0 < initialDelayMs <= maxDelayMs",
            ));
        }
        for (name, value) in [
            ("requestsPerMinute", self.rate_limit.requests_per_minute),
            ("tokensPerMinute", self.rate_limit.tokens_per_minute),
        ] {
            if value == Some(0) {
                return Err(Error::config(format!(
                    "provider.rateLimit.{name} must be at least 1"
                )));
            }
        }
        for (name, value) in [
            ("firstChunkMs", self.timeouts.first_chunk_ms),
            ("idleMs", self.timeouts.idle_ms),
            ("totalMs", self.timeouts.total_ms),
        ] {
            if value == Some(0) {
                return Err(Error::config(format!(
                    "provider.timeouts.{name} must be at least 1"
                )));
            }
        }
        Ok(())
    }
}

/// Exponential backoff with jitter.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryTuning {
    /// The first wait; each retry doubles it. Default 500 ms.
    #[serde(default = "default_initial_delay")]
    pub initial_delay_ms: u64,
    /// The longest computed wait. Default 8 s.
    #[serde(default = "default_max_delay")]
    pub max_delay_ms: u64,
    /// The longest wait a server's `Retry-After` may impose. Default 60 s.
    #[serde(default = "default_max_retry_after")]
    pub max_retry_after_ms: u64,
}

fn default_initial_delay() -> u64 {
    500
}
fn default_max_delay() -> u64 {
    8_000
}
fn default_max_retry_after() -> u64 {
    60_000
}

impl Default for RetryTuning {
    fn default() -> Self {
        RetryTuning {
            initial_delay_ms: default_initial_delay(),
            max_delay_ms: default_max_delay(),
            max_retry_after_ms: default_max_retry_after(),
        }
    }
}

/// A client-side budget; calls past it wait rather than fail.
#[derive(Debug, Clone, Default, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RateLimit {
    /// Requests in any 60-second window.
    #[serde(default)]
    pub requests_per_minute: Option<u32>,
    /// Tokens (estimated before, corrected after each call) in any 60-second window.
    #[serde(default)]
    pub tokens_per_minute: Option<u32>,
}

/// Time limits of one model call; each failure is a `TimeoutError`.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Timeouts {
    /// From sending the request to the first part of the answer. Default 120 s.
    #[serde(default = "default_first_chunk")]
    pub first_chunk_ms: Option<u64>,
    /// Between two parts of a streamed answer. Default 60 s.
    #[serde(default = "default_idle")]
    pub idle_ms: Option<u64>,
    /// For the whole call. Default none.
    #[serde(default)]
    pub total_ms: Option<u64>,
}

fn default_first_chunk() -> Option<u64> {
    Some(120_000)
}
fn default_idle() -> Option<u64> {
    Some(60_000)
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            first_chunk_ms: default_first_chunk(),
            idle_ms: default_idle(),
            total_ms: None,
        }
    }
}
