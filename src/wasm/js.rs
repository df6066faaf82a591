//! Value conversion between Rust and JS, and errors as JS `Error` objects.

use js_sys::{Object, Reflect};
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::{JsCast, JsValue};

use crate::error::{Error, Result};

/// Converts a Rust value to a plain JS value (objects, not `Map`s; numbers, not `BigInt`s).
///
/// Goes through JSON text (`JSON.parse`), so one serializer serves the wasm.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| Error::config(format!("cannot convert a value for JS: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|_| Error::config("cannot convert a value for JS: not JSON"))
}

/// Converts a plain JS value from the host, naming `what` it was in the error.
///
/// Goes through JSON text so that `deny_unknown_fields` catches misspelt
/// options (a direct conversion reads only the fields it knows).
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T> {
    let text = js_sys::JSON::stringify(&value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| Error::config(format!("invalid {what}: not a plain JSON value")))?;
    serde_json::from_str(&text).map_err(|e| Error::config(format!("invalid {what}: {e}")))
}

/// Reads a string argument, or a `Config` error naming it.
pub fn string_arg(value: &JsValue, name: &str) -> Result<String> {
    value
        .as_string()
        .ok_or_else(|| Error::config(format!("{name} must be a string")))
}

/// A real JS `Error` whose `name` is the error's kind and which carries its fields.
pub fn error_to_js(error: &Error) -> JsValue {
    let js_error = js_sys::Error::new(&error.to_string());
    js_error.set_name(error.name());
    if let Ok(fields) = to_js(error) {
        if let Ok(fields) = fields.dyn_into::<Object>() {
            for key in Object::keys(&fields).iter() {
                if key.as_string().as_deref() == Some("kind") {
                    continue;
                }
                if let Ok(value) = Reflect::get(&fields, &key) {
                    let _ = Reflect::set(&js_error, &key, &value);
                }
            }
        }
    }
    js_error.into()
}

/// A human-readable description of a thrown JS value.
pub fn describe_js(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return format!(
            "{}: {}",
            String::from(error.name()),
            String::from(error.message())
        );
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// The Lectern error a JS `Error` made by [`error_to_js`] stands for (as the
/// worker rebuilds them): the kinds a model load or an embedding can end
/// with keep their kind; anything else is a `Protocol` error describing it.
pub fn error_from_js(value: &JsValue) -> Error {
    let text = |key: &str| Reflect::get(value, &key.into()).ok().and_then(|v| v.as_string());
    let message = text("message").unwrap_or_else(|| describe_js(value));
    match text("name").as_deref() {
        Some("ConfigError") => Error::config(message),
        Some("ConnectionError") => Error::connection(message),
        Some("EmbedderMismatchError") => Error::EmbedderMismatch { message },
        Some("AbortError") => Error::Aborted,
        Some("ApiError") => Error::Api {
            status: Reflect::get(value, &"status".into())
                .ok()
                .and_then(|s| s.as_f64())
                .map_or(0, |s| s as u16),
            body: text("body").unwrap_or(message),
        },
        _ => Error::protocol(describe_js(value)),
    }
}
