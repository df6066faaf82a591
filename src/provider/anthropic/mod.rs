//! Anthropic's Messages API.

use std::collections::BTreeMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::sse_body::decode_sse_body;
use super::{error_for_status, Model, ModelRequest, PartStream};
use crate::cancel::CancelToken;
use crate::error::Result;
use crate::http::{HttpRequest, Transport};
use crate::time::Clock;

mod request;
mod response;
mod stream;

pub use request::request_body;
pub use response::parts_from_message;
pub use stream::EventDecoder as AnthropicDecoder;

/// An Anthropic endpoint and the model to ask.
#[derive(Debug, Clone, PartialEq)]
pub struct AnthropicSettings {
    /// Base URL up to and including `/v1`.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// The `x-api-key`.
    pub api_key: Option<String>,
    /// Ask for an SSE stream.
    pub stream: bool,
    /// Extra headers.
    pub headers: BTreeMap<String, String>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// `max_tokens` (required by the API).
    pub max_tokens: u32,
    /// The `anthropic-version` header.
    pub anthropic_version: String,
}

/// A [`Model`] served by the Anthropic Messages API.
pub struct AnthropicProvider {
    settings: AnthropicSettings,
    transport: Rc<dyn Transport>,
    clock: Rc<dyn Clock>,
}

impl AnthropicProvider {
    /// A provider sending through `transport`; `clock` dates `Retry-After`.
    pub fn new(settings: AnthropicSettings, transport: Rc<dyn Transport>, clock: Rc<dyn Clock>) -> Self {
        AnthropicProvider {
            settings,
            transport,
            clock,
        }
    }

    fn http_request(&self, request: &ModelRequest) -> HttpRequest {
        let url = format!("{}/messages", self.settings.base_url.trim_end_matches('/'));
        let body = request_body(&self.settings, request).to_string();
        let mut http = HttpRequest::post_json(url, body)
            .header("anthropic-version", self.settings.anthropic_version.clone())
            .header("anthropic-dangerous-direct-browser-access", "true");
        if self.settings.stream {
            http = http.header("accept", "text/event-stream");
        }
        if let Some(key) = self.settings.api_key.as_deref().filter(|k| !k.is_empty()) {
            http = http.header("x-api-key", key);
        }
        for (name, value) in &self.settings.headers {
            http = http.header(name.clone(), value.clone());
        }
        http
    }
}

impl Model for AnthropicProvider {
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>> {
        let http = self.http_request(request);
        let cancel = cancel.clone();
        Box::pin(async move {
            let response = self.transport.send(http, &cancel).await?;
            if !(200..300).contains(&response.status) {
                return Err(error_for_status(response, self.clock.now_ms()).await);
            }
            if self.settings.stream {
                Ok(decode_sse_body(response.body, AnthropicDecoder::new()))
            } else {
                let text = response.text().await?;
                let parts = parts_from_message(&text)?;
                Ok(Box::pin(futures::stream::iter(parts.into_iter().map(Ok))) as PartStream)
            }
        })
    }

    fn model_name(&self) -> &str {
        &self.settings.model
    }
}
