//! Messages (`messages`, keyed by `[conversationId, seq]`, with a unique
//! `byId` index): appended with the next `seq` of their conversation, read
//! in order by one key range, the newest ones by bounded key ranges.

use std::collections::HashMap;

use idb::{CursorDirection, Database, ObjectStore, Transaction, TransactionMode};
use js_sys::Array;

use super::errors::idb_error;
use super::keys::{owner_range, seq_range};
use super::record::{from_record, to_record};
use super::schema::{CONVERSATIONS, MESSAGES};
use super::tx::{exists, finish, owned_records, transaction, write_transaction};
use crate::domain::Message;
use crate::error::{Error, Result};

/// `Store::append_messages`: one read-write transaction over conversations and messages.
pub(super) async fn append_messages(db: &Database, messages: Vec<Message>) -> Result<Vec<Message>> {
    let (tx, guard) = write_transaction(db, &[CONVERSATIONS, MESSAGES])?;
    let outcome = append_in(&tx, messages).await;
    finish(tx, guard, outcome).await
}

/// The body of `append_messages`, inside a read-write transaction over conversations and messages.
pub(super) async fn append_in(tx: &Transaction, messages: Vec<Message>) -> Result<Vec<Message>> {
    let store = tx.object_store(MESSAGES).map_err(idb_error)?;
    let mut next_seq: HashMap<String, u32> = Default::default();
    let mut stored = Vec::with_capacity(messages.len());
    for mut message in messages {
        let cid = message.conversation_id.clone();
        let seq = match next_seq.get(&cid) {
            Some(seq) => *seq,
            None => {
                if !exists(tx, CONVERSATIONS, &cid).await? {
                    return Err(Error::not_found("conversation", &cid));
                }
                last_seq(&store, &cid).await?.map_or(0, |s| s + 1)
            }
        };
        message.seq = seq;
        next_seq.insert(cid, seq + 1);
        store
            .add(&to_record(&message)?, None)
            .map_err(idb_error)?
            .await
            .map_err(|e| Error::storage(format!("cannot append message {}: {e}", message.id)))?;
        stored.push(message);
    }
    Ok(stored)
}

/// `Store::messages`: the conversation's key range, in `seq` order.
pub(super) async fn messages(db: &Database, conversation_id: &str) -> Result<Vec<Message>> {
    let tx = transaction(db, &[CONVERSATIONS, MESSAGES], TransactionMode::ReadOnly)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let values = owned_records(&tx, MESSAGES, conversation_id).await?;
    values.into_iter().map(from_record).collect()
}

/// `Store::recent_messages`: key ranges of `seq`s read downwards from
/// `before_seq` (or the end) until `limit` messages are found.
pub(super) async fn recent_messages(
    db: &Database,
    conversation_id: &str,
    before_seq: Option<u32>,
    limit: usize,
) -> Result<Vec<Message>> {
    let tx = transaction(db, &[CONVERSATIONS, MESSAGES], TransactionMode::ReadOnly)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let store = tx.object_store(MESSAGES).map_err(idb_error)?;
    let mut end = match before_seq {
        Some(seq) => seq,
        None => last_seq(&store, conversation_id).await?.map_or(0, |s| s + 1),
    };
    // Seqs are dense, so one key range of `limit` seqs is the answer;
    // a gap would only make it short, and the loop reads on below it.
    let mut pages: Vec<Vec<Message>> = Vec::new();
    let mut found = 0;
    while found < limit && end > 0 {
        let start = end.saturating_sub(u32::try_from(limit - found).unwrap_or(u32::MAX));
        let values = store
            .get_all(Some(seq_range(conversation_id, start, end)?), None)
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
        let page: Vec<Message> = values.into_iter().map(from_record).collect::<Result<_>>()?;
        found += page.len();
        pages.push(page);
        end = start;
    }
    Ok(pages.into_iter().rev().flatten().collect())
}

/// Deletes a conversation's messages within `tx` (its deletion's transaction).
pub(super) async fn delete_messages_in(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(MESSAGES)
        .map_err(idb_error)?
        .delete(owner_range(conversation_id)?)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}

/// The highest `seq` stored for a conversation, read with one reverse cursor step.
async fn last_seq(store: &ObjectStore, conversation_id: &str) -> Result<Option<u32>> {
    let cursor = store
        .open_cursor(Some(owner_range(conversation_id)?), Some(CursorDirection::Prev))
        .map_err(idb_error)?
        .await
        .map_err(idb_error)?;
    let Some(cursor) = cursor else { return Ok(None) };
    let key = cursor.key().map_err(idb_error)?;
    let seq = Array::from(&key)
        .get(1)
        .as_f64()
        .ok_or_else(|| Error::storage("message key without seq"))?;
    Ok(Some(seq as u32))
}
