//! A transport that replays recorded responses and remembers what was sent.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use futures::StreamExt;

use super::{abortable, ByteStream, HttpRequest, HttpResponse, Transport};
use crate::error::{Error, Result};
use crate::runtime::cancel::CancelToken;

/// One recorded answer: status, headers and the body as the chunks it arrived in.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedResponse {
    /// HTTP status code.
    pub status: u16,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// Body chunks, delivered one by one.
    pub chunks: Vec<Vec<u8>>,
    /// If set, the body breaks off with a `Connection` error after the chunks.
    pub drop_after_chunks: bool,
    /// If set, the body never ends after the chunks (for timeout tests).
    pub hang_after_chunks: bool,
    /// If set, the headers never arrive (for timeout tests).
    pub hang_before_headers: bool,
}

impl RecordedResponse {
    /// A 200 whose body arrives as the given chunks.
    pub fn ok_chunks<I, C>(content_type: &str, chunks: I) -> Self
    where
        I: IntoIterator<Item = C>,
        C: Into<Vec<u8>>,
    {
        RecordedResponse {
            status: 200,
            headers: vec![("content-type".into(), content_type.into())],
            chunks: chunks.into_iter().map(Into::into).collect(),
            drop_after_chunks: false,
            hang_after_chunks: false,
            hang_before_headers: false,
        }
    }

    /// A response with this status and a whole body.
    pub fn status(status: u16, body: &str) -> Self {
        RecordedResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.as_bytes().to_vec()],
            drop_after_chunks: false,
            hang_after_chunks: false,
            hang_before_headers: false,
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }
}

/// Replays queued responses in order and records every request sent.
///
/// Cloning shares the queue and the record, so a test keeps a handle after
/// giving the transport away.
#[derive(Debug, Clone, Default)]
pub struct ReplayTransport {
    responses: Rc<RefCell<VecDeque<RecordedResponse>>>,
    requests: Rc<RefCell<Vec<HttpRequest>>>,
    open: Rc<Cell<usize>>,
}

/// Counts a request as open while its response future or body stream lives.
struct OpenRequest(Rc<Cell<usize>>);

impl OpenRequest {
    fn new(open: &Rc<Cell<usize>>) -> Self {
        open.set(open.get() + 1);
        OpenRequest(open.clone())
    }
}

impl Drop for OpenRequest {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

impl ReplayTransport {
    /// A transport with nothing queued.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues the next response.
    pub fn push(&self, response: RecordedResponse) -> &Self {
        self.responses.borrow_mut().push_back(response);
        self
    }

    /// Every request sent so far.
    pub fn requests(&self) -> Vec<HttpRequest> {
        self.requests.borrow().clone()
    }

    /// Requests whose response is still awaited or whose body is still held
    /// (neither was dropped): what a server would see as open connections.
    pub fn open_requests(&self) -> usize {
        self.open.get()
    }

    /// The JSON bodies of every request sent so far.
    pub fn request_bodies(&self) -> Vec<serde_json::Value> {
        self.requests
            .borrow()
            .iter()
            .map(|r| serde_json::from_str(&r.body).unwrap_or(serde_json::Value::Null))
            .collect()
    }
}

impl Transport for ReplayTransport {
    fn send(&self, request: HttpRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<HttpResponse>> {
        self.requests.borrow_mut().push(request);
        let next = self.responses.borrow_mut().pop_front();
        let cancel = cancel.clone();
        let open = OpenRequest::new(&self.open);
        Box::pin(async move {
            cancel.check()?;
            let recorded = next.ok_or_else(|| Error::connection("replay transport: no response queued"))?;
            if recorded.hang_before_headers {
                let _open = open;
                return cancel.run(futures::future::pending()).await;
            }
            let mut items: Vec<Result<Vec<u8>>> = recorded.chunks.into_iter().map(Ok).collect();
            if recorded.drop_after_chunks {
                items.push(Err(Error::connection("connection dropped mid-body")));
            }
            let chunks = futures::stream::iter(items);
            let body: ByteStream = if recorded.hang_after_chunks {
                Box::pin(chunks.chain(futures::stream::pending()))
            } else {
                Box::pin(chunks)
            };
            let body = Box::pin(body.inspect(move |_| {
                let _held = &open;
            }));
            Ok(HttpResponse {
                status: recorded.status,
                headers: recorded.headers,
                body: abortable(body, cancel),
            })
        })
    }
}
