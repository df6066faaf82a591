//! A Rust future as the promise a JS method returns.

use std::future::Future;

use js_sys::Promise;

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
    guarded_promise(async move {
        match work.await.and_then(|value| to_js(&value)) {
            Ok(value) => Ok(value),
            Err(error) => Err(error_to_js(&error)),
        }
    })
}
