//! The baseline for issue 50's module sizes: the same kind of exports as the `yrs` and
//! `automerge` crates (bytes in, bytes out, a `JsError`) with no CRDT behind them, so what std,
//! the allocator and wasm-bindgen's glue cost can be subtracted from the engines' modules.
//! Nothing here is part of Lectern.

#![deny(missing_docs)]

use wasm_bindgen::prelude::*;

/// The decimal digits of `0..n`, as bytes (formatting and a growing `Vec`, like the engines').
#[wasm_bindgen]
pub fn e_build_encode(n: u32) -> Vec<u8> {
    (0..n).flat_map(|i| format!("{i}").into_bytes()).collect()
}

/// `a` then `b`; an empty `a` is an error.
#[wasm_bindgen]
pub fn e_merge_full(a: &[u8], b: &[u8]) -> Result<Vec<u8>, JsError> {
    if a.is_empty() {
        return Err(JsError::new("empty"));
    }
    Ok([a, b].concat())
}
