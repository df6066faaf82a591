//! `Store::import_conversation` in IndexedDB: a whole conversation written
//! in one read-write transaction over the conversation stores. Every record
//! is `add`ed, so a taken key (conversation or turn id) aborts it all.

use idb::{Database, Transaction};

use super::errors::{idb_error, idb_error_while};
use super::record::to_record;
use super::schema::{APPROVAL_GRANTS, CONVERSATIONS, MESSAGES, PENDING_TURNS, TOOL_CALLS, USAGE_TOTALS};
use super::tx::{finish, write_transaction};
use crate::error::Result;
use crate::storage::ConversationImport;

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

/// The body of `import_conversation`, inside its read-write transaction.
async fn import_in(tx: &Transaction, import: ConversationImport) -> Result<()> {
    // Every record encoded first, then added in one loop: one small future
    // rather than one per record type (the wasm stays smaller).
    let id = &import.conversation.id;
    let mut records = vec![(
        CONVERSATIONS,
        to_record(&import.conversation)?,
        format!("conversation {id}"),
    )];
    for message in &import.messages {
        records.push((MESSAGES, to_record(message)?, format!("message {}", message.id)));
    }
    for record in &import.tool_calls {
        records.push((
            TOOL_CALLS,
            to_record(record)?,
            format!("tool-call record {}", record.id),
        ));
    }
    for turn in import.pending_turns {
        let what = format!("paused turn {}", turn.turn_id);
        records.push((PENDING_TURNS, to_record(&turn.pruned())?, what));
    }
    records.push((USAGE_TOTALS, to_record(&import.usage)?, "usage totals".to_owned()));
    for grant in &import.grants {
        records.push((
            APPROVAL_GRANTS,
            to_record(grant)?,
            format!("grant of {}", grant.tool_name),
        ));
    }
    for (store, value, what) in records {
        let failed = |e| idb_error_while(&format!("cannot import {what}"), e);
        tx.object_store(store)
            .map_err(idb_error)?
            .add(&value, None)
            .map_err(failed)?
            .await
            .map_err(failed)?;
    }
    Ok(())
}
