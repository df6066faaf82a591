//! Figure lines: besides its human-readable report, every benchmark prints
//! `FIGURE <id> <env> <value>` lines, which `scripts/bench-results.mjs` turns
//! into `bench/RESULTS.md` (each figure beside its target).
#![allow(dead_code)]

/// A figure line: `id` names the measure (see the table in
/// `scripts/bench-results.mjs`), `env` is `native` or `chromium`.
pub fn figure(id: &str, env: &str, value: f64) -> String {
    format!("FIGURE {id} {env} {value}")
}

/// The environment a benchmark runs in: the wasm build runs only in Chromium.
pub fn env() -> &'static str {
    if cfg!(target_arch = "wasm32") {
        "chromium"
    } else {
        "native"
    }
}
