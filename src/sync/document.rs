//! [`SyncDocument`]: one user's Yjs document on one device — the local
//! writes (each record once, in its own transaction) and the reads the store
//! is brought up to date from.

use std::collections::{HashMap, HashSet};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use yrs::{Any, Array, Doc, Map, Out, ReadTxn, Transact, TransactionMut, WriteTxn};

use super::calls::{effective_decision, EffectiveDecision};
use super::records::{SyncedBook, SyncedCall, SyncedDecision, SyncedPosition, SyncedSetting};
use crate::domain::{Conversation, Message, ToolCallRecord};
use crate::json::from_json::FromJson;

/// The root maps' names (see the module's documentation).
pub(crate) const CONVERSATIONS: &str = "conversations";
pub(crate) const MESSAGES: &str = "messages";
pub(crate) const POSITIONS: &str = "positions";
pub(crate) const CALLS: &str = "calls";
pub(crate) const DECISIONS: &str = "decisions";
pub(crate) const RESULTS: &str = "results";
pub(crate) const BOOKS: &str = "books";
pub(crate) const SETTINGS: &str = "settings";
/// The prefix of a conversation's order list: `order/<conversation id>`.
pub(crate) const ORDER_PREFIX: &str = "order/";

/// One user's document on one device.
pub struct SyncDocument {
    pub(crate) doc: Doc,
    device: String,
}

impl SyncDocument {
    /// An empty document for `device` (the id this device signs its
    /// decisions and owned calls with), editing as Yjs client `client`: a
    /// number no other open copy of the document uses (random per load,
    /// never per device: two tabs of one device are two clients).
    pub fn new(device: &str, client: u64) -> Self {
        SyncDocument {
            doc: Doc::with_client_id(client),
            device: device.to_owned(),
        }
    }

    /// This device's id.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Adds or renames a conversation (its title and book; last writer wins).
    pub fn put_conversation(&self, conversation: &Conversation) {
        let mut txn = self.doc.transact_mut();
        put_json(&mut txn, CONVERSATIONS, &conversation.id, conversation);
    }

    /// Appends `message` to its conversation; a message already in the
    /// document (the same id) is left as it is: written once.
    pub fn append_message(&self, message: &Message) {
        let mut txn = self.doc.transact_mut();
        let messages = txn.get_or_insert_map(MESSAGES);
        if messages.get(&txn, &message.id).is_some() {
            return;
        }
        let mut stored = message.clone();
        stored.seq = 0; // the order list says where it is
        put_json(&mut txn, MESSAGES, &message.id, &stored);
        let order = txn.get_or_insert_array(order_name(&message.conversation_id).as_str());
        order.push_back(&mut txn, message.id.as_str());
    }

    /// Sets the reader's page in `book` (last writer wins).
    pub fn set_position(&self, book: &str, page: u32, at: f64) {
        let position = SyncedPosition {
            page,
            updated_at: at,
            device: self.device.clone(),
        };
        put_json(&mut self.doc.transact_mut(), POSITIONS, book, &position);
    }

    /// Shares book `id`: its bundle at `bundle_url` is where other devices
    /// import it from (last writer wins). A record the rules would refuse is
    /// an error saying why, and nothing is written.
    pub fn share_book(
        &self,
        id: &str,
        title: &str,
        author: Option<&str>,
        bundle_url: &str,
        at: f64,
    ) -> Result<(), String> {
        let book = SyncedBook {
            title: title.to_owned(),
            author: author.map(str::to_owned),
            bundle_url: bundle_url.to_owned(),
            updated_at: at,
            device: self.device.clone(),
        };
        if let Some(problem) = book.problem(id) {
            return Err(problem);
        }
        put_json(&mut self.doc.transact_mut(), BOOKS, id, &book);
        Ok(())
    }

    /// Sets the site's setting `key` to `value` (last writer wins); a name
    /// the rules refuse ([`SyncedSetting::key_problem`]) is an error, and
    /// nothing is written.
    pub fn set_setting(&self, key: &str, value: Value, at: f64) -> Result<(), String> {
        if let Some(problem) = SyncedSetting::key_problem(key) {
            return Err(problem);
        }
        let setting = SyncedSetting {
            value,
            updated_at: at,
            device: self.device.clone(),
        };
        put_json(&mut self.doc.transact_mut(), SETTINGS, key, &setting);
        Ok(())
    }

