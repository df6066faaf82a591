//! Mapping HTTP error statuses to typed errors.

use super::retry_after::retry_after_ms;
use crate::error::Error;
use crate::http::HttpResponse;

/// Longest body excerpt kept in an error.
const BODY_EXCERPT_CHARS: usize = 500;

/// The typed error for a non-2xx response, reading its body for the excerpt.
///
/// 401/403 are `Auth`, 429 is `RateLimited` (wait from `retry-after-ms` or
/// `Retry-After` seconds or HTTP-date, relative to `now_ms`), anything else `Api`.
pub async fn error_for_status(response: HttpResponse, now_ms: f64) -> Error {
    let status = response.status;
    let retry_after_ms = retry_after_ms(&response, now_ms);
    let body = response.text().await.unwrap_or_default();
    error_for(status, &body, retry_after_ms)
}

/// The typed error for a failed call's `status`, with an excerpt of `body`:
/// 401/403 are `Auth`, 429 is `RateLimited` (after `retry_after_ms`),
/// anything else `Api`. For HTTP responses and for a host function's
/// thrown `{ status }` alike.
pub fn error_for(status: u16, body: &str, retry_after_ms: Option<u64>) -> Error {
    let body: String = body.chars().take(BODY_EXCERPT_CHARS).collect();
    match status {
        401 | 403 => Error::Auth { status, body },
        429 => Error::RateLimited { retry_after_ms },
        _ => Error::Api { status, body },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{HttpRequest, RecordedResponse, ReplayTransport, Transport};

    fn error_of(recorded: RecordedResponse) -> Error {
        let transport = ReplayTransport::new();
        transport.push(recorded);
        futures::executor::block_on(async {
            let response = transport
                .send(
                    HttpRequest::post_json("http://x", String::new()),
                    &Default::default(),
                )
                .await
                .unwrap();
            error_for_status(response, 0.0).await
        })
    }

    #[test]
    fn maps_statuses_to_kinds() {
        assert!(matches!(
            error_of(RecordedResponse::status(401, "no key")),
            Error::Auth { status: 401, .. }
        ));
        assert!(matches!(
            error_of(RecordedResponse::status(403, "")),
            Error::Auth { status: 403, .. }
        ));
        assert_eq!(
            error_of(RecordedResponse::status(429, "slow down").with_header("Retry-After", "2")),
            Error::RateLimited {
                retry_after_ms: Some(2000)
            }
        );
        assert_eq!(
            error_of(RecordedResponse::status(429, "").with_header("retry-after-ms", "150")),
            Error::RateLimited {
                retry_after_ms: Some(150)
            }
        );
        assert_eq!(
            error_of(RecordedResponse::status(500, "boom")),
            Error::Api {
                status: 500,
                body: "boom".into()
            }
        );
    }

    #[test]
    fn long_bodies_are_cut_to_an_excerpt() {
        let body = "x".repeat(5000);
        match error_of(RecordedResponse::status(400, &body)) {
            Error::Api { body, .. } => assert_eq!(body.len(), BODY_EXCERPT_CHARS),
            other => panic!("{other:?}"),
        }
    }
}
