//! Open-turn records in IndexedDB: `openTurns`, keyed `[conversationId,
//! turnId]` (schema version 8). Written and deleted inside a turn's step
//! commits; read by `interruptedTurns`, `resumeTurn`, and a turn
//! that closes those a closed page cut off.

use idb::{Database, Transaction, TransactionMode};
use js_sys::Array;
use wasm_bindgen::JsValue;

use super::errors::idb_error;
use super::keys::owner_range;
use super::record::{from_record, put_record};
use super::schema::OPEN_TURNS;
use super::tx::{all_records, any_record, owned_records, transaction};
use crate::domain::{OpenTurn, OpenTurnChange};
use crate::error::Result;

/// Applies a step commit's change to the open-turn record within `tx`.
pub(super) async fn apply_in(tx: &Transaction, change: &OpenTurnChange) -> Result<()> {
    let store = tx.object_store(OPEN_TURNS).map_err(idb_error)?;
    match change {
        OpenTurnChange::Put(turn) => {
            put_record(&store, turn).await?;
        }
        OpenTurnChange::Delete {
            conversation_id,
            turn_id,
        } => {
            let key = Array::of2(&JsValue::from_str(conversation_id), &JsValue::from_str(turn_id));
            store
                .delete(JsValue::from(key))
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
        }
    }
    Ok(())
}

/// Deletes a conversation's open-turn records within `tx` (its deletion's transaction).
pub(super) async fn delete_open_turns_in(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(OPEN_TURNS)
        .map_err(idb_error)?
        .delete(owner_range(conversation_id)?)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}

/// `Store::has_open_turns`: a count over the conversation's key range.
pub(super) async fn has_open_turns(db: &Database, conversation_id: &str) -> Result<bool> {
    any_record(db, OPEN_TURNS, None, Some(owner_range(conversation_id)?)).await
}

/// `StoreArchive::open_turns`: one key range for a conversation, or the whole store.
pub(super) async fn open_turns(db: &Database, conversation_id: Option<&str>) -> Result<Vec<OpenTurn>> {
    let Some(id) = conversation_id else {
        return all_records(db, OPEN_TURNS).await;
    };
    let tx = transaction(db, &[OPEN_TURNS], TransactionMode::ReadOnly)?;
    let values = owned_records(&tx, OPEN_TURNS, id).await?;
    values.into_iter().map(from_record).collect()
}
