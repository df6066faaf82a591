//! What the local decoder's tests share: a model file named by an
//! environment variable (skipped with a message without it) and a reference
//! recorded from llama.cpp under `tests/fixtures/local/`.

use std::path::PathBuf;

use serde_json::Value;

/// The bytes of the GGUF at `$env` (set by `npm test` from `script`), or
/// `None` after printing why the test is skipped.
pub fn model_bytes(env: &str, script: &str) -> Option<Vec<u8>> {
    match std::env::var_os(env).map(PathBuf::from) {
        Some(path) if path.is_file() => Some(std::fs::read(path).expect("the GGUF file")),
        _ => {
            eprintln!("SKIPPED: this test needs {env} (scripts/{script})");
            None
        }
    }
}

/// `tests/fixtures/local/<name>` as JSON.
pub fn reference(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/local/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("the reference")).expect("JSON")
}
