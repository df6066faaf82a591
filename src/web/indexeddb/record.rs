//! Records as the JS objects IndexedDB stores: serde records through the
//! JSON-text codec, with failures as storage `data` errors, and the fields
//! of a record built by hand (typed arrays, pages).

use idb::ObjectStore;
use js_sys::{Object, Reflect};
use serde::Serialize;
use wasm_bindgen::JsValue;

use super::errors::idb_error;
use crate::error::{Error, Result, StorageReason};
use crate::json::from_json::FromJson;
use crate::web::{from_js_text, to_js_text, JsonTextError};

/// A record as the JS object IndexedDB stores, through JSON text: the same
/// plain objects, arrays, strings, numbers, booleans and `null`s a direct
/// conversion makes (records hold no bytes, `Map`s or `undefined`; vectors and
/// snapshots are typed arrays written apart), with one serializer in the wasm.
pub(super) fn to_record<T: Serialize>(value: &T) -> Result<JsValue> {
    to_js_text(value).map_err(|e| match e {
        JsonTextError::Serde(e) => {
            Error::storage_because(StorageReason::Data, format!("cannot encode record: {e}"))
        }
        JsonTextError::NotJson => {
            Error::storage_because(StorageReason::Data, "cannot encode record as a JS object")
        }
    })
}

/// Writes (or replaces) `value`'s record in `store`, an object store of the
/// transaction under way.
pub(super) async fn put_record<T: Serialize>(store: &ObjectStore, value: &T) -> Result<()> {
    store
        .put(&to_record(value)?, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    Ok(())
}

/// A stored record back, through JSON text (one deserializer in the wasm,
/// shared with the JS API's inputs).
pub(super) fn from_record<T: FromJson>(value: JsValue) -> Result<T> {
    from_js_text::<T>(&value).map_err(|e| match e {
        JsonTextError::Serde(e) => {
            Error::storage_because(StorageReason::Data, format!("cannot decode record: {e}"))
        }
        JsonTextError::NotJson => {
            Error::storage_because(StorageReason::Data, "cannot decode record: not plain JSON")
        }
    })
}

/// Sets the field `key` of a record built by hand.
pub(super) fn set_field(object: &Object, key: &str, value: &JsValue) -> Result<()> {
    Reflect::set(object, &key.into(), value)
        .map(|_| ())
        .map_err(|_| Error::storage(format!("cannot build the {key} field")))
}
