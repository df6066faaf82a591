//! `Store::import_conversation` in IndexedDB: a whole conversation written
//! in one read-write transaction over the conversation stores. Every record
//! is `add`ed, so a taken key (conversation or turn id) aborts it all.

use idb::{Database, Transaction};
use serde::Serialize;

use super::indexeddb::{
    finish, idb_error, idb_error_while, to_js, write_transaction, CONVERSATIONS, MESSAGES, PENDING_TURNS,
    TOOL_CALLS,
};
use super::indexeddb_grants::APPROVAL_GRANTS;
use super::indexeddb_usage::USAGE_TOTALS;
use super::ConversationImport;
use crate::error::Result;

/// `Store::import_conversation`.
pub(super) async fn import_conversation(db: &Database, mut import: ConversationImport) -> Result<()> {
    import.check_owner()?;
    import.number_messages();
    let stores = [
        CONVERSATIONS,
        MESSAGES,
        TOOL_CALLS,
        PENDING_TURNS,
        USAGE_TOTALS,
        APPROVAL_GRANTS,
    ];
    let (tx, guard) = write_transaction(db, &stores)?;
    let outcome = import_in(&tx, import).await;
    finish(tx, guard, outcome).await
}

async fn import_in(tx: &Transaction, import: ConversationImport) -> Result<()> {
    let id = &import.conversation.id;
    add(
        tx,
        CONVERSATIONS,
        &import.conversation,
        &format!("conversation {id}"),
    )
    .await?;
    for message in &import.messages {
        add(tx, MESSAGES, message, &format!("message {}", message.id)).await?;
    }
    for record in &import.tool_calls {
        add(tx, TOOL_CALLS, record, &format!("tool-call record {}", record.id)).await?;
    }
    for turn in import.pending_turns {
        let doing = format!("paused turn {}", turn.turn_id);
        add(tx, PENDING_TURNS, &turn.pruned(), &doing).await?;
    }
    add(tx, USAGE_TOTALS, &import.usage, "usage totals").await?;
    for grant in &import.grants {
        add(
            tx,
            APPROVAL_GRANTS,
            grant,
            &format!("grant of {}", grant.tool_name),
        )
        .await?;
    }
    Ok(())
}

/// Adds one record to `store` within `tx`; a taken key is a `constraint` error naming `what`.
async fn add<T: Serialize>(tx: &Transaction, store: &str, record: &T, what: &str) -> Result<()> {
    let value = to_js(record)?;
    tx.object_store(store)
        .map_err(idb_error)?
        .add(&value, None)
        .map_err(|e| idb_error_while(&format!("cannot import {what}"), e))?
        .await
        .map_err(|e| idb_error_while(&format!("cannot import {what}"), e))?;
    Ok(())
}
