//! `SyncReplica`: a [`SyncDocument`] for JS. Records go in and out as JSON
//! text (the store's record shapes); frames to send queue inside it, so the
//! caller drains [`SyncReplica::next_frame`] after each call and sends them
//! while its socket is open (a closed socket's queue is dropped: reconnecting
//! greets the server again, and the sync handshake sends what it lacks).

use std::collections::VecDeque;

use wasm_bindgen::prelude::*;

use crate::domain::{Conversation, Message};
use crate::json::from_json::FromJson;
use crate::sync::{Rejected, SyncDocument};
use crate::wasm::panic_guard;

/// One user's document on this device, and the frames it has to send.
#[wasm_bindgen]
pub struct SyncReplica {
    pub(super) doc: SyncDocument,
    /// The state vector when the last update frame was queued.
    sent: Vec<u8>,
    outgoing: VecDeque<Vec<u8>>,
}

#[wasm_bindgen]
impl SyncReplica {
    /// A replica for `device`, holding `snapshot` (what [`Self::snapshot`]
    /// gave before) when there is one; a snapshot that is not one is an error.
    #[wasm_bindgen(constructor)]
    pub fn new(device: &str, snapshot: Option<Vec<u8>>) -> Result<SyncReplica, JsValue> {
        panic_guard::install();
        let doc = SyncDocument::new(device, client_id());
        if let Some(bytes) = snapshot {
            doc.apply_remote(&bytes).map_err(refused)?;
        }
        let sent = doc.state_vector();
        Ok(SyncReplica {
            doc,
            sent,
            outgoing: VecDeque::new(),
        })
    }

    /// The whole document, to keep and to open again.
    pub fn snapshot(&self) -> Vec<u8> {
        self.doc.snapshot()
    }

    /// This document's state vector: give it to [`Self::diff`] later to get
    /// what was written after now.
    #[wasm_bindgen(js_name = stateVector)]
    pub fn state_vector(&self) -> Vec<u8> {
        self.doc.state_vector()
    }

    /// What was written since state vector `vector` (one update: what a
    /// device keeps after a burst of changes instead of the whole document).
    pub fn diff(&self, vector: &[u8]) -> Result<Vec<u8>, JsValue> {
        self.doc.diff_for(vector).map_err(refused)
    }

    /// Updates (a snapshot and the updates kept after it) merged into one,
    /// to open a replica with; bytes that are not updates are an error.
    #[wasm_bindgen(js_name = mergeUpdates)]
    pub fn merge_updates(updates: Vec<js_sys::Uint8Array>) -> Result<Vec<u8>, JsValue> {
        let updates: Vec<Vec<u8>> = updates.iter().map(js_sys::Uint8Array::to_vec).collect();
        yrs::merge_updates_v1(&updates).map_err(|e| refused(crate::sync::remote::malformed(e)))
    }

    /// Queues the greeting (sync step 1): call when the socket opens.
    pub fn connected(&mut self) {
        self.outgoing.clear();
        self.outgoing.push_back(self.doc.greeting());
        self.sent = self.doc.state_vector();
    }

    /// Forgets the frames not sent: call when the socket closes.
    pub fn disconnected(&mut self) {
        self.outgoing.clear();
    }

    /// The next frame to send, if any.
    #[wasm_bindgen(js_name = nextFrame)]
    pub fn next_frame(&mut self) -> Option<Vec<u8>> {
        self.outgoing.pop_front()
    }

    /// Takes a frame from the server; returns what it changed as JSON
    /// (`{ conversations, positions, calls, books, settings }`, ids and names). A frame that breaks
    /// the document's rules changes nothing and is an error.
    pub fn receive(&mut self, frame: &[u8]) -> Result<String, JsValue> {
        let received = self.doc.receive(frame).map_err(refused)?;
        self.outgoing.extend(received.replies);
        let changes = received.changes;
        Ok(serde_json::json!({
            "conversations": changes.conversations,
            "positions": changes.positions,
            "calls": changes.calls,
            "books": changes.books,
            "settings": changes.settings,
        })
        .to_string())
    }

    /// Adds or renames a conversation (a stored conversation's JSON).
    #[wasm_bindgen(js_name = putConversation)]
    pub fn put_conversation(&mut self, json: &str) -> Result<(), JsValue> {
        let conversation: Conversation = record(json)?;
        self.doc.put_conversation(&conversation);
        self.queue_update()
    }

    /// Appends a message (a stored message's JSON) to its conversation; one
    /// already there is left as it is.
    #[wasm_bindgen(js_name = appendMessage)]
    pub fn append_message(&mut self, json: &str) -> Result<(), JsValue> {
        let message: Message = record(json)?;
        self.doc.append_message(&message);
        self.queue_update()
    }

