//! `resolveMention`: the host's function that turns `{ type, id }` into text.

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::agent::MentionResolver;
use crate::domain::Mention;
use crate::error::{Error, Result};
use crate::wasm::js::{describe_js, to_js};

/// Calls the host's `resolveMention(mention)`, which returns (or resolves to) a string.
pub struct JsMentionResolver {
    function: Function,
}

impl JsMentionResolver {
    /// Wraps the host's function.
    pub fn new(function: Function) -> Self {
        JsMentionResolver { function }
    }
}

impl MentionResolver for JsMentionResolver {
    fn resolve(&self, mention: &Mention) -> LocalBoxFuture<'_, Result<String>> {
        let mention = mention.clone();
        Box::pin(async move {
            let failed = |e: &JsValue| Error::Tool {
                tool: "resolveMention".into(),
                message: format!("{} {}: {}", mention.kind, mention.id, describe_js(e)),
            };
            let returned = self
                .function
                .call1(&JsValue::NULL, &to_js(&mention)?)
                .map_err(|e| failed(&e))?;
            let value = JsFuture::from(Promise::resolve(&returned))
                .await
                .map_err(|e| failed(&e))?;
            value.as_string().ok_or_else(|| Error::Tool {
                tool: "resolveMention".into(),
                message: format!(
                    "{} {}: the resolver must return a string",
                    mention.kind, mention.id
                ),
            })
        })
    }
}
