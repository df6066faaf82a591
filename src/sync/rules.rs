//! The rules a remote update must keep, checked on a scratch copy before it
//! reaches the document: only the known roots; nothing written is deleted;
//! messages, calls and results are written once and never rewritten; a
//! conversation's order only grows; every record reads as its kind, under its
//! own id. yrs already refuses malformed bytes; these stop a well-formed
//! update that would rewrite history (or hand a call to another device).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use yrs::{Array, Map, ReadTxn};

use super::document::{
    call_key, split_decision_key, string_of, BOOKS, CALLS, CONVERSATIONS, DECISIONS, MESSAGES, ORDER_PREFIX,
    POSITIONS, RESULTS, SETTINGS,
};
use super::records::{SyncedBook, SyncedCall, SyncedDecision, SyncedPosition, SyncedSetting};
use crate::domain::{Conversation, Message, ToolCallRecord};
use crate::json::from_json::FromJson;

/// The largest record accepted (bytes of JSON text).
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// Everything the rules look at, as text.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    /// Root names that are none of the document's.
    pub unknown_roots: Vec<String>,
    pub conversations: BTreeMap<String, Option<String>>,
    pub messages: BTreeMap<String, Option<String>>,
    pub positions: BTreeMap<String, Option<String>>,
    pub calls: BTreeMap<String, Option<String>>,
    pub decisions: BTreeMap<String, Option<String>>,
    pub results: BTreeMap<String, Option<String>>,
    pub books: BTreeMap<String, Option<String>>,
    pub settings: BTreeMap<String, Option<String>>,
    /// Conversation id → its order list (`None` for an entry that is not a string).
    pub orders: BTreeMap<String, Vec<Option<String>>>,
}

impl Snapshot {
    /// What `txn`'s document holds.
    pub fn of(txn: &impl ReadTxn) -> Self {
        let mut out = Snapshot::default();
        let names: Vec<String> = txn.root_refs().map(|(name, _)| name.to_owned()).collect();
        for name in names {
            if let Some(conversation) = name.strip_prefix(ORDER_PREFIX) {
                let entries = match txn.get_array(name.as_str()) {
                    Some(array) => array.iter(txn).map(|v| string_of(&v)).collect(),
                    None => Vec::new(),
                };
                out.orders.insert(conversation.to_owned(), entries);
                continue;
            }
            let slot = match name.as_str() {
                CONVERSATIONS => &mut out.conversations,
                MESSAGES => &mut out.messages,
                POSITIONS => &mut out.positions,
                CALLS => &mut out.calls,
                DECISIONS => &mut out.decisions,
                RESULTS => &mut out.results,
                BOOKS => &mut out.books,
                SETTINGS => &mut out.settings,
                _ => {
                    out.unknown_roots.push(name);
                    continue;
                }
            };
            if let Some(map) = txn.get_map(name.as_str()) {
                *slot = map
                    .iter(txn)
                    .map(|(k, v)| (k.to_owned(), string_of(&v)))
                    .collect();
            }
        }
        out
    }
}

/// Whether `after` keeps the rules against `before`: `Err` says the first broken one.
pub(crate) fn check(before: &Snapshot, after: &Snapshot) -> Result<(), String> {
    if let Some(name) = after.unknown_roots.first() {
        return Err(format!("`{name}` is not part of the document"));
    }
    written_once(MESSAGES, &before.messages, &after.messages)?;
    written_once(CALLS, &before.calls, &after.calls)?;
    written_once(RESULTS, &before.results, &after.results)?;
    kept(CONVERSATIONS, &before.conversations, &after.conversations)?;
    kept(POSITIONS, &before.positions, &after.positions)?;
    kept(DECISIONS, &before.decisions, &after.decisions)?;
    kept(BOOKS, &before.books, &after.books)?;
    kept(SETTINGS, &before.settings, &after.settings)?;
    each_new(&before.messages, &after.messages, |id, text| {
        let message = record::<Message>(text)?;
        same_id(&message.id, id)
    })?;
    each_new(&before.conversations, &after.conversations, |id, text| {
        same_id(&record::<Conversation>(text)?.id, id)
    })?;
    each_new(&before.results, &after.results, |key, text| {
        let result = record::<ToolCallRecord>(text)?;
        same_id(&call_key(&result.turn_id, &result.id), key)
    })?;
    each_new(&before.positions, &after.positions, |_, text| {
        serde_record::<SyncedPosition>(text).map(drop)
    })?;
    each_new(&before.books, &after.books, |id, text| {
        let book = record::<SyncedBook>(text)?;
        book.problem(id).map_or(Ok(()), Err)
    })?;
    each_new(&before.settings, &after.settings, |key, text| {
        record::<SyncedSetting>(text)?;
        SyncedSetting::key_problem(key).map_or(Ok(()), Err)
    })?;
    each_new(&before.calls, &after.calls, |_, text| {
        serde_record::<SyncedCall>(text).map(drop)
    })?;
    each_new(&before.decisions, &after.decisions, |key, text| {
        if split_decision_key(key).is_none() {
            return Err(format!("decision key `{key}` names no device"));
        }
        serde_record::<SyncedDecision>(text).map(drop)
    })?;
    orders_grow(before, after)
}

