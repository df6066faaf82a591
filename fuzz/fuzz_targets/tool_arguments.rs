//! Fuzz target `tool_arguments`: the property `fuzz_props::tool_arguments` (tests/fuzz_props) on any input.
#![no_main]

#[path = "../../tests/fuzz_props/mod.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::tool_arguments(data));
