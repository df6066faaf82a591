//! Issue 50's yrs (Yjs) model of what Lectern would sync, as yrs would naturally hold it:
//!
//! - `Y.Map("conversations")` → conversation id → `Y.Array` of `Y.Map` messages
//!   `{id, seq, role, content, createdAt}` (the scenario of `../scenario.rs`), each message
//!   appended in its own transaction, as the app writes them one at a time;
//! - `Y.Map("positions")` → book id → position string (last writer wins per key).
//!
//! Sync is y-protocols' sync v1 (step 1: the state vector, step 2: the diff), both ways. The
//! wasm exports (`y_*`) are what `run.sh` builds for the size of the module; the native bench
//! (`src/bin/bench.rs`) times the same functions. Nothing here is part of Lectern.

#![deny(missing_docs)]

use wasm_bindgen::prelude::*;
use yrs::updates::decoder::Decode;
use yrs::{
    Any, Array, ArrayPrelim, ArrayRef, Doc, In, Map, MapPrelim, Out, ReadTxn, StateVector, Transact, Update,
};

#[path = "../../scenario.rs"]
pub mod scenario;

use scenario::{content, created_at, message_id, position_book, position_value, role, CONV};

/// An empty document for device (Yjs client id) `client`.
pub fn new_doc(client: u64) -> Doc {
    Doc::with_client_id(client)
}

/// The conversation's message array, created on first use.
fn messages(doc: &Doc) -> ArrayRef {
    let convs = doc.get_or_insert_map("conversations");
    let mut txn = doc.transact_mut();
    match convs.get(&txn, CONV) {
        Some(Out::YArray(array)) => array,
        _ => convs.insert(&mut txn, CONV, ArrayPrelim::default()),
    }
}

/// Message `i` of device `dev` as a map to insert.
fn message(dev: u64, i: u32) -> MapPrelim {
    MapPrelim::from([
        ("id", In::from(message_id(dev, i))),
        ("seq", In::from(i64::from(i))),
        ("role", In::from(role(i))),
        ("content", In::from(content(i, dev))),
        ("createdAt", In::from(created_at(i))),
    ])
}

/// Appends `count` messages of device `dev` from `start_seq`, one transaction each.
pub fn append(doc: &Doc, dev: u64, start_seq: u32, count: u32) {
    let array = messages(doc);
    for i in start_seq..start_seq + count {
        let mut txn = doc.transact_mut();
        array.push_back(&mut txn, message(dev, i));
    }
}

/// Writes `count` reading positions of device `dev` (over five books), one transaction each.
pub fn set_positions(doc: &Doc, dev: u64, count: u32) {
    let positions = doc.get_or_insert_map("positions");
    for i in 0..count {
        let mut txn = doc.transact_mut();
        positions.insert(&mut txn, position_book(i), position_value(i, dev));
    }
}

/// A document of `n` messages written by device `client`.
pub fn build(n: u32, client: u64) -> Doc {
    let doc = new_doc(client);
    append(&doc, client, 0, n);
    doc
}

/// The whole document as one v1 update (what would be stored).
pub fn encode_full(doc: &Doc) -> Vec<u8> {
    doc.transact().encode_state_as_update_v1(&StateVector::default())
}

/// The whole document as one v2 update.
pub fn encode_full_v2(doc: &Doc) -> Vec<u8> {
    doc.transact().encode_state_as_update_v2(&StateVector::default())
}

/// The document's state vector.
pub fn state_vector(doc: &Doc) -> StateVector {
    doc.transact().state_vector()
}

/// Applies a v1 update; malformed bytes are an `Err` and leave the document as it was.
pub fn apply(doc: &Doc, update: &[u8]) -> Result<(), String> {
    let update = Update::decode_v1(update).map_err(|e| e.to_string())?;
    doc.transact_mut().apply_update(update).map_err(|e| e.to_string())
}

