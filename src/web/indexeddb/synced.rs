//! `StoreArchive::put_synced_messages` in IndexedDB: a conversation's record
//! put and its messages replaced by the synced document's order, in one
//! read-write transaction over conversations and messages. Messages are
//! `add`ed, so an id another conversation's message holds (the unique `byId`
//! index) aborts it all.

use idb::{Database, Transaction};

use super::errors::{idb_error, idb_error_while};
use super::messages::delete_messages_in;
use super::record::{put_record, to_record};
use super::schema::{CONVERSATIONS, MESSAGES};
use super::tx::{finish, write_transaction};
use crate::error::Result;
use crate::storage::SyncedMessages;

/// `StoreArchive::put_synced_messages`.
pub(super) async fn put_synced_messages(db: &Database, mut synced: SyncedMessages) -> Result<()> {
    synced.check()?;
    synced.number_messages();
    let (tx, guard) = write_transaction(db, &[CONVERSATIONS, MESSAGES])?;
    let outcome = put_in(&tx, synced).await;
    finish(tx, guard, outcome).await
}

/// The body of `put_synced_messages`, inside its read-write transaction.
async fn put_in(tx: &Transaction, synced: SyncedMessages) -> Result<()> {
    put_record(
        &tx.object_store(CONVERSATIONS).map_err(idb_error)?,
        &synced.conversation,
    )
    .await?;
    delete_messages_in(tx, &synced.conversation.id).await?;
    let messages = tx.object_store(MESSAGES).map_err(idb_error)?;
    for message in &synced.messages {
        let failed = |e| idb_error_while(&format!("cannot store synced message {}", message.id), e);
        messages
            .add(&to_record(message)?, None)
            .map_err(failed)?
            .await
            .map_err(failed)?;
    }
    Ok(())
}
