//! Issue 50's Automerge model of what Lectern would sync, as Automerge would naturally hold it:
//!
//! - `ROOT.conversations` (map) → conversation id → list of message maps
//!   `{id, seq, role, content, createdAt}` (the scenario of `../scenario.rs`), each message
//!   appended in its own commit, as the app writes them one at a time;
//! - `ROOT.positions` (map) → book id → position string (last writer wins per key).
//!
//! Sync is Automerge's sync protocol between two peers until neither has anything to send. The
//! wasm exports (`am_*`) are what `run.sh` builds for the size of the module; the native bench
//! (`src/bin/bench.rs`) times the same functions. Nothing here is part of Lectern.

#![deny(missing_docs)]

use automerge::sync::{self, SyncDoc};
use automerge::transaction::Transactable;
use automerge::{ActorId, AutoCommit, AutomergeError, ObjId, ObjType, ReadDoc, Value, ROOT};
use wasm_bindgen::prelude::*;

#[path = "../../scenario.rs"]
pub mod scenario;

use scenario::{content, created_at, message_id, position_book, position_value, role, CONV};

/// A result whose error is Automerge's.
pub type Result<T> = std::result::Result<T, AutomergeError>;

/// Device `dev`'s actor id.
fn actor(dev: u64) -> ActorId {
    ActorId::from(dev.to_be_bytes())
}

/// A document for device `dev` with the empty conversation and positions map (one commit).
pub fn new_doc(dev: u64) -> Result<AutoCommit> {
    let mut doc = AutoCommit::new().with_actor(actor(dev));
    let convs = doc.put_object(ROOT, "conversations", ObjType::Map)?;
    doc.put_object(&convs, CONV, ObjType::List)?;
    doc.put_object(ROOT, "positions", ObjType::Map)?;
    doc.commit();
    Ok(doc)
}

/// The object under `key` in `parent`.
fn object(doc: &AutoCommit, parent: &ObjId, key: &str) -> Result<ObjId> {
    match doc.get(parent, key)? {
        Some((Value::Object(_), id)) => Ok(id),
        _ => Err(AutomergeError::InvalidObjId(key.to_string())),
    }
}

/// The conversation's message list.
fn messages(doc: &AutoCommit) -> Result<ObjId> {
    let convs = object(doc, &ROOT, "conversations")?;
    object(doc, &convs, CONV)
}

/// Appends message `i` of device `dev` to `list` (not committed).
fn put_message(doc: &mut AutoCommit, list: &ObjId, dev: u64, i: u32) -> Result<()> {
    let at = doc.length(list);
    let message = doc.insert_object(list, at, ObjType::Map)?;
    doc.put(&message, "id", message_id(dev, i))?;
    doc.put(&message, "seq", i64::from(i))?;
    doc.put(&message, "role", role(i))?;
    doc.put(&message, "content", content(i, dev))?;
    doc.put(&message, "createdAt", created_at(i))?;
    Ok(())
}

/// Appends `count` messages of device `dev` from `start_seq`, one commit each.
pub fn append(doc: &mut AutoCommit, dev: u64, start_seq: u32, count: u32) -> Result<()> {
    let list = messages(doc)?;
    for i in start_seq..start_seq + count {
        put_message(doc, &list, dev, i)?;
        doc.commit();
    }
    Ok(())
}

/// Writes `count` reading positions of device `dev` (over five books), one commit each.
pub fn set_positions(doc: &mut AutoCommit, dev: u64, count: u32) -> Result<()> {
    let positions = object(doc, &ROOT, "positions")?;
    for i in 0..count {
        doc.put(&positions, position_book(i), position_value(i, dev))?;
        doc.commit();
    }
    Ok(())
}

/// A document of `n` messages written by device `dev`.
pub fn build(n: u32, dev: u64) -> Result<AutoCommit> {
    let mut doc = new_doc(dev)?;
    append(&mut doc, dev, 0, n)?;
    Ok(doc)
}

/// A saved document loaded for device `dev`.
pub fn load(data: &[u8], dev: u64) -> Result<AutoCommit> {
    Ok(AutoCommit::load(data)?.with_actor(actor(dev)))
}

/// Sends `from`'s next sync message (if it has one) to `to`; the message's bytes.
fn send(
    from: &mut AutoCommit,
    from_state: &mut sync::State,
    to: &mut AutoCommit,
    to_state: &mut sync::State,
) -> Result<Option<usize>> {
    let Some(message) = from.sync().generate_sync_message(from_state) else {
        return Ok(None);
    };
    let encoded = message.encode();
    let decoded =
        sync::Message::decode(&encoded).map_err(|e| AutomergeError::EncodingError(e.to_string()))?;
    to.sync().receive_sync_message(to_state, decoded)?;
    Ok(Some(encoded.len()))
}

