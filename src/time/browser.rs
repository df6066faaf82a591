//! The browser clock: `Date.now()` and `setTimeout`, in a window or a worker.

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::Clock;

/// Real time in the browser.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let promise = Promise::new(&mut |resolve, _reject| {
            let global = js_sys::global();
            let set_timeout = Reflect::get(&global, &JsValue::from_str("setTimeout"))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok());
            match set_timeout {
                Some(set_timeout) => {
                    let _ = set_timeout.call2(&global, &resolve, &JsValue::from_f64(ms as f64));
                }
                None => {
                    let _ = resolve.call0(&JsValue::UNDEFINED);
                }
            }
        });
        Box::pin(async move {
            let _ = JsFuture::from(promise).await;
        })
    }
}