/// A new document for device `client` holding `update`.
pub fn load(update: &[u8], client: u64) -> Result<Doc, String> {
    let doc = new_doc(client);
    apply(&doc, update)?;
    Ok(doc)
}

/// One round of sync v1 both ways (each side's step 1, the other's step 2); the bytes of the two
/// diffs exchanged.
pub fn sync_pair(a: &Doc, b: &Doc) -> Result<usize, String> {
    let (sv_a, sv_b) = (state_vector(a), state_vector(b));
    let a_to_b = a.transact().encode_diff_v1(&sv_b);
    let b_to_a = b.transact().encode_diff_v1(&sv_a);
    apply(b, &a_to_b)?;
    apply(a, &b_to_a)?;
    Ok(a_to_b.len() + b_to_a.len())
}

/// The message ids in the conversation's order (`?` where a message has none).
pub fn ids(doc: &Doc) -> Vec<String> {
    let array = messages(doc);
    let txn = doc.transact();
    array
        .iter(&txn)
        .map(|value| match value {
            Out::YMap(map) => match map.get(&txn, "id") {
                Some(Out::Any(Any::String(id))) => id.to_string(),
                _ => String::from("?"),
            },
            _ => String::from("?"),
        })
        .collect()
}

/// The position stored for `book`, if any.
pub fn position(doc: &Doc, book: &str) -> Option<String> {
    let positions = doc.get_or_insert_map("positions");
    let txn = doc.transact();
    positions.get(&txn, book).map(|value| value.to_string(&txn))
}

/// A day offline: a base of `base` messages on device 1, copied to device 2; then each device
/// appends `each` messages and writes `pos` positions on its own. The two replicas, not yet synced.
pub fn diverged_pair(base: u32, each: u32, pos: u32) -> Result<(Doc, Doc), String> {
    let a = build(base, 1);
    let b = load(&encode_full(&a), 2)?;
    append(&a, 1, base, each);
    set_positions(&a, 1, pos);
    append(&b, 2, base, each);
    set_positions(&b, 2, pos);
    Ok((a, b))
}

/// [`diverged_pair`], then synced: the merged message count and the bytes exchanged.
pub fn diverge_merge(base: u32, each: u32, pos: u32) -> Result<(u32, usize), String> {
    let (a, b) = diverged_pair(base, each, pos)?;
    let bytes = sync_pair(&a, &b)?;
    Ok((ids(&a).len() as u32, bytes))
}

/// A string error as a JS `Error`.
fn js_error(message: String) -> JsError {
    JsError::new(&message)
}

/// Builds `n` messages and encodes the document (v1).
#[wasm_bindgen]
pub fn y_build_encode(n: u32) -> Vec<u8> {
    encode_full(&build(n, 1))
}

/// Loads update `a`, applies update `b`, and encodes the result.
#[wasm_bindgen]
pub fn y_merge_full(a: &[u8], b: &[u8]) -> Result<Vec<u8>, JsError> {
    let doc = load(a, 3).map_err(js_error)?;
    apply(&doc, b).map_err(js_error)?;
    Ok(encode_full(&doc))
}

/// [`diverge_merge`]'s merged message count.
#[wasm_bindgen]
pub fn y_diverge_merge(base: u32, each: u32, pos: u32) -> Result<u32, JsError> {
    Ok(diverge_merge(base, each, pos).map_err(js_error)?.0)
}

/// The number of messages in an encoded document.
#[wasm_bindgen]
pub fn y_count(update: &[u8]) -> Result<u32, JsError> {
    let doc = load(update, 4).map_err(js_error)?;
    Ok(ids(&doc).len() as u32)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

/// A [`diverged_pair`] synced: the milliseconds of the sync step alone (`performance.now()`).
#[wasm_bindgen]
pub fn y_merge_timed(base: u32, each: u32, pos: u32) -> Result<f64, JsError> {
    let (a, b) = diverged_pair(base, each, pos).map_err(js_error)?;
    let start = now();
    sync_pair(&a, &b).map_err(js_error)?;
    Ok(now() - start)
}