/// The sync protocol between two peers until neither has more to send: the bytes and the
/// number of messages exchanged.
pub fn sync_pair(a: &mut AutoCommit, b: &mut AutoCommit) -> Result<(usize, usize)> {
    let (mut state_a, mut state_b) = (sync::State::new(), sync::State::new());
    let (mut bytes, mut messages) = (0, 0);
    loop {
        let sent = [
            send(a, &mut state_a, b, &mut state_b)?,
            send(b, &mut state_b, a, &mut state_a)?,
        ];
        if sent.iter().all(Option::is_none) {
            return Ok((bytes, messages));
        }
        for size in sent.into_iter().flatten() {
            bytes += size;
            messages += 1;
        }
    }
}

/// The message ids in the conversation's order (`?` where a message has none).
pub fn ids(doc: &AutoCommit) -> Result<Vec<String>> {
    let list = messages(doc)?;
    (0..doc.length(&list))
        .map(|i| {
            let Some((_, message)) = doc.get(&list, i)? else {
                return Ok(String::from("?"));
            };
            Ok(match doc.get(&message, "id")? {
                Some((Value::Scalar(id), _)) => id.as_str().unwrap_or("?").to_string(),
                _ => String::from("?"),
            })
        })
        .collect()
}

/// The position stored for `book`, if any (debug-printed).
pub fn position(doc: &AutoCommit, book: &str) -> Result<Option<String>> {
    let positions = object(doc, &ROOT, "positions")?;
    Ok(doc.get(&positions, book)?.map(|(value, _)| format!("{value:?}")))
}

/// A day offline: a base of `base` messages on device 1, copied to device 2; then each device
/// appends `each` messages and writes `pos` positions on its own. The two replicas, not yet synced.
pub fn diverged_pair(base: u32, each: u32, pos: u32) -> Result<(AutoCommit, AutoCommit)> {
    let mut a = build(base, 1)?;
    let mut b = load(&a.save(), 2)?;
    append(&mut a, 1, base, each)?;
    set_positions(&mut a, 1, pos)?;
    append(&mut b, 2, base, each)?;
    set_positions(&mut b, 2, pos)?;
    Ok((a, b))
}

/// [`diverged_pair`], then synced: the merged message count and the bytes exchanged.
pub fn diverge_merge(base: u32, each: u32, pos: u32) -> Result<(u32, usize)> {
    let (mut a, mut b) = diverged_pair(base, each, pos)?;
    let (bytes, _) = sync_pair(&mut a, &mut b)?;
    Ok((ids(&a)?.len() as u32, bytes))
}

/// An Automerge error as a JS `Error`.
fn js_error(error: AutomergeError) -> JsError {
    JsError::new(&error.to_string())
}

/// Builds `n` messages and saves the document.
#[wasm_bindgen]
pub fn am_build_encode(n: u32) -> std::result::Result<Vec<u8>, JsError> {
    Ok(build(n, 1).map_err(js_error)?.save())
}

/// Loads document `a`, loads `b` into it incrementally, and saves the result.
#[wasm_bindgen]
pub fn am_merge_full(a: &[u8], b: &[u8]) -> std::result::Result<Vec<u8>, JsError> {
    let mut doc = load(a, 3).map_err(js_error)?;
    doc.load_incremental(b).map_err(js_error)?;
    Ok(doc.save())
}

/// [`diverge_merge`]'s merged message count.
#[wasm_bindgen]
pub fn am_diverge_merge(base: u32, each: u32, pos: u32) -> std::result::Result<u32, JsError> {
    Ok(diverge_merge(base, each, pos).map_err(js_error)?.0)
}

/// The number of messages in a saved document.
#[wasm_bindgen]
pub fn am_count(data: &[u8]) -> std::result::Result<u32, JsError> {
    let doc = load(data, 4).map_err(js_error)?;
    Ok(ids(&doc).map_err(js_error)?.len() as u32)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

/// A [`diverged_pair`] synced: the milliseconds of the sync step alone (`performance.now()`).
#[wasm_bindgen]
pub fn am_merge_timed(base: u32, each: u32, pos: u32) -> std::result::Result<f64, JsError> {
    let (mut a, mut b) = diverged_pair(base, each, pos).map_err(js_error)?;
    let start = now();
    sync_pair(&mut a, &mut b).map_err(js_error)?;
    Ok(now() - start)
}
