//! The "always allow" grants of the IndexedDB store (`approvalGrants`, keyed
//! `[conversationId, toolName]`, schema version 6): written inside a turn's
//! step commit, read at turn start, cleared by `resetApprovals` and with
//! their conversation.

use idb::{Database, Transaction, TransactionMode};

use super::errors::idb_error;
use super::keys::owner_range;
use super::record::{from_record, put_record};
use super::schema::{APPROVAL_GRANTS, CONVERSATIONS};
use super::tx::{commit, exists, owned_records, transaction};
use crate::domain::Grant;
use crate::error::{Error, Result};

/// Saves `grants` within `tx` (a step commit), replacing any for the same conversation and tool.
pub(super) async fn put_grants_in(tx: &Transaction, grants: &[Grant]) -> Result<()> {
    if grants.is_empty() {
        return Ok(());
    }
    let store = tx.object_store(APPROVAL_GRANTS).map_err(idb_error)?;
    for grant in grants {
        put_record(&store, grant).await?;
    }
    Ok(())
}

/// Deletes a conversation's grants within `tx`.
pub(super) async fn delete_grants_in(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.object_store(APPROVAL_GRANTS)
        .map_err(idb_error)?
        .delete(owner_range(conversation_id)?)
        .map_err(idb_error)?
        .await
        .map_err(idb_error)
}

/// `Store::grants`: one read of the conversation's key range (string keys sort inside it).
pub(super) async fn grants(db: &Database, conversation_id: &str) -> Result<Vec<Grant>> {
    let tx = transaction(db, &[CONVERSATIONS, APPROVAL_GRANTS], TransactionMode::ReadOnly)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let values = owned_records(&tx, APPROVAL_GRANTS, conversation_id).await?;
    values.into_iter().map(from_record).collect()
}

/// `Store::clear_grants`.
pub(super) async fn clear_grants(db: &Database, conversation_id: &str) -> Result<()> {
    let tx = transaction(db, &[CONVERSATIONS, APPROVAL_GRANTS], TransactionMode::ReadWrite)?;
    if !exists(&tx, CONVERSATIONS, conversation_id).await? {
        let _ = tx.abort();
        return Err(Error::not_found("conversation", conversation_id));
    }
    delete_grants_in(&tx, conversation_id).await?;
    commit(tx).await
}
