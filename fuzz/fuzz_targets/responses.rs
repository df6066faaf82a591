//! Fuzz target `responses`: the property `fuzz_props::responses` (tests/fuzz_props) on any input.
#![no_main]

#[path = "../../tests/fuzz_props/mod.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::responses(data));
