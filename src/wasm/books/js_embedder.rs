//! `embedder: { kind: 'custom', model, embed }`: the host's in-browser model.

use futures::future::LocalBoxFuture;
use js_sys::{Array, Float32Array, Function, Promise};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::error::{Error, Result};
use crate::retrieval::embed::Embedder;
use crate::runtime::cancel::CancelToken;
use crate::wasm::js::{describe_js, to_js};

/// Calls `embed(texts)`, which resolves with one `Float32Array` (or number array) per text.
pub struct JsEmbedder {
    function: Function,
    model: String,
    batch_size: usize,
}

impl JsEmbedder {
    /// Wraps the host's function.
    pub fn new(function: Function, model: String, batch_size: usize) -> Self {
        JsEmbedder {
            function,
            model,
            batch_size,
        }
    }
}

fn vector_of(value: JsValue, i: usize) -> Result<Vec<f32>> {
    if let Some(array) = value.dyn_ref::<Float32Array>() {
        return Ok(array.to_vec());
    }
    if let Some(array) = value.dyn_ref::<Array>() {
        return array
            .iter()
            .map(|v| v.as_f64().map(|x| x as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| Error::protocol(format!("embedding {i} has a value that is not a number")));
    }
    Err(Error::protocol(format!(
        "embedding {i} is neither a Float32Array nor an array of numbers"
    )))
}

impl Embedder for JsEmbedder {
    fn model(&self) -> &str {
        &self.model
    }

    fn batch_size(&self) -> usize {
        self.batch_size.max(1)
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>> {
        Box::pin(async move {
            let failed = |e: JsValue| Error::Tool {
                tool: "embedder".into(),
                message: describe_js(&e),
            };
            let returned = self
                .function
                .call1(&JsValue::NULL, &to_js(texts)?)
                .map_err(failed)?;
            let value = cancel
                .run(async { JsFuture::from(Promise::resolve(&returned)).await.map_err(failed) })
                .await?;
            let list: Array = value
                .dyn_into()
                .map_err(|_| Error::protocol("the embedder must resolve with an array of vectors"))?;
            list.iter().enumerate().map(|(i, v)| vector_of(v, i)).collect()
        })
    }
}
