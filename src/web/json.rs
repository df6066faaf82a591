//! The JSON-text codec: Rust values to plain JS values and back through
//! `JSON.parse` / `JSON.stringify`, so one serializer and one deserializer
//! (serde_json's) serve the whole wasm.
//!
//! It makes the same plain objects, arrays, strings, numbers, booleans and
//! `null`s a direct conversion would (never `Map`s or `BigInt`s), and reading
//! back through text lets `deny_unknown_fields` see every field the host
//! wrote. Each caller turns a [`JsonTextError`] into its own typed error.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// Why a value did not cross between Rust and JS.
#[derive(Debug)]
pub enum JsonTextError {
    /// serde_json could not write the value, or read the text as the type asked for.
    Serde(serde_json::Error),
    /// The JS side failed: `JSON.parse` refused the text, or `JSON.stringify`
    /// gave none (`undefined`, a function, a cycle, a `BigInt`).
    NotJson,
}

/// `value` as a plain JS value, through JSON text.
pub fn to_js_text<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsonTextError> {
    let text = serde_json::to_string(value).map_err(JsonTextError::Serde)?;
    js_sys::JSON::parse(&text).map_err(|_| JsonTextError::NotJson)
}

/// A plain JS value read as `T`, through JSON text.
pub fn from_js_text<T: DeserializeOwned>(value: &JsValue) -> Result<T, JsonTextError> {
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .ok_or(JsonTextError::NotJson)?;
    // Through a `Value`: one deserializer (serde_json's `Value`'s) per type for
    // the whole module, shared with the stored records, instead of a second,
    // larger one over text.
    serde_json::from_str(&text)
        .and_then(crate::value_de::from_value)
        .map_err(JsonTextError::Serde)
}
