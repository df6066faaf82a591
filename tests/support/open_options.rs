//! `Lectern.open`'s options as the native tests build them.

use lectern::agent::OpenOptions;
use serde_json::{json, Value};

/// The options of an OpenAI-compatible provider on a closed port, with `extra`'s fields added.
pub fn options(extra: Value) -> OpenOptions {
    let mut value = json!({"provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"}});
    value
        .as_object_mut()
        .expect("an object")
        .extend(extra.as_object().expect("extra options are an object").clone());
    serde_json::from_value(value).expect("valid options")
}
