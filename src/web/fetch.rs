//! The browser transport: `fetch`, with the body read as a stream.

use futures::future::LocalBoxFuture;
use futures::StreamExt;
use gloo_net::http::{Method, RequestBuilder};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStream, ReadableStreamDefaultReader};

use crate::error::{Error, Result};
use crate::http::{abortable, ByteStream, HttpRequest, HttpResponse, Transport};
use crate::runtime::cancel::CancelToken;

/// Sends requests with the global `fetch` (window or worker).
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchTransport;

impl Transport for FetchTransport {
    fn send(&self, request: HttpRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<HttpResponse>> {
        let cancel = cancel.clone();
        Box::pin(async move {
            cancel.check()?;
            let controller =
                AbortController::new().map_err(|_| Error::config("this browser has no AbortController"))?;
            let signal = controller.signal();
            // Given up on (dropped by a timeout) before its body was read, the fetch is aborted.
            let given_up = AbortOnDrop(controller.clone());
            cancel.on_cancel(move || controller.abort());
            let method = Method::from_bytes(request.method.as_bytes())
                .map_err(|_| Error::config(format!("invalid HTTP method {}", request.method)))?;
            let mut builder = RequestBuilder::new(&request.url)
                .method(method)
                .abort_signal(Some(&signal));
            for (name, value) in &request.headers {
                builder = builder.header(name, value);
            }
            // fetch refuses any body, even an empty one, on a GET or a HEAD.
            let built = if request.body.is_empty() && matches!(request.method.as_str(), "GET" | "HEAD") {
                builder.build()
            } else {
                builder.body(request.body)
            };
            let response = built
                .map_err(|e| Error::config(format!("cannot build request to {}: {e}", request.url)))?
                .send();
            let response = cancel
                .run(async {
                    response
                        .await
                        .map_err(|e| Error::connection(format!("fetch {} failed: {e}", request.url)))
                })
                .await?;
            let headers = response
                .headers()
                .entries()
                .map(|(k, v)| (k.to_ascii_lowercase(), v))
                .collect();
            let body = match response.body() {
                Some(stream) => read_stream(stream)?,
                None => Box::pin(futures::stream::empty()),
            };
            let body = Box::pin(body.inspect(move |_| {
                let _held = &given_up;
            }));
            Ok(HttpResponse {
                status: response.status(),
                headers,
                body: abortable(body, cancel),
            })
        })
    }
}

/// Aborts its fetch when dropped: the server sees the connection closed. Once
/// the body was read to the end, aborting changes nothing.
struct AbortOnDrop(AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Turns a `ReadableStream` of `Uint8Array`s into a [`ByteStream`], one read per chunk.
fn read_stream(stream: ReadableStream) -> Result<ByteStream> {
    let reader: ReadableStreamDefaultReader = stream
        .get_reader()
        .dyn_into()
        .map_err(|_| Error::protocol("response body has no default reader"))?;
    Ok(Box::pin(futures::stream::unfold(
        Some(CancelOnDrop(Some(reader))),
        |reader| async move {
            let reader = reader?;
            match read_chunk(reader.reader()).await {
                Ok(Some(bytes)) => Some((Ok(bytes), Some(reader))),
                Ok(None) => {
                    reader.finished();
                    None
                }
                Err(e) => Some((Err(e), None)),
            }
        },
    )))
}

/// A body's reader that cancels the stream when dropped before its end (a
/// timeout, an abort): cancelling the body ends the fetch, where aborting its
/// signal alone left WebKit's connection open.
struct CancelOnDrop(Option<ReadableStreamDefaultReader>);

impl CancelOnDrop {
    fn reader(&self) -> &ReadableStreamDefaultReader {
        self.0.as_ref().expect("a reader until the body ended")
    }

    /// The body was read to its end: nothing to cancel (the reader is released, not leaked).
    fn finished(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(reader) = self.0.take() else { return };
        // An aborted stream rejects the cancel: awaited, so nothing reaches `unhandledrejection`.
        let cancelled = JsFuture::from(reader.cancel());
        wasm_bindgen_futures::spawn_local(async move {
            let _ = cancelled.await;
        });
    }
}

async fn read_chunk(reader: &ReadableStreamDefaultReader) -> Result<Option<Vec<u8>>> {
    let result = JsFuture::from(reader.read())
        .await
        .map_err(|e| Error::connection(format!("response body broke off: {}", describe(&e))))?;
    let done = Reflect::get(&result, &JsValue::from_str("done"))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(true);
    if done {
        return Ok(None);
    }
    let value = Reflect::get(&result, &JsValue::from_str("value"))
        .map_err(|_| Error::protocol("stream chunk without value"))?;
    let bytes: Uint8Array = value
        .dyn_into()
        .map_err(|_| Error::protocol("stream chunk is not a Uint8Array"))?;
    Ok(Some(bytes.to_vec()))
}

fn describe(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}
