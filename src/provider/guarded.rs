//! A [`Model`] wrapper that adds the call policy: rate limit, retries with
//! backoff, timeouts and cancellation, around any provider.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::StreamExt;

use super::policy::CallPolicy;
use super::rate_limit::RateLimiter;
use super::retry::with_retries;
use super::timeouts::guard_parts;
use super::{Model, ModelRequest, PartStream, StreamPart};
use crate::domain::Endpoint;
use crate::error::Result;
use crate::runtime::cancel::CancelToken;
use crate::runtime::time::{within, Clock};

/// Wraps a provider with a [`CallPolicy`].
///
/// A call is retried only while nothing of its answer was delivered: a failure
/// of the request itself, or an error as the very first part of the stream.
/// Once a part went out, a later error ends the stream as it is (no duplicated
/// deltas).
pub struct GuardedModel {
    inner: Rc<dyn Model>,
    clock: Rc<dyn Clock>,
    policy: CallPolicy,
    limiter: Rc<RateLimiter>,
    local: bool,
}

impl GuardedModel {
    /// `inner` under `policy`, timed by `clock`.
    pub fn new(inner: Rc<dyn Model>, clock: Rc<dyn Clock>, policy: CallPolicy) -> Self {
        let limiter = Rc::new(RateLimiter::new(policy.rate_limit.clone()));
        GuardedModel {
            inner,
            clock,
            policy,
            limiter,
            local: false,
        }
    }

    /// Declares the model local (`provider.local`), as its endpoint says.
    pub fn local(mut self, local: bool) -> Self {
        self.local = local;
        self
    }

    /// One attempt: the request and its first part, within the first-chunk timeout.
    async fn attempt(
        &self,
        request: &ModelRequest,
        cancel: &CancelToken,
    ) -> Result<(PartStream, Option<Result<StreamPart>>)> {
        let first_chunk = self.policy.timeouts.first_chunk_ms;
        let attempt = async {
            let mut parts = self.inner.stream(request, cancel).await?;
            let first = parts.next().await;
            Ok((parts, first))
        };
        cancel.run(within(&*self.clock, first_chunk, attempt)).await
    }
}

/// The tokens a request may use, for the rate limiter: its estimated
/// prompt plus the answer's limit.
fn estimate_tokens(request: &ModelRequest) -> u64 {
    let prompt = request
        .system
        .as_deref()
        .map_or(0, crate::domain::estimate_tokens)
        + request
            .messages
            .iter()
            .map(|m| 4 + crate::domain::estimate_tokens(&m.content))
            .sum::<usize>();
    prompt as u64 + u64::from(request.max_tokens.unwrap_or(0))
}

impl Model for GuardedModel {
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>> {
        let request = request.clone();
        let cancel = cancel.clone();
        Box::pin(async move {
            // Each attempt waits for the rate limiter; an error as the first part
            // counts as the attempt failing, so it is retried like a failed request.
            let attempt = || async {
                self.limiter
                    .acquire(&*self.clock, estimate_tokens(&request), &cancel)
                    .await?;
                let started = self.clock.now_ms();
                match self.attempt(&request, &cancel).await? {
                    (_, Some(Err(error))) => Err(error),
                    (parts, first) => Ok((parts, first, started)),
                }
            };
            let (parts, first, started) = with_retries(&*self.clock, &self.policy, &cancel, attempt).await?;
            let Some(Ok(first)) = first else {
                return Ok(Box::pin(futures::stream::empty()) as PartStream);
            };
            let limiter = self.limiter.clone();
            let rest = futures::stream::once(async move { Ok(first) }).chain(parts);
            let total = self.policy.timeouts.total_ms.map(|ms| (ms, started + ms as f64));
            let guarded = guard_parts(
                Box::pin(rest),
                self.clock.clone(),
                self.policy.timeouts.idle_ms,
                total,
                cancel,
            );
            let metered = guarded.inspect(move |part| {
                if let Ok(StreamPart::Usage(usage)) = part {
                    limiter.record_usage(usage.input_tokens + usage.output_tokens);
                }
            });
            Ok(Box::pin(metered) as PartStream)
        })
    }

    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint {
            local: self.local,
            ..self.inner.endpoint()
        }
    }
}
