//! The stanza every `Lectern` method shares: take the instance's state, check
//! it is open, read an id argument, and run the work as a promise that
//! resolves with its value for JS or rejects with a typed `Error` — at once
//! with an `InternalError` if a panic broke Lectern (see [`crate::wasm::panic_guard`]).

use std::future::Future;
use std::rc::Rc;

use js_sys::Promise;
use serde::Serialize;
use wasm_bindgen::JsValue;

use super::lectern::{turn_outcome, Inner, Lectern};
use crate::agent::{TurnError, TurnResult};
use crate::error::Result;
use crate::wasm::js::{string_arg, to_js};
use crate::wasm::panic_guard::guarded_promise;
use crate::wasm::promise::js_promise;

impl Lectern {
    /// Runs `work` on the open instance as a promise.
    pub(super) fn call<T, F, Fut>(&self, work: F) -> Promise
    where
        T: Serialize,
        F: FnOnce(Rc<Inner>) -> Fut + 'static,
        Fut: Future<Output = Result<T>> + 'static,
    {
        self.call_js(move |inner| async move { to_js(&work(inner).await?) })
    }

    /// [`Lectern::call`] for work that makes its value for JS itself (a split-off
    /// chunk's, whose conversion code then loads with it).
    pub(super) fn call_js<F, Fut>(&self, work: F) -> Promise
    where
        F: FnOnce(Rc<Inner>) -> Fut + 'static,
        Fut: Future<Output = Result<JsValue>> + 'static,
    {
        let inner = self.inner.clone();
        js_promise(async move {
            inner.ensure_open()?;
            work(inner).await
        })
    }

    /// [`Lectern::call_js`] for a method whose first argument is a string id.
    pub(super) fn call_js_with_id<F, Fut>(&self, id: JsValue, name: &'static str, work: F) -> Promise
    where
        F: FnOnce(Rc<Inner>, String) -> Fut + 'static,
        Fut: Future<Output = Result<JsValue>> + 'static,
    {
        self.call_js(move |inner| async move {
            let id = string_arg(&id, name)?;
            work(inner, id).await
        })
    }

    /// [`Lectern::call`] for a method whose first argument is a string id
    /// (`conversationId`, `turnId`, `runId`): a non-string is a `ConfigError` naming it.
    pub(super) fn call_with_id<T, F, Fut>(&self, id: JsValue, name: &'static str, work: F) -> Promise
    where
        T: Serialize,
        F: FnOnce(Rc<Inner>, String) -> Fut + 'static,
        Fut: Future<Output = Result<T>> + 'static,
    {
        self.call_js_with_id(id, name, move |inner, id| async move {
            to_js(&work(inner, id).await?)
        })
    }

    /// Runs a turn (`send`, `resolveApprovals`) on the open instance: resolves
    /// with its `SendOutcome`, or rejects with its typed error (carrying the
    /// steps done) unless `friendlyErrors` asks for a `FailedSend`.
    pub(super) fn call_turn<F, Fut>(&self, work: F) -> Promise
    where
        F: FnOnce(Rc<Inner>) -> Fut + 'static,
        Fut: Future<Output = std::result::Result<TurnResult, TurnError>> + 'static,
    {
        let inner = self.inner.clone();
        guarded_promise(async move {
            let friendly = inner.friendly_errors;
            let outcome = match inner.ensure_open() {
                Ok(()) => work(inner).await,
                Err(error) => Err(error.into()),
            };
            turn_outcome(outcome, friendly)
        })
    }
}
