//! Racing work against a timer.

use std::future::Future;

use futures::future::{select, Either};

use super::Clock;
use crate::error::{Error, Result};

/// Runs `work`, failing with `Timeout` if it takes longer than `limit_ms`
/// (no limit when `None`).
pub async fn within<T>(
    clock: &dyn Clock,
    limit_ms: Option<u64>,
    work: impl Future<Output = Result<T>>,
) -> Result<T> {
    let Some(limit) = limit_ms else {
        return work.await;
    };
    let work = std::pin::pin!(work);
    match select(work, clock.sleep(limit)).await {
        Either::Left((result, _)) => result,
        Either::Right(((), _)) => Err(Error::Timeout { after_ms: limit }),
    }
}
