//! The IndexedDB schema: one step a version, applied in order from the
//! stored version inside the one version-change transaction.

use idb::{Database, IndexParams, KeyPath, ObjectStoreParams};

use super::indexeddb::{
    idb_error, BOOKS, CHUNKS, CONVERSATIONS, INDEX_SNAPSHOTS, LEXICAL_INDEXES, MESSAGES, PAGES,
    PENDING_TURNS, RUNS, SCHEMA_VERSION, TOOL_CALLS, VECTORS,
};
use super::indexeddb_events as recorded;
use super::indexeddb_grants as grants;
use super::indexeddb_open_turns::open_turns_v8;
use super::indexeddb_summaries as summaries;
use super::indexeddb_turns::BY_CONVERSATION;
use super::indexeddb_usage as usage;
use crate::error::{Error, Result};

/// One schema step: creates what its version adds.
type Step = fn(&Database) -> std::result::Result<(), idb::Error>;

/// The schema steps: the step at index `i` brings a database to version `i + 1`.
const STEPS: [Step; SCHEMA_VERSION as usize] = [
    conversations_v1,
    books_v2,
    turns_v3,
    lexical_v4,
    pages_v5,
    ledger_v6,
    ledger_v7,
    open_turns_v8,
];

/// Applies every schema step after `old_version`, in order, inside the
/// version-change transaction: an error aborts it and with it every step.
pub(super) fn upgrade(db: &Database, old_version: u32, fail_at: Option<u32>) -> Result<()> {
    for (version, step) in (1..).zip(STEPS) {
        if old_version < version {
            step(db).map_err(idb_error)?;
            if fail_at == Some(version) {
                return Err(Error::storage(format!(
                    "the upgrade step to version {version} was made to fail (test hook)"
                )));
            }
        }
    }
    Ok(())
}

fn conversations_v1(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("id")));
    db.create_object_store(CONVERSATIONS, params)?;

    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_array(["conversationId", "seq"])));
    let messages = db.create_object_store(MESSAGES, params)?;
    let mut unique = IndexParams::new();
    unique.unique(true);
    messages.create_index("byId", KeyPath::new_single("id"), Some(unique))?;
    Ok(())
}

fn books_v2(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("id")));
    db.create_object_store(BOOKS, params)?;
    for (name, key) in [(CHUNKS, "batch"), (VECTORS, "batch")] {
        let mut params = ObjectStoreParams::new();
        params.key_path(Some(KeyPath::new_array(["bookId", key])));
        db.create_object_store(name, params)?;
    }
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("bookId")));
    db.create_object_store(INDEX_SNAPSHOTS, params)?;
    Ok(())
}

fn turns_v3(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("turnId")));
    let pending = db.create_object_store(PENDING_TURNS, params)?;
    pending.create_index(BY_CONVERSATION, KeyPath::new_single("conversationId"), None)?;
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_array(["conversationId", "turnId", "position"])));
    db.create_object_store(TOOL_CALLS, params)?;
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("runId")));
    db.create_object_store(RUNS, params)?;
    Ok(())
}

/// Books stored before it have no lexical index: one is built when they load.
fn lexical_v4(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_single("bookId")));
    db.create_object_store(LEXICAL_INDEXES, params)?;
    Ok(())
}

/// Books stored before it have no pages: `Library::page` asks to add them again.
fn pages_v5(db: &Database) -> std::result::Result<(), idb::Error> {
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(KeyPath::new_array(["bookId", "number"])));
    db.create_object_store(PAGES, params)?;
    Ok(())
}

/// Usage totals and "always allow" grants, both new in version 6.
fn ledger_v6(db: &Database) -> std::result::Result<(), idb::Error> {
    usage::usage_v6(db)?;
    grants::grants_v6(db)
}

/// Context summaries and recorded turn events, both new in version 7.
fn ledger_v7(db: &Database) -> std::result::Result<(), idb::Error> {
    summaries::summaries_v7(db)?;
    recorded::events_v7(db)
}
