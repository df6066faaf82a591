//! The HTTP transport seam.
//!
//! Providers build an [`HttpRequest`] and read the [`HttpResponse`] body as a
//! stream of byte chunks, so streamed answers are decoded as they arrive.
//! The browser sends with `fetch` (`web::FetchTransport`, `wasm32` only);
//! native tests replay recorded responses and check what was sent
//! ([`ReplayTransport`]).

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;
use futures::StreamExt;

use crate::error::{Error, Result};
use crate::runtime::cancel::CancelToken;

mod replay;

pub use replay::{RecordedResponse, ReplayTransport};

/// A response body, chunk by chunk as the network delivers it.
pub type ByteStream = LocalBoxStream<'static, Result<Vec<u8>>>;

/// An outgoing HTTP request (always with a text body in Lectern's use).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Absolute URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body text (JSON for every provider call; empty for a `GET`).
    pub body: String,
}

impl HttpRequest {
    /// A `POST` of a JSON body.
    pub fn post_json(url: impl Into<String>, body: String) -> Self {
        HttpRequest {
            method: "POST".into(),
            url: url.into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body,
        }
    }

    /// A `GET` of `url` (no body), asking for JSON.
    pub fn get(url: impl Into<String>) -> Self {
        HttpRequest {
            method: "GET".into(),
            url: url.into(),
            headers: vec![("accept".into(), "application/json".into())],
            body: String::new(),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// The status line and headers of a response, with its body still to be read.
pub struct HttpResponse {
    /// HTTP status code.
    pub status: u16,
    /// Header names (lower-cased) and values.
    pub headers: Vec<(String, String)>,
    /// The body, as it arrives.
    pub body: ByteStream,
}

impl HttpResponse {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Reads the whole body as text (lossy UTF-8), for error bodies and non-streamed answers.
    pub async fn text(self) -> Result<String> {
        let mut bytes = Vec::new();
        let mut body = self.body;
        while let Some(chunk) = body.next().await {
            bytes.extend_from_slice(&chunk?);
        }
        String::from_utf8(bytes).map_err(|e| Error::protocol(format!("response body is not UTF-8: {e}")))
    }
}

impl std::fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

/// Sends HTTP requests.
pub trait Transport {
    /// Sends `request`; resolves once the status and headers arrived.
    /// A request that gets no HTTP answer is a `Connection` error; tripping
    /// `cancel` aborts the request and the body (`Aborted`).
    fn send(&self, request: HttpRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<HttpResponse>>;
}

/// Ends `body` with `Aborted` as soon as `cancel` trips.
pub fn abortable(body: ByteStream, cancel: CancelToken) -> ByteStream {
    Box::pin(futures::stream::unfold(
        (body, cancel, false),
        |(mut body, cancel, done)| async move {
            if done {
                return None;
            }
            match cancel.run(async { Ok(body.next().await) }).await {
                Ok(Some(item)) => Some((item, (body, cancel, false))),
                Ok(None) => None,
                Err(aborted) => Some((Err(aborted), (body, cancel, true))),
            }
        },
    ))
}
