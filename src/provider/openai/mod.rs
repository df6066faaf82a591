//! OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio, vLLM, llama.cpp, ...).

use std::collections::BTreeMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::{error_for_status, Model, ModelRequest, PartStream};
use crate::cancel::CancelToken;
use crate::error::Result;
use crate::http::{HttpRequest, Transport};
use crate::time::Clock;

mod request;
mod response;
mod stream;

pub use request::request_body;
pub use response::parts_from_response;
pub use stream::{decode_openai_body, ChunkDecoder};

/// A chat-completions endpoint and the model to ask.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiSettings {
    /// Base URL up to and including `/v1`.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Bearer token, if the server needs one.
    pub api_key: Option<String>,
    /// Ask for an SSE stream (otherwise one JSON answer).
    pub stream: bool,
    /// Extra headers.
    pub headers: BTreeMap<String, String>,
    /// Default sampling temperature.
    pub temperature: Option<f32>,
    /// Default token limit.
    pub max_tokens: Option<u32>,
    /// `tool_choice`, sent when tools are offered.
    pub tool_choice: Option<serde_json::Value>,
}

/// A [`Model`] served by an OpenAI-compatible server.
pub struct OpenAiProvider {
    settings: OpenAiSettings,
    transport: Rc<dyn Transport>,
    clock: Rc<dyn Clock>,
}

impl OpenAiProvider {
    /// A provider sending through `transport`; `clock` dates `Retry-After`.
    pub fn new(settings: OpenAiSettings, transport: Rc<dyn Transport>, clock: Rc<dyn Clock>) -> Self {
        OpenAiProvider {
            settings,
            transport,
            clock,
        }
    }

    fn http_request(&self, request: &ModelRequest) -> HttpRequest {
        let url = format!(
            "{}/chat/completions",
            self.settings.base_url.trim_end_matches('/')
        );
        let body = request_body(&self.settings, request).to_string();
        let mut http = HttpRequest::post_json(url, body);
        if self.settings.stream {
            http = http.header("accept", "text/event-stream");
        }
        if let Some(key) = self.settings.api_key.as_deref().filter(|k| !k.is_empty()) {
            http = http.header("authorization", format!("Bearer {key}"));
        }
        for (name, value) in &self.settings.headers {
            http = http.header(name.clone(), value.clone());
        }
        http
    }
}

impl Model for OpenAiProvider {
    fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> LocalBoxFuture<'_, Result<PartStream>> {
        let http = self.http_request(request);
        let cancel = cancel.clone();
        Box::pin(async move {
            let response = self.transport.send(http, &cancel).await?;
            if !(200..300).contains(&response.status) {
                return Err(error_for_status(response, self.clock.now_ms()).await);
            }
            if self.settings.stream {
                Ok(decode_openai_body(response.body))
            } else {
                let text = response.text().await?;
                let parts = parts_from_response(&text)?;
                Ok(Box::pin(futures::stream::iter(parts.into_iter().map(Ok))) as PartStream)
            }
        })
    }

    fn model_name(&self) -> &str {
        &self.settings.model
    }
}
