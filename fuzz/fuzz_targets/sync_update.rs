//! Fuzz target `sync_update`: the property `fuzz_props::sync_update` (tests/support/fuzz_props.rs) on any input.
#![no_main]

#[path = "../../tests/support/fuzz_props.rs"]
mod fuzz_props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::sync_update(data));
