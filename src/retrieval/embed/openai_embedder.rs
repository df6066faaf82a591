//! OpenAI-compatible `POST /embeddings`, batched, with the chat providers'
//! retries and typed errors.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::http::{HttpRequest, Transport};
use crate::json::from_json::FromJson;
use crate::provider::{error_for_status, with_retries, CallPolicy};
use crate::retrieval::embed::Embedder;
use crate::runtime::cancel::CancelToken;
use crate::runtime::time::Clock;

/// `embedder: { kind: 'openai', ... }`.
#[derive(Debug, Clone, PartialEq, FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenAiEmbedderSettings {
    /// Base URL up to and including `/v1`.
    pub base_url: String,
    /// Embedding model, e.g. `text-embedding-3-small`.
    pub model: String,
    /// Bearer token.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Extra headers.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Texts per request (default 64).
    #[serde(default = "default_batch")]
    pub batch_size: usize,
    /// Asked-for dimension (`dimensions`), for models that can shorten vectors.
    #[serde(default)]
    pub dimensions: Option<u32>,
    /// Retries (default 2).
    #[serde(default = "default_retries")]
    pub max_retries: u32,
}

fn default_batch() -> usize {
    64
}
fn default_retries() -> u32 {
    2
}

/// Embeds through an OpenAI-compatible server.
pub struct OpenAiEmbedder {
    settings: OpenAiEmbedderSettings,
    transport: Rc<dyn Transport>,
    clock: Rc<dyn Clock>,
    policy: CallPolicy,
    dims: Cell<Option<usize>>,
}

impl OpenAiEmbedder {
    /// An embedder sending through `transport`.
    pub fn new(settings: OpenAiEmbedderSettings, transport: Rc<dyn Transport>, clock: Rc<dyn Clock>) -> Self {
        let policy = CallPolicy {
            max_retries: settings.max_retries,
            ..CallPolicy::default()
        };
        OpenAiEmbedder {
            settings,
            transport,
            clock,
            policy,
            dims: Cell::new(None),
        }
    }

    fn request(&self, texts: &[String]) -> HttpRequest {
        let url = format!("{}/embeddings", self.settings.base_url.trim_end_matches('/'));
        let mut body = json!({ "model": self.settings.model, "input": texts, "encoding_format": "float" });
        if let Some(dims) = self.settings.dimensions {
            body["dimensions"] = json!(dims);
        }
        let mut http = HttpRequest::post_json(url, body.to_string());
        if let Some(key) = self.settings.api_key.as_deref().filter(|k| !k.is_empty()) {
            http = http.header("authorization", format!("Bearer {key}"));
        }
        for (name, value) in &self.settings.headers {
            http = http.header(name.clone(), value.clone());
        }
        http
    }

    async fn call(&self, texts: &[String], cancel: &CancelToken) -> Result<Vec<Vec<f32>>> {
        let response = self.transport.send(self.request(texts), cancel).await?;
        if !(200..300).contains(&response.status) {
            return Err(error_for_status(response, self.clock.now_ms()).await);
        }
        let body: Value = serde_json::from_str(&response.text().await?)
            .map_err(|e| Error::protocol(format!("embeddings response is not JSON: {e}")))?;
        let mut data: Vec<(u64, Vec<f32>)> = body["data"]
            .as_array()
            .ok_or_else(|| Error::protocol("embeddings response has no data array"))?
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let index = item["index"].as_u64().unwrap_or(i as u64);
                let vector = item["embedding"]
                    .as_array()
                    .ok_or_else(|| Error::protocol(format!("embedding {index} is not an array of numbers")))?
                    .iter()
                    .map(|v| v.as_f64().map(|x| x as f32))
                    .collect::<Option<Vec<f32>>>()
                    .ok_or_else(|| {
                        Error::protocol(format!("embedding {index} has a value that is not a number"))
                    })?;
                Ok((index, vector))
            })
            .collect::<Result<_>>()?;
        data.sort_by_key(|(index, _)| *index);
        if data.len() != texts.len() {
            return Err(Error::protocol(format!(
                "{} embeddings came back for {} texts",
                data.len(),
                texts.len()
            )));
        }
        for (_, vector) in &data {
            match self.dims.get() {
                None => self.dims.set(Some(vector.len())),
                Some(dims) if dims != vector.len() => {
                    return Err(Error::EmbedderMismatch {
                        message: format!(
                            "{} returned {} dimensions after {dims}",
                            self.settings.model,
                            vector.len()
                        ),
                    })
                }
                Some(_) => {}
            }
        }
        Ok(data.into_iter().map(|(_, v)| v).collect())
    }
}

impl Embedder for OpenAiEmbedder {
    fn model(&self) -> &str {
        &self.settings.model
    }

    fn batch_size(&self) -> usize {
        self.settings.batch_size.clamp(1, 2048)
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>> {
        Box::pin(with_retries(&*self.clock, &self.policy, cancel, move || {
            self.call(texts, cancel)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{RecordedResponse, ReplayTransport};
    use crate::runtime::time::ManualClock;

    fn embedder(transport: &ReplayTransport) -> OpenAiEmbedder {
        let settings: OpenAiEmbedderSettings = FromJson::from_json(
            json!({"baseUrl": "http://x/v1", "model": "text-embedding-3-small", "apiKey": "k"}),
        )
        .unwrap();
        OpenAiEmbedder::new(
            settings,
            Rc::new(transport.clone()),
            Rc::new(ManualClock::new(0.0)),
        )
    }

    #[test]
    fn batches_come_back_in_input_order_and_errors_are_retried() {
        let transport = ReplayTransport::new();
        transport.push(RecordedResponse::status(503, "busy"));
        transport.push(RecordedResponse::status(
            200,
            r#"{"object":"list","data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}],"model":"m"}"#,
        ));
        let e = embedder(&transport);
        let texts = vec!["a".to_string(), "b".to_string()];
        let vectors = futures::executor::block_on(e.embed(&texts, &CancelToken::new())).unwrap();
        assert_eq!(vectors, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!(transport.requests().len(), 2);
        let body = &transport.request_bodies()[1];
        assert_eq!(body["input"], json!(["a", "b"]));
        assert_eq!(body["model"], "text-embedding-3-small");
    }

    #[test]
    fn a_dimension_change_is_a_typed_error() {
        let transport = ReplayTransport::new();
        transport.push(RecordedResponse::status(
            200,
            r#"{"data":[{"index":0,"embedding":[1,0]}]}"#,
        ));
        transport.push(RecordedResponse::status(
            200,
            r#"{"data":[{"index":0,"embedding":[1,0,0]}]}"#,
        ));
        let e = embedder(&transport);
        let texts = vec!["a".to_string()];
        futures::executor::block_on(e.embed(&texts, &CancelToken::new())).unwrap();
        let err = futures::executor::block_on(e.embed(&texts, &CancelToken::new())).unwrap_err();
        assert_eq!(err.name(), "EmbedderMismatchError");
        transport.push(RecordedResponse::status(401, "no"));
        assert_eq!(
            futures::executor::block_on(e.embed(&texts, &CancelToken::new()))
                .unwrap_err()
                .name(),
            "AuthError"
        );
    }
}
