//! The "always allow" grants of the IndexedDB store (`approvalGrants`, keyed
//! `[conversationId, toolName]`, schema version 6): written inside a turn's
//! step commit, read at turn start, cleared by `resetApprovals` and with
//! their conversation.

use idb::{Database, KeyPath, ObjectStoreParams, Transaction, TransactionMode};

use super::indexeddb::{
    commit, conversation_exists, from_js, idb_error, owned_records, owner_range, to_js, transaction,
    CONVERSATIONS,
};
use crate::domain::Grant;
use crate::error::{Error, Result};

/// Grants, keyed by `[conversationId, toolName]` (schema version 6).
pub(super) const APPROVAL_GRANTS: &str = "approvalGrants";

/// The grants store (part of schema step 6). Older databases simply have no grants.
pub(super) fn grants_v6(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_array(["conversationId", "toolName"])));
    db.create_object_store(APPROVAL_GRANTS, params)?;
    Ok(())
}

/// Saves `grants` within `tx` (a step commit), replacing any for the same conversation and tool.
pub(super) async fn put_grants_in(tx: &Transaction, grants: &[Grant]) -> Result<()> {
    if grants.is_empty() {
        return Ok(());
    }
    let store = tx.object_store(APPROVAL_GRANTS).map_err(idb_error)?;
    for grant in grants {
        store
            .put(&to_js(grant)?, None)
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
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
    let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    if !conversation_exists(&conversations, conversation_id).await? {
        return Err(Error::not_found("conversation", conversation_id));
    }
    let values = owned_records(&tx, APPROVAL_GRANTS, conversation_id).await?;
    values.into_iter().map(from_js).collect()
}

/// `Store::clear_grants`.
pub(super) async fn clear_grants(db: &Database, conversation_id: &str) -> Result<()> {
    let tx = transaction(db, &[CONVERSATIONS, APPROVAL_GRANTS], TransactionMode::ReadWrite)?;
    let conversations = tx.object_store(CONVERSATIONS).map_err(idb_error)?;
    if !conversation_exists(&conversations, conversation_id).await? {
        let _ = tx.abort();
        return Err(Error::not_found("conversation", conversation_id));
    }
    delete_grants_in(&tx, conversation_id).await?;
    commit(tx).await
}
