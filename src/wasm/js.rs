//! Value conversion between Rust and JS, and errors as JS `Error` objects.

use std::borrow::Cow;

use js_sys::{Object, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

use crate::error::{Error, Result, StorageReason};
use crate::json::from_json::FromJson;
use crate::retrieval::embed::minilm::safetensors::FileBytes;
use crate::web::{from_js_text, to_js_text, JsonTextError};

/// Converts a Rust value to a plain JS value (objects, not `Map`s; numbers, not `BigInt`s).
///
/// Goes through JSON text (`JSON.parse`), so one serializer serves the wasm.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue> {
    to_js_text(value).map_err(|e| match e {
        JsonTextError::Serde(e) => Error::config(format!("cannot convert a value for JS: {e}")),
        JsonTextError::NotJson => Error::config("cannot convert a value for JS: not JSON"),
    })
}

/// Converts a plain JS value from the host, naming `what` it was in the error.
///
/// Goes through JSON text so that `deny_unknown_fields` catches misspelt
/// options (a direct conversion reads only the fields it knows).
pub fn from_js<T: FromJson>(value: JsValue, what: &str) -> Result<T> {
    from_js_text(&value).map_err(|e| match e {
        JsonTextError::Serde(e) => Error::config(format!("invalid {what}: {e}")),
        JsonTextError::NotJson => Error::config(format!("invalid {what}: not a plain JSON value")),
    })
}

/// Reads a string argument, or a `Config` error naming it.
pub fn string_arg(value: &JsValue, name: &str) -> Result<String> {
    value
        .as_string()
        .ok_or_else(|| Error::config(format!("{name} must be a string")))
}

/// Takes `key` out of `object` (a copy the caller made): its value (`undefined` if absent).
pub fn take_key(object: &Object, key: &str) -> JsValue {
    let name = JsValue::from_str(key);
    let value = Reflect::get(object, &name).unwrap_or(JsValue::UNDEFINED);
    let _ = Reflect::delete_property(object, &name);
    value
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
/// worker rebuilds them, or the books module sends them): the kinds a model
/// load, an embedding or a book's lookup can end with keep their kind;
/// anything else is a `Protocol` error describing it.
pub fn error_from_js(value: &JsValue) -> Error {
    let text = |key: &str| Reflect::get(value, &key.into()).ok().and_then(|v| v.as_string());
    let message = text("message").unwrap_or_else(|| describe_js(value));
    match text("name").as_deref() {
        Some("ConfigError") => Error::config(message),
        Some("ConnectionError") => Error::connection(message),
        Some("EmbedderMismatchError") => Error::EmbedderMismatch { message },
        Some("AbortError") => Error::Aborted,
        Some("NotFoundError") => Error::NotFound {
            what: text("what").unwrap_or_default(),
            id: text("id").unwrap_or_default(),
        },
        Some("StorageError") => Error::Storage {
            reason: StorageReason::from_name(&text("reason").unwrap_or_default()),
            message,
        },
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

/// A file in a JS `Uint8Array` read through [`FileBytes`]: each range is
/// copied into wasm memory only when read (a model's tensors one by one),
/// never the whole file.
pub struct JsBytes(Uint8Array);

impl JsBytes {
    /// Reads from `bytes`.
    pub fn new(bytes: Uint8Array) -> Self {
        JsBytes(bytes)
    }
}

impl FileBytes for JsBytes {
    fn len(&self) -> usize {
        self.0.length() as usize
    }

    fn read(&self, start: usize, end: usize) -> Option<Cow<'_, [u8]>> {
        (start <= end && end <= self.len())
            .then(|| Cow::Owned(self.0.subarray(start as u32, end as u32).to_vec()))
    }
}
