//! The part every HTTP provider shares: send, map error statuses, decode the
//! answer streamed or whole. A provider only says how its wire format looks.

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::{error_for_status, Model, ModelRequest, PartStream, StreamPart};
use crate::domain::Endpoint;
use crate::domain::SortedMap;
use crate::error::Result;
use crate::http::{ByteStream, HttpRequest, Transport};
use crate::runtime::cancel::CancelToken;
use crate::runtime::time::Clock;

/// How one provider's API looks on the wire.
pub trait WireFormat {
    /// The model name requests carry.
    fn model(&self) -> &str;
    /// The provider and host requests go to.
    fn endpoint(&self) -> Endpoint;
    /// Whether answers are requested as an SSE stream.
    fn streams(&self) -> bool;
    /// The HTTP request for `request`.
    fn http_request(&self, request: &ModelRequest) -> HttpRequest;
    /// Decodes a streamed body.
    fn decode_stream(&self, body: ByteStream) -> PartStream;
    /// Decodes a whole JSON answer.
    fn decode_whole(&self, body: &str) -> Result<Vec<StreamPart>>;
}

/// A POST of a JSON body with the usual provider headers: `accept` for
/// streams, then the provider's own, then the host's extra headers.
pub fn json_request(
    url: String,
    body: String,
    stream: bool,
    own: Vec<(String, String)>,
    extra: &SortedMap<String, String>,
) -> HttpRequest {
    let mut http = HttpRequest::post_json(url, body);
    if stream {
        http = http.header("accept", "text/event-stream");
    }
    for (name, value) in own {
        http = http.header(name, value);
    }
    for (name, value) in extra {
        http = http.header(name.clone(), value.clone());
    }
    http
}

/// A [`Model`] reached over HTTP in wire format `W`.
pub struct HttpModel<W> {
    wire: W,
    transport: Rc<dyn Transport>,
    clock: Rc<dyn Clock>,
}

impl<W: WireFormat> HttpModel<W> {
    /// A provider sending through `transport`; `clock` dates `Retry-After`.
    pub fn new(wire: W, transport: Rc<dyn Transport>, clock: Rc<dyn Clock>) -> Self {
        HttpModel {
            wire,
            transport,
            clock,
        }
    }
}

impl<W: WireFormat> Model for HttpModel<W> {
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>> {
        let http = self.wire.http_request(request);
        let cancel = cancel.clone();
        Box::pin(async move {
            let response = self.transport.send(http, &cancel).await?;
            if !(200..300).contains(&response.status) {
                return Err(error_for_status(response, self.clock.now_ms()).await);
            }
            if self.wire.streams() {
                Ok(self.wire.decode_stream(response.body))
            } else {
                let text = response.text().await?;
                let parts = self.wire.decode_whole(&text)?;
                Ok(Box::pin(futures::stream::iter(parts.into_iter().map(Ok))) as PartStream)
            }
        })
    }

    fn model_name(&self) -> &str {
        self.wire.model()
    }

    fn endpoint(&self) -> Endpoint {
        self.wire.endpoint()
    }
}
