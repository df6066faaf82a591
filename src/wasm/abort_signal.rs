//! An `AbortSignal` from the host, linked to a [`CancelToken`].

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use crate::error::{Error, Result};
use crate::runtime::cancel::CancelToken;

/// Trips `cancel` when `signal` (an `AbortSignal`, or nothing) aborts.
pub fn link_signal(signal: &JsValue, cancel: &CancelToken) -> Result<()> {
    if signal.is_undefined() || signal.is_null() {
        return Ok(());
    }
    let signal: &AbortSignal = signal
        .dyn_ref()
        .ok_or_else(|| Error::config("options.signal must be an AbortSignal"))?;
    if signal.aborted() {
        cancel.cancel();
    } else {
        let token = cancel.clone();
        let on_abort = Closure::once_into_js(move || token.cancel());
        signal
            .add_event_listener_with_callback("abort", on_abort.unchecked_ref())
            .map_err(|_| Error::config("cannot listen to options.signal"))?;
    }
    Ok(())
}
