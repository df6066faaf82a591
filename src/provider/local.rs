//! A provider that declares itself local (`provider.local: true`: a model in
//! the page, such as wllama, or on the reader's machine) gets defaults that
//! suit a model which reads its prompt slowly on a CPU and has no server to
//! fail over to. Each default applies only where the host set nothing.

use serde_json::{json, Map, Value};

/// `timeouts.firstChunkMs` for a local provider: 10 minutes (a small model on
/// two cores reads a 1,000-token prompt in about 100 s, a larger one longer).
pub const LOCAL_FIRST_CHUNK_MS: u64 = 600_000;

/// `maxRetries` for a local provider: 0 (its failures are not transient, and
/// a retry would read the whole prompt again).
pub const LOCAL_MAX_RETRIES: u32 = 0;

/// Fills the call-policy keys the host left out of `policy` with the local defaults.
pub fn apply_local_defaults(policy: &mut Map<String, Value>) {
    policy.entry("maxRetries").or_insert(json!(LOCAL_MAX_RETRIES));
    let timeouts = policy.entry("timeouts").or_insert_with(|| json!({}));
    if let Value::Object(timeouts) = timeouts {
        timeouts
            .entry("firstChunkMs")
            .or_insert(json!(LOCAL_FIRST_CHUNK_MS));
    }
}