    /// Records call `call_id` of turn `turn_id` as waiting for a person,
    /// owned by this device (its turn is paused here); a call already
    /// recorded is left as it is. Returns its key ([`call_key`]), which
    /// decisions and results name it by.
    pub fn add_call(
        &self,
        call_id: &str,
        conversation_id: &str,
        turn_id: &str,
        name: &str,
        arguments: &str,
    ) -> String {
        let id = call_key(turn_id, call_id);
        let call = SyncedCall {
            conversation_id: conversation_id.to_owned(),
            turn_id: turn_id.to_owned(),
            name: name.to_owned(),
            arguments: arguments.to_owned(),
            owner: self.device.clone(),
        };
        let mut txn = self.doc.transact_mut();
        if txn.get_or_insert_map(CALLS).get(&txn, &id).is_none() {
            put_json(&mut txn, CALLS, &id, &call);
        }
        id
    }

    /// This device's decision on call `id` (a later one of its own replaces it).
    pub fn decide(&self, id: &str, decision: &SyncedDecision) {
        let key = decision_key(id, &self.device);
        put_json(&mut self.doc.transact_mut(), DECISIONS, &key, decision);
    }

    /// What came of a call (under its [`call_key`]), which only its owner
    /// records, once.
    pub fn record_result(&self, record: &ToolCallRecord) {
        let key = call_key(&record.turn_id, &record.id);
        let mut txn = self.doc.transact_mut();
        if txn.get_or_insert_map(RESULTS).get(&txn, &key).is_none() {
            put_json(&mut txn, RESULTS, &key, record);
        }
    }

    /// Every conversation, in no particular order.
    pub fn conversations(&self) -> Vec<Conversation> {
        let txn = self.doc.transact();
        json_values(&txn, CONVERSATIONS)
            .into_iter()
            .filter_map(|(_, value)| Conversation::from_json(value).ok())
            .collect()
    }

    /// Conversation `id`'s messages in the document's order (each id at its
    /// first occurrence), `seq` numbered from 0: the same on every device
    /// that has the same updates.
    pub fn messages(&self, conversation_id: &str) -> Vec<Message> {
        let txn = self.doc.transact();
        let Some(order) = txn.get_array(order_name(conversation_id).as_str()) else {
            return Vec::new();
        };
        let Some(messages) = txn.get_map(MESSAGES) else {
            return Vec::new();
        };
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for id in order.iter(&txn).filter_map(|v| string_of(&v)) {
            if !seen.insert(id.clone()) {
                continue;
            }
            let Some(value) = messages.get(&txn, &id).and_then(|v| json_of(&v)) else {
                continue;
            };
            if let Ok(mut message) = Message::from_json(value) {
                message.seq = out.len() as u32;
                out.push(message);
            }
        }
        out
    }

    /// The reader's place in `book`, if any device set one.
    pub fn position(&self, book: &str) -> Option<SyncedPosition> {
        read_json(&self.doc.transact(), POSITIONS, book)
    }

    /// Every book's place, by book id.
    pub fn positions(&self) -> Vec<(String, SyncedPosition)> {
        self.records(POSITIONS, |v| serde_json::from_value(v).ok())
    }

    /// Every shared book, by book id.
    pub fn books(&self) -> Vec<(String, SyncedBook)> {
        self.records(BOOKS, |v| SyncedBook::from_json(v).ok())
    }

    /// Every synced setting, by name.
    pub fn settings(&self) -> Vec<(String, SyncedSetting)> {
        self.records(SETTINGS, |v| SyncedSetting::from_json(v).ok())
    }

    /// Call `id`, if recorded.
    pub fn call(&self, id: &str) -> Option<SyncedCall> {
        read_json(&self.doc.transact(), CALLS, id)
    }

    /// Call `id`'s decision, from every device's (see [`effective_decision`]).
    pub fn decision(&self, id: &str) -> EffectiveDecision {
        let mut grouped = self.decisions_of(&[id]);
        effective_decision(&grouped.remove(id).unwrap_or_default())
    }

