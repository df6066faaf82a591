//! Fuzz target `chunks`: the property `fuzz_props::chunks` (tests/fuzz_props) on any input.
#![no_main]

#[path = "../../tests/fuzz_props/mod.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::chunks(data));
