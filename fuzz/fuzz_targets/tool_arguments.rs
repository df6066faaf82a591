//! Fuzz target `tool_arguments`: the property `fuzz_props::tool_arguments` (tests/support/fuzz_props.rs) on any input.
#![no_main]

#[path = "../../tests/support/fuzz_props.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::tool_arguments(data));
