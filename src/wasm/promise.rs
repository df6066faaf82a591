//! A Rust future as the promise a JS method returns.

use std::future::Future;

use js_sys::Promise;
use wasm_bindgen::JsValue;

use super::js::{error_to_js, to_js};
use super::panic_guard::guarded_promise;
use crate::error::Result;

/// Runs `work` as a promise that resolves with its value converted for JS or
/// rejects with a typed JS `Error`.
pub fn promise<T, F>(work: F) -> Promise
where
    T: serde::Serialize,
    F: Future<Output = Result<T>> + 'static,
{
    js_promise(async move { work.await.and_then(|value| to_js(&value)) })
}

/// [`promise`] for work that already made its value for JS.
pub fn js_promise<F>(work: F) -> Promise
where
    F: Future<Output = Result<JsValue>> + 'static,
{
    guarded_promise(async move { work.await.map_err(|error| error_to_js(&error)) })
}