    /// Sets the reader's page in `book`.
    #[wasm_bindgen(js_name = setPosition)]
    pub fn set_position(&mut self, book: &str, page: u32, at: f64) -> Result<(), JsValue> {
        self.doc.set_position(book, page, at);
        self.queue_update()
    }

    /// Shares book `id` (its title, author and the URL of its `exportBook`
    /// bundle) for other devices to import; a record the document's rules
    /// would refuse (an id that is not a book id, an empty title, a URL that
    /// is not `https://`, `http://` or `/…`) is a `TypeError`.
    #[wasm_bindgen(js_name = shareBook)]
    pub fn share_book(
        &mut self,
        id: &str,
        title: &str,
        author: Option<String>,
        bundle_url: &str,
        at: f64,
    ) -> Result<(), JsValue> {
        self.doc
            .share_book(id, title, author.as_deref(), bundle_url, at)
            .map_err(|problem| js_sys::TypeError::new(&problem))?;
        self.queue_update()
    }

    /// Every shared book as a JSON object (book id → `{ title, author?, bundleUrl, updatedAt, device }`).
    pub fn books(&self) -> String {
        json_object(&self.doc.books())
    }

    /// Sets the site's setting `key` to `json` (any JSON text); a name that
    /// is not a setting name, or holds a secret's word (`apiKey`, `token`,
    /// `secret`, `password`), is a `TypeError`, as is text that is not JSON.
    #[wasm_bindgen(js_name = setSetting)]
    pub fn set_setting(&mut self, key: &str, json: &str, at: f64) -> Result<(), JsValue> {
        let value =
            serde_json::from_str(json).map_err(|e| js_sys::TypeError::new(&format!("not JSON: {e}")))?;
        self.doc
            .set_setting(key, value, at)
            .map_err(|problem| js_sys::TypeError::new(&problem))?;
        self.queue_update()
    }

    /// Every synced setting as a JSON object (name → `{ value, updatedAt, device }`).
    pub fn settings(&self) -> String {
        json_object(&self.doc.settings())
    }

    /// Every conversation, as a JSON array.
    pub fn conversations(&self) -> String {
        serde_json::to_string(&self.doc.conversations()).expect("records serialise")
    }

    /// A conversation's messages in the document's order, as a JSON array.
    pub fn messages(&self, conversation_id: &str) -> String {
        serde_json::to_string(&self.doc.messages(conversation_id)).expect("records serialise")
    }

    /// Every book's place as a JSON object (book id → `{ page, updatedAt, device }`).
    pub fn positions(&self) -> String {
        let positions: serde_json::Map<String, serde_json::Value> = self
            .doc
            .positions()
            .into_iter()
            .map(|(book, p)| (book, serde_json::to_value(p).expect("records serialise")))
            .collect();
        serde_json::Value::Object(positions).to_string()
    }

    /// The reader's place in `book` as JSON (`{ page, updatedAt, device }`), if set.
    pub fn position(&self, book: &str) -> Option<String> {
        self.doc
            .position(book)
            .map(|p| serde_json::to_string(&p).expect("records serialise"))
    }
}

impl SyncReplica {
    /// Queues what was written since the last frame; nothing when nothing
    /// was (a record written again as held), so no empty update reaches the
    /// server and every other device.
    pub(super) fn queue_update(&mut self) -> Result<(), JsValue> {
        let now = self.doc.state_vector();
        if now == self.sent {
            return Ok(());
        }
        let update = self.doc.diff_for(&self.sent).map_err(refused)?;
        self.sent = now;
        self.outgoing.push_back(SyncDocument::update_frame(update));
        Ok(())
    }
}

/// `{ "<key>": <record>, … }` as JSON text (each record serialised once, as
/// the document writes it).
fn json_object<T: serde::Serialize>(entries: &[(String, T)]) -> String {
    let fields: Vec<String> = entries
        .iter()
        .map(|(key, record)| {
            let key = serde_json::to_string(key).expect("a string serialises");
            format!(
                "{key}:{}",
                serde_json::to_string(record).expect("records serialise")
            )
        })
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// A record read from its JSON text, or a `TypeError` saying why.
pub(super) fn record<T: FromJson>(json: &str) -> Result<T, JsValue> {
    let value = serde_json::from_str(json).map_err(|e| js_sys::TypeError::new(&format!("not JSON: {e}")))?;
    T::from_json(value).map_err(|e| js_sys::TypeError::new(&format!("not a record: {e}")).into())
}

/// A refused update as a JS `Error` named `SyncError`.
pub(super) fn refused(rejected: Rejected) -> JsValue {
    let error = js_sys::Error::new(&rejected.to_string());
    error.set_name("SyncError");
    error.into()
}

/// A Yjs client id for this copy of the document: random, 53 bits (as Yjs's),
/// never 0.
fn client_id() -> u64 {
    let mut bytes = [0u8; 8];
    let _ = getrandom::getrandom(&mut bytes);
    (u64::from_le_bytes(bytes) >> 11).max(1)
}
