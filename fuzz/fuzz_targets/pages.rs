//! Fuzz target `pages`: the property `fuzz_props::pages` (tests/support/fuzz_props.rs) on any input.
#![no_main]

#[path = "../../tests/support/fuzz_props.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::pages(data));
