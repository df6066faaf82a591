//! Fuzz target `markup`: the property `fuzz_props::markup` (tests/support/fuzz_props.rs) on any input.
#![no_main]

#[path = "../../tests/support/fuzz_props.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::markup(data));
