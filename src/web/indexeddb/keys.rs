//! Key ranges over the stores keyed `[ownerId, n, ...]`: every record of one
//! owner (a conversation's messages, a book's chunks), or a span of a
//! conversation's messages by `seq`.

use idb::{KeyRange, Query};
use js_sys::Array;
use wasm_bindgen::JsValue;

use super::errors::idb_error;
use crate::error::Result;

/// The key range covering every `[id, n]` key of one owner (a conversation's messages, a book's chunks).
pub(super) fn owner_range(owner_id: &str) -> Result<Query> {
    let lower = Array::of2(&JsValue::from_str(owner_id), &JsValue::from_f64(0.0));
    // Arrays sort after numbers, so `[id, []]` is above every `[id, n]`.
    let upper = Array::of2(&JsValue::from_str(owner_id), &Array::new());
    let range = KeyRange::bound(&lower, &upper, Some(false), Some(false)).map_err(idb_error)?;
    Ok(Query::KeyRange(range))
}

/// The key range of a conversation's messages with `start <= seq < end`.
pub(super) fn seq_range(conversation_id: &str, start: u32, end: u32) -> Result<Query> {
    let id = JsValue::from_str(conversation_id);
    let lower = Array::of2(&id, &JsValue::from_f64(f64::from(start)));
    let upper = Array::of2(&id, &JsValue::from_f64(f64::from(end)));
    let range = KeyRange::bound(&lower, &upper, Some(false), Some(true)).map_err(idb_error)?;
    Ok(Query::KeyRange(range))
}
