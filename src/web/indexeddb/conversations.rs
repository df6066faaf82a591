//! Conversation records (`conversations`, keyed by `id`): created, read,
//! updated, and deleted with every record of theirs in the other stores.

use idb::{Database, Query, TransactionMode};
use wasm_bindgen::JsValue;

use super::errors::{idb_error, idb_error_while};
use super::record::to_record;
use super::schema::{stores_of, Owner, CONVERSATIONS};
use super::tx::{all_records, commit, exists, get_record, transaction};
use super::{events, grants, messages, open_turns, summaries, turns, usage};
use crate::domain::Conversation;
use crate::error::{Error, Result};

/// `Store::create_conversation`: an `add`, so a taken id fails (reason `constraint`).
pub(super) async fn create(db: &Database, conversation: &Conversation) -> Result<()> {
    let value = to_record(conversation)?;
    let tx = transaction(db, &[CONVERSATIONS], TransactionMode::ReadWrite)?;
    let store = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    let added = match store.add(&value, None) {
        Ok(request) => request.await.map(|_| ()),
        Err(e) => Err(e),
    };
    if let Err(e) = added {
        let _ = tx.abort();
        let doing = format!("cannot create conversation {}", conversation.id);
        return Err(idb_error_while(&doing, e));
    }
    commit(tx).await?;
    Ok(())
}

/// `Store::update_conversation`: replaces the record if it exists.
pub(super) async fn update(db: &Database, conversation: &Conversation) -> Result<()> {
    let value = to_record(conversation)?;
    let tx = transaction(db, &[CONVERSATIONS], TransactionMode::ReadWrite)?;
    let store = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    let key = JsValue::from_str(&conversation.id);
    let exists = store
        .count(Some(Query::Key(key)))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    if exists == 0 {
        let _ = tx.abort();
        return Err(Error::not_found("conversation", &conversation.id));
    }
    store
        .put(&value, None)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    commit(tx).await?;
    Ok(())
}

/// `Store::conversation`.
pub(super) async fn conversation(db: &Database, id: &str) -> Result<Option<Conversation>> {
    get_record(db, CONVERSATIONS, id).await
}

/// `Store::conversations`: oldest first (ties by id).
pub(super) async fn conversations(db: &Database) -> Result<Vec<Conversation>> {
    let mut all: Vec<Conversation> = all_records(db, CONVERSATIONS).await?;
    crate::domain::sort_by(&mut all, |a, b| {
        a.created_at
            .total_cmp(&b.created_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    Ok(all)
}

/// `Store::delete_conversation`: the conversation and its records in every
/// conversation store, in one transaction.
pub(super) async fn delete(db: &Database, id: &str) -> Result<()> {
    let tx = transaction(db, &stores_of(&[Owner::Conversation]), TransactionMode::ReadWrite)?;
    if !exists(&tx, CONVERSATIONS, id).await? {
        let _ = tx.abort();
        return Err(Error::not_found("conversation", id));
    }
    turns::delete_turn_records(&tx, id).await?;
    usage::delete_usage(&tx, id).await?;
    grants::delete_grants_in(&tx, id).await?;
    summaries::delete_summary(&tx, id).await?;
    events::delete_events_in(&tx, id).await?;
    open_turns::delete_open_turns_in(&tx, id).await?;
    tx.object_store(CONVERSATIONS)
        .map_err(idb_error)?
        .delete(JsValue::from_str(id))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    messages::delete_messages_in(&tx, id).await?;
    commit(tx).await?;
    Ok(())
}

/// `Store::delete_all_conversations`: clears every conversation store and
/// the runs in one transaction (books stay).
pub(super) async fn delete_all(db: &Database) -> Result<()> {
    let stores = stores_of(&[Owner::Conversation, Owner::Run]);
    let tx = transaction(db, &stores, TransactionMode::ReadWrite)?;
    for name in stores {
        tx.object_store(name)
            .map_err(idb_error)?
            .clear()
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
    }
    commit(tx).await
}
