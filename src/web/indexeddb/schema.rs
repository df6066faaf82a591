//! The IndexedDB schema, in one list: every object store's name, key path
//! and index, the schema version that added it and what its records belong
//! to ([`STORES`]). The upgrade creates, version by version from the stored
//! one, the stores each version added, inside the one version-change
//! transaction.

use idb::{Database, IndexParams, KeyPath, ObjectStoreParams};

use super::errors::idb_error;
use crate::error::{Error, Result};

/// The schema version this code writes; the upgrade brings older databases to it.
pub const SCHEMA_VERSION: u32 = 8;

/// Conversations, keyed by `id`.
pub(super) const CONVERSATIONS: &str = "conversations";
/// Messages, keyed by `[conversationId, seq]`.
pub(super) const MESSAGES: &str = "messages";
/// Books, keyed by `id`.
pub(super) const BOOKS: &str = "books";
/// Chunk batches, keyed by `[bookId, batch]`.
pub(super) const CHUNKS: &str = "chunks";
/// Vector batches (`Float32Array`s), keyed by `[bookId, batch]`.
pub(super) const VECTORS: &str = "vectors";
/// Index snapshots (`Uint8Array`s), keyed by `bookId`.
pub(super) const INDEX_SNAPSHOTS: &str = "indexSnapshots";
/// Paused turns, keyed by `turnId`.
pub(super) const PENDING_TURNS: &str = "pendingTurns";
/// Tool-call records, keyed by `[conversationId, turnId, position]`.
pub(super) const TOOL_CALLS: &str = "toolCalls";
/// Headless runs, keyed by `runId`.
pub(super) const RUNS: &str = "runs";
/// Lexical indexes (`Uint8Array`s), keyed by `bookId`.
pub(super) const LEXICAL_INDEXES: &str = "lexicalIndexes";
/// Pages `{ bookId, number, text, chapter? }`, keyed by `[bookId, number]`.
pub(super) const PAGES: &str = "pages";
/// Usage totals, keyed by `conversationId`.
pub(super) const USAGE_TOTALS: &str = "usageTotals";
/// "Always allow" grants, keyed by `[conversationId, toolName]`.
pub(super) const APPROVAL_GRANTS: &str = "approvalGrants";
/// Context summaries, keyed by `conversationId`.
pub(super) const CONTEXT_SUMMARIES: &str = "contextSummaries";
/// Recorded turn events, keyed by `[conversationId, turnId, seq]`.
pub(super) const TURN_EVENTS: &str = "turnEvents";
/// Open-turn records, keyed by `[conversationId, turnId]`.
pub(super) const OPEN_TURNS: &str = "openTurns";

/// The unique index of `messages` by message `id`.
const BY_ID: &str = "byId";
/// The index of `pendingTurns` by conversation.
pub(super) const BY_CONVERSATION: &str = "byConversation";
/// The index of `turnEvents` by `turnId`.
pub(super) const BY_TURN: &str = "byTurn";

/// What a store's records belong to, which says what deletes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner {
    /// A conversation: deleted with it, cleared with every conversation.
    Conversation,
    /// A headless run: cleared with every conversation.
    Run,
    /// A book: deleted with it.
    Book,
}

/// An index of a store: its name, the record field it reads, whether it is unique.
struct Index {
    name: &'static str,
    key_path: &'static str,
    unique: bool,
}

/// One object store as the schema declares it.
struct StoreSchema {
    name: &'static str,
    /// The record fields of its key: one is a plain key, more an array key.
    key_path: &'static [&'static str],
    index: Option<Index>,
    /// The schema version that added it.
    since: u32,
    owner: Owner,
}

/// A store without an index.
const fn store(
    name: &'static str,
    key_path: &'static [&'static str],
    since: u32,
    owner: Owner,
) -> StoreSchema {
    StoreSchema {
        name,
        key_path,
        index: None,
        since,
        owner,
    }
}

/// A store with one index.
const fn indexed(
    name: &'static str,
    key_path: &'static [&'static str],
    index: Index,
    since: u32,
    owner: Owner,
) -> StoreSchema {
    StoreSchema {
        index: Some(index),
        ..store(name, key_path, since, owner)
    }
}

