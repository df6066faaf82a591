//! The turn records of the IndexedDB store: paused turns (`pendingTurns`,
//! keyed by `turnId`, indexed `byConversation`), tool-call records
//! (`toolCalls`, keyed by `[conversationId, turnId, position]`) and headless
//! runs (`runs`, keyed by `runId`).

use std::collections::HashSet;

use idb::{Database, Query, Transaction, TransactionMode};
use wasm_bindgen::JsValue;

use super::errors::idb_error;
use super::grants::put_grants_in;
use super::keys::owner_range;
use super::messages::append_in;
use super::open_turns;
use super::record::{from_record, put_record};
use super::schema::{
    APPROVAL_GRANTS, BY_CONVERSATION, CONVERSATIONS, MESSAGES, OPEN_TURNS, PENDING_TURNS, RUNS, TOOL_CALLS,
};
use super::tx::{
    all_records, any_record, commit as commit_tx, exists, finish, get_record, owned_records, transaction,
    write_transaction,
};
use crate::domain::Message;
use crate::domain::{PendingRevision, PendingTurn};
use crate::domain::{RunRecord, ToolCallRecord};
use crate::error::{Error, Result};
use crate::storage::{check_revision, TurnWrite};

/// `Store::commit`: one read-write transaction over messages, tool calls, paused turns and grants.
pub(super) async fn commit(db: &Database, write: TurnWrite) -> Result<Vec<Message>> {
    let stores = [
        CONVERSATIONS,
        MESSAGES,
        TOOL_CALLS,
        PENDING_TURNS,
        APPROVAL_GRANTS,
        OPEN_TURNS,
    ];
    let (tx, guard) = write_transaction(db, &stores)?;
    let outcome = commit_in(&tx, write).await;
    finish(tx, guard, outcome).await
}

/// The body of `commit`, inside its read-write transaction.
async fn commit_in(tx: &Transaction, write: TurnWrite) -> Result<Vec<Message>> {
    let mut owners: HashSet<&str> = write
        .tool_calls
        .iter()
        .map(|r| r.conversation_id.as_str())
        .collect();
    if let Some(pending) = &write.pending {
        owners.insert(&pending.conversation_id);
    }
    owners.extend(write.grants.iter().map(|g| g.conversation_id.as_str()));
    owners.extend(write.open_turn.as_ref().map(|c| c.conversation_id()));
    for owner in owners {
        if !exists(tx, CONVERSATIONS, owner).await? {
            return Err(Error::not_found("conversation", owner));
        }
    }
    let pending_store = tx.object_store(PENDING_TURNS).map_err(idb_error)?;
    if let Some(pending) = &write.pending {
        let stored = pending_store
            .get(JsValue::from_str(&pending.turn_id))
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?
            .map(from_record::<PendingRevision>)
            .transpose()?;
        check_revision(stored, pending)?;
    }
    let stored = append_in(tx, write.messages).await?;
    let records = tx.object_store(TOOL_CALLS).map_err(idb_error)?;
    for record in &write.tool_calls {
        put_record(&records, record).await?;
    }
    if let Some(pending) = write.pending {
        put_record(&pending_store, &pending.pruned()).await?;
    }
    put_grants_in(tx, &write.grants).await?;
    if let Some(change) = &write.open_turn {
        open_turns::apply_in(tx, change).await?;
    }
    Ok(stored)
}

/// `Store::has_pending_turns`: a count through the conversation index.
pub(super) async fn has_pending_turns(db: &Database, conversation_id: &str) -> Result<bool> {
    let query = Query::Key(JsValue::from_str(conversation_id));
    any_record(db, PENDING_TURNS, Some(BY_CONVERSATION), Some(query)).await
}

/// `StoreArchive::pending_turn`.
pub(super) async fn pending_turn(db: &Database, turn_id: &str) -> Result<Option<PendingTurn>> {
    get_record(db, PENDING_TURNS, turn_id).await
}

/// `StoreArchive::pending_turns`: through the conversation index, or all; IndexedDB returns them by turn id.
pub(super) async fn pending_turns(db: &Database, conversation_id: Option<&str>) -> Result<Vec<PendingTurn>> {
    let turns: Vec<PendingTurn> = match conversation_id {
        None => all_records(db, PENDING_TURNS).await?,
        Some(id) => {
            let tx = transaction(db, &[PENDING_TURNS], TransactionMode::ReadOnly)?;
            let values = tx
                .object_store(PENDING_TURNS)
                .map_err(idb_error)?
                .index(BY_CONVERSATION)
                .map_err(idb_error)?
                .get_all(Some(Query::Key(JsValue::from_str(id))), None)
                .map_err(idb_error)?
                .await
                .map_err(idb_error)?;
            values.into_iter().map(from_record).collect::<Result<_>>()?
        }
    };
    Ok(turns)
}

/// `Store::tool_calls`.
pub(super) async fn tool_calls(db: &Database, conversation_id: &str) -> Result<Vec<ToolCallRecord>> {
    let tx = transaction(db, &[CONVERSATIONS, TOOL_CALLS], TransactionMode::ReadOnly)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let values = owned_records(&tx, TOOL_CALLS, conversation_id).await?;
    values.into_iter().map(from_record).collect()
}

/// Deletes a conversation's tool-call records and paused turns, inside `delete_conversation`'s transaction.
pub(super) async fn delete_turn_records(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(TOOL_CALLS)
        .map_err(idb_error)?
        .delete(owner_range(conversation_id)?)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let pending = tx.object_store(PENDING_TURNS).map_err(idb_error)?;
    let keys = pending
        .index(BY_CONVERSATION)
        .map_err(idb_error)?
        .get_all_keys(Some(Query::Key(JsValue::from_str(conversation_id))), None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    for key in keys {
        pending.delete(key).map_err(idb_error)?.await.map_err(idb_error)?;
    }
    Ok(())
}

/// `StoreArchive::put_run`.
pub(super) async fn put_run(db: &Database, run: &RunRecord) -> Result<()> {
    let tx = transaction(db, &[RUNS], TransactionMode::ReadWrite)?;
    put_record(&tx.object_store(RUNS).map_err(idb_error)?, run).await?;
    commit_tx(tx).await?;
    Ok(())
}

/// `StoreArchive::run`.
pub(super) async fn run(db: &Database, run_id: &str) -> Result<Option<RunRecord>> {
    get_record(db, RUNS, run_id).await
}

/// `Store::has_runs`: a count of the store.
pub(super) async fn has_runs(db: &Database) -> Result<bool> {
    any_record(db, RUNS, None, None).await
}

/// `StoreArchive::runs`.
pub(super) async fn runs(db: &Database) -> Result<Vec<RunRecord>> {
    all_records(db, RUNS).await
}
