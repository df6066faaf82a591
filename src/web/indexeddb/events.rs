//! Recorded turn events in IndexedDB (`recordEvents`): `turnEvents`, keyed
//! `[conversationId, turnId, seq]` (so a conversation's key range lists and
//! deletes them) with a `byTurn` index for `replay` (schema version 7).

use idb::{Database, Query, Transaction, TransactionMode};
use js_sys::Array;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

use super::errors::idb_error;
use super::keys::owner_range;
use super::record::{from_record, put_record};
use super::schema::{BY_TURN, CONVERSATIONS, TURN_EVENTS};
use super::tx::{commit, exists, transaction};
use crate::error::{Error, Result};
use crate::json::from_json::FromJson;

/// One recorded event, as stored.
#[derive(Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
struct StoredEvent {
    conversation_id: String,
    turn_id: String,
    seq: u32,
    event: serde_json::Value,
}

/// `Store::append_turn_events`: numbers them after the turn's kept ones, in one transaction.
pub(super) async fn append_turn_events(
    db: &Database,
    conversation_id: &str,
    turn_id: &str,
    events: Vec<serde_json::Value>,
) -> Result<()> {
    let tx = transaction(db, &[CONVERSATIONS, TURN_EVENTS], TransactionMode::ReadWrite)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        let _ = tx.abort();
        return Err(Error::not_found("conversation", conversation_id));
    }
    let store = tx.object_store(TURN_EVENTS).map_err(idb_error)?;
    let kept = store
        .index(BY_TURN)
        .map_err(idb_error)?
        .count(Some(Query::Key(JsValue::from_str(turn_id))))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    for (seq, event) in (kept..).zip(events) {
        let record = StoredEvent {
            conversation_id: conversation_id.to_owned(),
            turn_id: turn_id.to_owned(),
            seq,
            event,
        };
        put_record(&store, &record).await?;
    }
    commit(tx).await
}

/// `Store::turn_events`: the turn's records through its index, in key (so `seq`) order.
pub(super) async fn turn_events(db: &Database, turn_id: &str) -> Result<Vec<serde_json::Value>> {
    let tx = transaction(db, &[TURN_EVENTS], TransactionMode::ReadOnly)?;
    let values = tx
        .object_store(TURN_EVENTS)
        .map_err(idb_error)?
        .index(BY_TURN)
        .map_err(idb_error)?
        .get_all(Some(Query::Key(JsValue::from_str(turn_id))), None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let mut stored: Vec<StoredEvent> = values.into_iter().map(from_record).collect::<Result<_>>()?;
    crate::domain::sort_by(&mut stored, |a, b| a.seq.cmp(&b.seq));
    Ok(stored.into_iter().map(|s| s.event).collect())
}

/// `Store::recorded_turns`: the distinct turn ids among the conversation's keys.
pub(super) async fn recorded_turns(db: &Database, conversation_id: &str) -> Result<Vec<String>> {
    let tx = transaction(db, &[CONVERSATIONS, TURN_EVENTS], TransactionMode::ReadOnly)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let keys = tx
        .object_store(TURN_EVENTS)
        .map_err(idb_error)?
        .get_all_keys(Some(owner_range(conversation_id)?), None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let mut turns: Vec<String> = Vec::new();
    for key in keys {
        let turn = key
            .dyn_ref::<Array>()
            .and_then(|parts| parts.get(1).as_string())
            .ok_or_else(|| Error::storage("a turnEvents key is not [conversationId, turnId, seq]"))?;
        if turns.last() != Some(&turn) {
            turns.push(turn);
        }
    }
    Ok(turns)
}

/// Deletes a conversation's recorded events inside `tx` (its deletion's transaction).
pub(super) async fn delete_events_in(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(TURN_EVENTS)
        .map_err(idb_error)?
        .delete(owner_range(conversation_id)?)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}
