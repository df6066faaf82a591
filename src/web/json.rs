//! The JSON-text codec: Rust values to plain JS values and back through
//! `JSON.parse` / `JSON.stringify`, so serde_json's serializer and its parser
//! into a `Value` serve the whole wasm; each type is read from the `Value` by
//! its [`FromJson`].
//!
//! It makes the same plain objects, arrays, strings, numbers, booleans and
//! `null`s a direct conversion would (never `Map`s or `BigInt`s), and reading
//! back through text lets `deny_unknown_fields` see every field the host
//! wrote. Each caller turns a [`JsonTextError`] into its own typed error.

use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::json::from_json::FromJson;

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
    // Only the serializing is instantiated for each `T`; the rest is `parse_text`'s.
    let mut text = Vec::with_capacity(128);
    let written = value.serialize(&mut serde_json::Serializer::new(&mut text));
    parse_text(text, written)
}

/// The text `to_js_text` wrote, parsed by `JSON.parse`.
fn parse_text(text: Vec<u8>, written: Result<(), serde_json::Error>) -> Result<JsValue, JsonTextError> {
    written.map_err(JsonTextError::Serde)?;
    // serde_json writes UTF-8 only.
    let text = String::from_utf8(text).map_err(|_| JsonTextError::NotJson)?;
    js_sys::JSON::parse(&text).map_err(|_| JsonTextError::NotJson)
}

/// A plain JS value read as `T`, through JSON text.
pub fn from_js_text<T: FromJson>(value: &JsValue) -> Result<T, JsonTextError> {
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .ok_or(JsonTextError::NotJson)?;
    // Through a `Value`: the text parser instantiated once, for `Value`, and
    // each type's small `FromJson` reader.
    serde_json::from_str(&text)
        .and_then(T::from_json)
        .map_err(JsonTextError::Serde)
}
