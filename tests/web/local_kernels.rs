//! The local decoder's simd128 block products in Chromium, held to their
//! definition, and Q8_1 quantising held to llama.cpp's reference
//! (`tests/support/local_kernels.rs`; natively: `tests/native/local_decoder.rs`).

use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::grouped_attention::grouped_attention_is_each_head_by_its_definition;
use crate::support::local_kernels::{
    block_products_are_their_definition, q8_1_quantising_is_llama_cpps_reference,
};

#[wasm_bindgen_test]
fn simd128_block_products_are_their_definition() {
    block_products_are_their_definition();
}

#[wasm_bindgen_test]
fn simd128_grouped_attention_is_each_head_by_its_definition() {
    grouped_attention_is_each_head_by_its_definition();
}

#[wasm_bindgen_test]
fn simd128_q8_1_quantising_is_llama_cpps_reference() {
    q8_1_quantising_is_llama_cpps_reference();
}
