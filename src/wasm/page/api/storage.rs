//! The storage methods of `Lectern`: `persist` and `storageEstimate`, over
//! the origin's `navigator.storage` (window or worker).

use js_sys::{Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::StorageManager;

use crate::error::{Error, Result};
use crate::wasm::js::{describe_js, to_js};
use crate::wasm::page::lectern::Lectern;
use crate::wasm::page::split_off::split_off;

/// What `storageEstimate` resolves with.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StorageUsage {
    usage: f64,
    quota: f64,
    persisted: bool,
}

/// `navigator.storage`, or a storage error where it does not exist (an insecure context).
fn storage_manager() -> Result<StorageManager> {
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).unwrap_or(JsValue::UNDEFINED);
    Reflect::get(&navigator, &"storage".into())
        .ok()
        .and_then(|s| s.dyn_into::<StorageManager>().ok())
        .ok_or_else(|| Error::storage("navigator.storage is not available here (it needs a secure context)"))
}

/// Awaits a `StorageManager` call that returns a promise.
async fn ask(what: &str, started: std::result::Result<Promise, JsValue>) -> Result<JsValue> {
    let failed =
        |e: JsValue| Error::storage(format!("navigator.storage.{what}() failed: {}", describe_js(&e)));
    JsFuture::from(started.map_err(failed)?).await.map_err(failed)
}

#[wasm_bindgen]
impl Lectern {
    /// Asks the browser to keep this origin's storage under pressure
    /// (`navigator.storage.persist()`); resolves with whether it now does.
    #[wasm_bindgen(unchecked_return_type = "Promise<boolean>")]
    pub fn persist(&self) -> Promise {
        self.call_js(|_| persist())
    }

    /// How much storage the origin uses and may use, in bytes, and whether it
    /// is persistent: `{ usage, quota, persisted }`.
    #[wasm_bindgen(js_name = storageEstimate, unchecked_return_type = "Promise<StorageUsage>")]
    pub fn storage_estimate(&self) -> Promise {
        self.call_js(|_| storage_estimate())
    }
}

split_off!(
    maintenance,
    /// `persist`'s work.
    fn persist() -> Result<JsValue> {
        let manager = storage_manager()?;
        Ok(ask("persist", manager.persist()).await?.is_truthy().into())
    }
);

split_off!(
    maintenance,
    /// `storageEstimate`'s work.
    fn storage_estimate() -> Result<JsValue> {
        let manager = storage_manager()?;
        let estimate = ask("estimate", manager.estimate()).await?;
        let number = |key: &str| {
            Reflect::get(&estimate, &key.into())
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0)
        };
        let persisted = ask("persisted", manager.persisted()).await?.is_truthy();
        to_js(&StorageUsage {
            usage: number("usage"),
            quota: number("quota"),
            persisted,
        })
    }
);