/// Every entry of `before` is in `after` unchanged.
fn written_once(map: &str, before: &Entries, after: &Entries) -> Result<(), String> {
    for (key, value) in before {
        match after.get(key) {
            None => return Err(format!("{map}: `{key}` was deleted")),
            Some(v) if v != value => return Err(format!("{map}: `{key}` was rewritten")),
            Some(_) => {}
        }
    }
    Ok(())
}

/// Every key of `before` is still in `after` (its value may change).
fn kept(map: &str, before: &Entries, after: &Entries) -> Result<(), String> {
    match before.keys().find(|k| !after.contains_key(*k)) {
        Some(key) => Err(format!("{map}: `{key}` was deleted")),
        None => Ok(()),
    }
}

type Entries = BTreeMap<String, Option<String>>;

/// `read` on each entry of `after` that is new or changed.
fn each_new(
    before: &Entries,
    after: &Entries,
    read: impl Fn(&str, &str) -> Result<(), String>,
) -> Result<(), String> {
    for (key, value) in after {
        if before.get(key) == Some(value) {
            continue;
        }
        let text = value
            .as_deref()
            .ok_or_else(|| format!("`{key}` is not a JSON text"))?;
        if text.len() > MAX_RECORD_BYTES {
            return Err(format!(
                "`{key}` is {} bytes, over {MAX_RECORD_BYTES}",
                text.len()
            ));
        }
        read(key, text).map_err(|e| format!("`{key}`: {e}"))?;
    }
    Ok(())
}

/// A stored record (read as the store reads them).
fn record<T: FromJson>(text: &str) -> Result<T, String> {
    let value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    T::from_json(value).map_err(|e| e.to_string())
}

/// A sync record (serde's).
fn serde_record<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

fn same_id(inside: &str, key: &str) -> Result<(), String> {
    if inside == key {
        Ok(())
    } else {
        Err(format!("holds the record of `{inside}`"))
    }
}

/// Each conversation's order keeps its entries (in their order) and holds only strings.
fn orders_grow(before: &Snapshot, after: &Snapshot) -> Result<(), String> {
    for (conversation, old) in &before.orders {
        let new = after.orders.get(conversation).map_or(&[][..], Vec::as_slice);
        if !is_subsequence(old, new) {
            return Err(format!("the order of `{conversation}` lost entries"));
        }
    }
    for (conversation, entries) in &after.orders {
        if entries.iter().any(Option::is_none) {
            return Err(format!("the order of `{conversation}` holds a non-id"));
        }
    }
    Ok(())
}

/// Whether `old` appears in `new` in order (other entries between).
fn is_subsequence<T: PartialEq>(old: &[T], new: &[T]) -> bool {
    let mut rest = new.iter();
    old.iter().all(|item| rest.any(|n| n == item))
}

#[cfg(test)]
mod tests {
    use super::is_subsequence;

    #[test]
    fn an_order_grown_by_merging_keeps_the_old_one_as_a_subsequence() {
        assert!(is_subsequence(&[1, 3], &[1, 2, 3, 4]));
        assert!(is_subsequence::<u8>(&[], &[]));
        assert!(!is_subsequence(&[1, 3], &[3, 1]));
        assert!(!is_subsequence(&[1, 2], &[1]));
    }
}
