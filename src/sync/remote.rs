//! Updates in and out: the state vector a device sends, the diff it
//! answers with, and a remote update applied only once a scratch copy of the
//! document holds the rules with it ([`super::rules`]).

use std::collections::BTreeMap;

use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Doc, ReadTxn, StateVector, Transact, Update};

use super::document::{split_decision_key, SyncDocument};
use super::rules::{check, Snapshot};

/// The largest remote update accepted (bytes): a whole 1,000-message
/// document is about 400 KB.
pub const MAX_UPDATE_BYTES: usize = 16 << 20;

/// Why a remote update was not applied; the document is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Rejected {
    /// Larger than [`MAX_UPDATE_BYTES`].
    #[error("an update of {0} bytes is larger than the {MAX_UPDATE_BYTES} accepted")]
    TooLarge(usize),
    /// Not a Yjs update (or state vector).
    #[error("not a Yjs update: {0}")]
    Malformed(String),
    /// A well-formed update that would break a rule of the document.
    #[error("the update breaks a rule of the document: {0}")]
    BreaksRule(String),
    /// The sync server refused this device (its token, or another user's room).
    #[error("the sync server refused: {0}")]
    Denied(String),
}

/// What a remote update added, for the store to follow.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Changes {
    /// Conversation ids whose messages or details changed.
    pub conversations: Vec<String>,
    /// Book ids whose reading position changed.
    pub positions: Vec<String>,
    /// Call ids recorded, decided or given a result.
    pub calls: Vec<String>,
    /// Book ids shared or shared again.
    pub books: Vec<String>,
    /// Setting names set.
    pub settings: Vec<String>,
}

impl Changes {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.conversations.is_empty()
            && self.positions.is_empty()
            && self.calls.is_empty()
            && self.books.is_empty()
            && self.settings.is_empty()
    }
}

impl SyncDocument {
    /// This document's state vector (sync step 1: "what I have").
    pub fn state_vector(&self) -> Vec<u8> {
        self.doc.transact().state_vector().encode_v1()
    }

    /// What a peer with state vector `remote` lacks (sync step 2).
    pub fn diff_for(&self, remote: &[u8]) -> Result<Vec<u8>, Rejected> {
        let vector = StateVector::decode_v1(remote).map_err(malformed)?;
        Ok(self.doc.transact().encode_diff_v1(&vector))
    }

    /// The whole document as one update (what is stored, and what a new device loads).
    pub fn snapshot(&self) -> Vec<u8> {
        self.doc
            .transact()
            .encode_state_as_update_v1(&StateVector::default())
    }

    /// Applies a remote update when it keeps the rules; otherwise nothing
    /// changes and the error says why.
    pub fn apply_remote(&self, update: &[u8]) -> Result<Changes, Rejected> {
        if update.len() > MAX_UPDATE_BYTES {
            return Err(Rejected::TooLarge(update.len()));
        }
        let decoded = Update::decode_v1(update).map_err(malformed)?;
        let before = Snapshot::of(&self.doc.transact());
        let scratch = Doc::new();
        apply(&scratch, &self.snapshot())?;
        apply_decoded(&scratch, decoded)?;
        let after = Snapshot::of(&scratch.transact());
        check(&before, &after).map_err(Rejected::BreaksRule)?;
        apply(&self.doc, update)?;
        Ok(changes(&before, &after))
    }
}

/// A yrs decoding or integration error as a rejection.
pub(crate) fn malformed(error: impl std::fmt::Display) -> Rejected {
    Rejected::Malformed(error.to_string())
}

/// `update` decoded and applied to `doc`.
fn apply(doc: &Doc, update: &[u8]) -> Result<(), Rejected> {
    let decoded = Update::decode_v1(update).map_err(malformed)?;
    apply_decoded(doc, decoded)
}

fn apply_decoded(doc: &Doc, update: Update) -> Result<(), Rejected> {
    doc.transact_mut().apply_update(update).map_err(malformed)
}

/// The keys whose values differ between `before` and `after`, by kind.
fn changes(before: &Snapshot, after: &Snapshot) -> Changes {
    fn changed<V: PartialEq>(a: &BTreeMap<String, V>, b: &BTreeMap<String, V>) -> Vec<String> {
        b.iter()
            .filter(|(k, v)| a.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect()
    }
    let mut conversations = changed(&before.orders, &after.orders);
    for id in changed(&before.conversations, &after.conversations) {
        if !conversations.contains(&id) {
            conversations.push(id);
        }
    }
    let mut calls = changed(&before.calls, &after.calls);
    for key in changed(&before.decisions, &after.decisions) {
        let id = split_decision_key(&key)
            .map_or(key.as_str(), |(id, _)| id)
            .to_owned();
        if !calls.contains(&id) {
            calls.push(id);
        }
    }
    for id in changed(&before.results, &after.results) {
        if !calls.contains(&id) {
            calls.push(id);
        }
    }
    Changes {
        conversations,
        positions: changed(&before.positions, &after.positions),
        calls,
        books: changed(&before.books, &after.books),
        settings: changed(&before.settings, &after.settings),
    }
}