    /// The decisions recorded on each of `ids` (device id, decision), read
    /// in one pass: a decision's key ([`decision_key`]) is a call's id, `/`
    /// and the device's.
    fn decisions_of<'k>(&self, ids: &[&'k str]) -> HashMap<&'k str, Vec<(String, SyncedDecision)>> {
        let mut grouped: HashMap<&str, Vec<(String, SyncedDecision)>> =
            ids.iter().map(|&id| (id, Vec::new())).collect();
        for (key, decision) in self.records(DECISIONS, |v| serde_json::from_value::<SyncedDecision>(v).ok()) {
            // Every `/` may end the call's id (either id may hold one).
            for (at, _) in key.match_indices('/') {
                if let Some(of_call) = grouped.get_mut(&key[..at]) {
                    of_call.push((key[at + 1..].to_owned(), decision.clone()));
                }
            }
        }
        grouped
    }

    /// What came of call `id`, if its owner recorded it.
    pub fn result(&self, id: &str) -> Option<ToolCallRecord> {
        let txn = self.doc.transact();
        let value = txn.get_map(RESULTS)?.get(&txn, id).and_then(|v| json_of(&v))?;
        ToolCallRecord::from_json(value).ok()
    }

    /// Every recorded call, by id.
    pub fn calls(&self) -> Vec<(String, SyncedCall)> {
        self.records(CALLS, |v| serde_json::from_value(v).ok())
    }

    /// Every record of root map `map` that `read` takes, with its key.
    fn records<T>(&self, map: &str, read: impl Fn(Value) -> Option<T>) -> Vec<(String, T)> {
        json_values(&self.doc.transact(), map)
            .into_iter()
            .filter_map(|(key, v)| Some((key, read(v)?)))
            .collect()
    }

    /// Every recorded call, by id, with its decision from every device's and
    /// whether its owner recorded what came of it: the decisions and results
    /// read once for all of them.
    pub fn calls_decided(&self) -> Vec<(String, SyncedCall, EffectiveDecision, bool)> {
        let calls = self.calls();
        let ids: Vec<&str> = calls.iter().map(|(id, _)| id.as_str()).collect();
        let mut decisions = self.decisions_of(&ids);
        let decided: Vec<EffectiveDecision> = ids
            .iter()
            .map(|id| effective_decision(&decisions.remove(id).unwrap_or_default()))
            .collect();
        let done: HashSet<String> = self
            .records(RESULTS, |v| ToolCallRecord::from_json(v).ok())
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        calls
            .into_iter()
            .zip(decided)
            .map(|((id, call), decision)| {
                let ran = done.contains(&id);
                (id, call, decision, ran)
            })
            .collect()
    }

    /// The calls this device may run now: owned here, decided, no result yet.
    pub fn calls_to_run(&self) -> Vec<(String, SyncedCall, EffectiveDecision)> {
        self.calls_decided()
            .into_iter()
            .filter(|(_, call, decision, done)| call.owner == self.device && !done && decision.is_decided())
            .map(|(id, call, decision, _)| (id, call, decision))
            .collect()
    }
}

/// The order list's root name for a conversation.
pub(crate) fn order_name(conversation_id: &str) -> String {
    format!("{ORDER_PREFIX}{conversation_id}")
}

/// The `decisions` key of `device`'s decision on call `id`.
pub(crate) fn decision_key(id: &str, device: &str) -> String {
    format!("{id}/{device}")
}

/// The key of call `call_id` of turn `turn_id` in the document: a provider's
/// call ids repeat across turns (`call_0`), a turn's do not.
pub fn call_key(turn_id: &str, call_id: &str) -> String {
    format!("{turn_id}:{call_id}")
}

/// A `decisions` key's call id and device id, split at its last `/`
/// ([`decision_key`]'s parts when the device id holds no `/`).
pub(crate) fn split_decision_key(key: &str) -> Option<(&str, &str)> {
    key.rsplit_once('/')
}

/// `value` as JSON text under `key` in root map `map`.
fn put_json(txn: &mut TransactionMut, map: &str, key: &str, value: &impl Serialize) {
    let text = serde_json::to_string(value).expect("records serialise");
    let map = txn.get_or_insert_map(map);
    // The same record again writes nothing: no update for every other device to take.
    if map.get(txn, key).and_then(|v| string_of(&v)).as_deref() == Some(text.as_str()) {
        return;
    }
    map.insert(txn, key, text);
}

/// The record under `key` in root map `map`, if it reads as a `T`.
fn read_json<T: DeserializeOwned>(txn: &impl ReadTxn, map: &str, key: &str) -> Option<T> {
    let value = txn.get_map(map)?.get(txn, key)?;
    serde_json::from_value(json_of(&value)?).ok()
}

/// Every (key, JSON value) of root map `map`; values that are not JSON text are skipped.
fn json_values(txn: &impl ReadTxn, map: &str) -> Vec<(String, Value)> {
    let Some(map) = txn.get_map(map) else {
        return Vec::new();
    };
    map.iter(txn)
        .filter_map(|(k, v)| Some((k.to_owned(), json_of(&v)?)))
        .collect()
}

/// A string value's text.
pub(crate) fn string_of(value: &Out) -> Option<String> {
    match value {
        Out::Any(Any::String(s)) => Some(s.to_string()),
        _ => None,
    }
}

/// A JSON-text value, parsed.
pub(crate) fn json_of(value: &Out) -> Option<Value> {
    serde_json::from_str(&string_of(value)?).ok()
}
