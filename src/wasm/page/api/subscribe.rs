//! `lectern.subscribe(listener)`: every event the instance emits, for as long as the caller listens.

use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::wasm::js::error_to_js;
use crate::wasm::page::lectern::Lectern;
use crate::wasm::panic_guard::check_js;

#[wasm_bindgen]
impl Lectern {
    /// Calls `listener` with every event this instance emits from now on — of
    /// every turn (`send`, `stream`, `retry`, `resolveApprovals`, headless
    /// runs) and `ingestProgress` — the objects `onEvent` gets. Returns the
    /// function that unsubscribes it. Events are deeply frozen; a listener that throws breaks nothing.
    #[wasm_bindgen(unchecked_return_type = "() => void")]
    pub fn subscribe(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "(event: LecternEvent | IngestProgressEvent | IngestFailedEvent | StorageClosedEvent | InstanceWarningEvent | SyncStatusEvent | SyncedEvent) => void"
        )]
        listener: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        check_js()?;
        let Some(listener) = listener.dyn_ref::<Function>() else {
            return Err(error_to_js(&Error::config("subscribe needs a function")));
        };
        let listeners = self.inner.listeners.clone();
        let id = listeners.add(listener.clone());
        let unsubscribe = Closure::<dyn FnMut()>::new(move || listeners.remove(id));
        Ok(unsubscribe.into_js_value())
    }
}