/// Every object store, in the order the upgrade creates them.
const STORES: [StoreSchema; 16] = [
    store(CONVERSATIONS, &["id"], 1, Owner::Conversation),
    // One key range reads a conversation in order, its newest messages, or deletes it.
    indexed(
        MESSAGES,
        &["conversationId", "seq"],
        Index {
            name: BY_ID,
            key_path: "id",
            unique: true,
        },
        1,
        Owner::Conversation,
    ),
    store(BOOKS, &["id"], 2, Owner::Book),
    store(CHUNKS, &["bookId", "batch"], 2, Owner::Book),
    store(VECTORS, &["bookId", "batch"], 2, Owner::Book),
    store(INDEX_SNAPSHOTS, &["bookId"], 2, Owner::Book),
    indexed(
        PENDING_TURNS,
        &["turnId"],
        Index {
            name: BY_CONVERSATION,
            key_path: "conversationId",
            unique: false,
        },
        3,
        Owner::Conversation,
    ),
    store(
        TOOL_CALLS,
        &["conversationId", "turnId", "position"],
        3,
        Owner::Conversation,
    ),
    store(RUNS, &["runId"], 3, Owner::Run),
    // Books stored before it have no lexical index: one is built when they load.
    store(LEXICAL_INDEXES, &["bookId"], 4, Owner::Book),
    // Books stored before it have no pages: `Library::page` asks to add them again.
    store(PAGES, &["bookId", "number"], 5, Owner::Book),
    store(USAGE_TOTALS, &["conversationId"], 6, Owner::Conversation),
    // Older databases simply have no grants.
    store(
        APPROVAL_GRANTS,
        &["conversationId", "toolName"],
        6,
        Owner::Conversation,
    ),
    store(CONTEXT_SUMMARIES, &["conversationId"], 7, Owner::Conversation),
    indexed(
        TURN_EVENTS,
        &["conversationId", "turnId", "seq"],
        Index {
            name: BY_TURN,
            key_path: "turnId",
            unique: false,
        },
        7,
        Owner::Conversation,
    ),
    // Older databases simply have no open turns.
    store(OPEN_TURNS, &["conversationId", "turnId"], 8, Owner::Conversation),
];

/// Every version up to [`SCHEMA_VERSION`] adds a store, and none comes later.
const _: () = {
    let mut version = 1;
    while version <= SCHEMA_VERSION {
        let mut added = false;
        let mut i = 0;
        while i < STORES.len() {
            assert!(
                STORES[i].since <= SCHEMA_VERSION,
                "a store of a version after SCHEMA_VERSION"
            );
            added |= STORES[i].since == version;
            i += 1;
        }
        assert!(added, "a schema version that adds no store");
        version += 1;
    }
};

/// The names of the stores whose records belong to one of `owners`.
pub(super) fn stores_of(owners: &[Owner]) -> Vec<&'static str> {
    STORES
        .iter()
        .filter(|store| owners.contains(&store.owner))
        .map(|store| store.name)
        .collect()
}

/// Creates, for every version after `old_version` in order, the stores it
/// added, inside the version-change transaction: an error aborts it and with
/// it every version's work. `fail_at` (a test hook) fails the upgrade on
/// purpose once that version's stores exist.
pub(super) fn upgrade(db: &Database, old_version: u32, fail_at: Option<u32>) -> Result<()> {
    for version in (1..=SCHEMA_VERSION).filter(|v| *v > old_version) {
        for schema in STORES.iter().filter(|s| s.since == version) {
            create(db, schema).map_err(idb_error)?;
        }
        if fail_at == Some(version) {
            return Err(Error::storage(format!(
                "the upgrade step to version {version} was made to fail (test hook)"
            )));
        }
    }
    Ok(())
}

/// Creates one store and its index.
fn create(db: &Database, schema: &StoreSchema) -> std::result::Result<(), idb::Error> {
    let key_path = match schema.key_path {
        [single] => KeyPath::new_single(single),
        fields => KeyPath::new_array(fields.iter().copied()),
    };
    let mut params = ObjectStoreParams::new();
    params.key_path(Some(key_path));
    let store = db.create_object_store(schema.name, params)?;
    if let Some(index) = &schema.index {
        let mut params = IndexParams::new();
        params.unique(index.unique);
        store.create_index(index.name, KeyPath::new_single(index.key_path), Some(params))?;
    }
    Ok(())
}
