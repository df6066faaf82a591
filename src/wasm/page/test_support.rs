//! Test-only entry points (crate feature `test-support`, which `npm test`
//! turns on for the browser tests; the package never ships them).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::lectern::Lectern;
use crate::wasm::panic_guard::check_js;

#[wasm_bindgen]
impl Lectern {
    /// Panics on purpose, to test what a panic does to the page: at once
    /// (`inPromise` false: the call throws the trap), or inside the promise
    /// it returns (`inPromise` true).
    #[wasm_bindgen(js_name = panicForTest, unchecked_return_type = "Promise<void>")]
    pub fn panic_for_test(&self, in_promise: bool) -> std::result::Result<Promise, JsValue> {
        check_js()?;
        if !in_promise {
            panic!("panicForTest: a deliberate panic, at once");
        }
        Ok(self.call(|_| async {
            panic!("panicForTest: a deliberate panic, in a promise");
            #[allow(unreachable_code)]
            Ok(())
        }))
    }
}
