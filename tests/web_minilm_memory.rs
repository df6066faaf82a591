//! all-MiniLM-L6-v2's weights read from the JS buffer they were fetched into,
//! a tensor at a time: the wasm memory of a fresh instance grows by about the
//! model (67 MB), not by the file (90.9 MB) on top of it, which it would keep
//! for good (wasm memory never shrinks). Its own test file, so that no other
//! test has grown this instance's memory first. Skipped with a message when
//! the mock server serves no model.
#![cfg(target_arch = "wasm32")]

mod support;

use js_sys::{ArrayBuffer, Uint8Array, WebAssembly};
use lectern::retrieval::embed::minilm::encoder::Encoder;
use lectern::wasm::js::JsBytes;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn memory_bytes() -> f64 {
    let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().unchecked_into::<ArrayBuffer>().byte_length() as f64
}

/// The file at `url` as a JS `Uint8Array` (never in wasm memory), if served.
async fn fetch_js(url: &str) -> Option<Uint8Array> {
    let window = web_sys::window()?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .ok()?
        .unchecked_into();
    if !response.ok() {
        return None;
    }
    let buffer = JsFuture::from(response.array_buffer().ok()?).await.ok()?;
    Some(Uint8Array::new(&buffer))
}

#[wasm_bindgen_test]
async fn the_model_is_read_a_tensor_at_a_time_from_its_js_buffer() {
    let base = support::web::mock_url();
    let Some(file) = fetch_js(&format!("{base}/models/model.safetensors")).await else {
        web_sys::console::log_1(&"SKIPPED: no MiniLM model served by the mock server".into());
        return;
    };
    let before = memory_bytes();
    let encoder = Encoder::from_safetensors(&JsBytes::new(file.clone())).expect("the MiniLM weights");
    let grown = (memory_bytes() - before) / 1e6;
    web_sys::console::log_1(
        &format!(
            "MiniLM load: wasm memory grew by {grown:.1} MB for a {:.1} MB file",
            file.length() as f64 / 1e6
        )
        .into(),
    );
    assert!(
        grown < 80.0,
        "the wasm memory grew by {grown:.1} MB: the file was copied in whole"
    );
    drop(encoder);
}
