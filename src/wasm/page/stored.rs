//! The store a `Lectern` instance keeps its conversations in: IndexedDB
//! (`dbName`) or memory, held by the agent as a `dyn Store` and here by kind.

use std::rc::Rc;

use super::split_off::split_off;
use crate::agent::ArchiveLoader;
use crate::error::Result;
use crate::storage::{MemoryStore, Store, StoreArchive};
use crate::wasm::js::to_js;
use crate::wasm::page::host::listeners::Listeners;
use crate::web::{IndexedDbOptions, IndexedDbStore};

/// Where an instance's conversations live, by kind (the agent has it as a `dyn Store`).
#[derive(Clone)]
pub(super) enum Stored {
    /// IndexedDB (`dbName`).
    Database(Rc<IndexedDbStore>),
    /// Memory (no `dbName`).
    Memory(Rc<MemoryStore>),
}

impl Stored {
    /// The IndexedDB store, when there is one.
    pub(super) fn database(&self) -> Option<&Rc<IndexedDbStore>> {
        match self {
            Stored::Database(db) => Some(db),
            Stored::Memory(_) => None,
        }
    }

    /// The store's archive operations as a trait object. Only split-off work
    /// calls this, so their code (and the vtable that reaches it) is in the
    /// chunks, not in the page's module.
    pub(super) fn archive(&self) -> Rc<dyn StoreArchive> {
        match self {
            Stored::Database(db) => db.clone(),
            Stored::Memory(memory) => memory.clone(),
        }
    }

    /// What fetches the archive operations the first time the agent needs
    /// them outside the split-off methods (a turn on a conversation with
    /// paused turns, `toolCalls`): the chunk that makes the trait object.
    pub(super) fn archive_loader(&self) -> ArchiveLoader {
        let stored = self.clone();
        Rc::new(move || {
            let stored = stored.clone();
            Box::pin(async move { load_archive(stored).await })
        })
    }
}

split_off!(
    approvals,
    /// The store's archive operations, made in a chunk (see [`Stored::archive`]).
    fn load_archive(stored: Stored) -> Result<Rc<dyn StoreArchive>> {
        Ok(stored.archive())
    }
);

/// Opens the IndexedDB database `name` (`blocked_timeout_ms`: how long an
/// upgrade waits for older connections), whose closing by another tab is
/// told to `listeners` as a `storageClosed` event.
async fn open_indexed_db(
    name: &str,
    blocked_timeout_ms: u64,
    listeners: Rc<Listeners>,
) -> Result<(Rc<dyn Store>, Stored)> {
    let settings = IndexedDbOptions {
        blocked_timeout_ms,
        ..IndexedDbOptions::default()
    };
    let store = IndexedDbStore::open_with(name, &settings).await?;
    let name = name.to_owned();
    store.set_close_listener(Box::new(move |new_version| {
        let event = serde_json::json!({
            "type": "storageClosed",
            "dbName": name,
            "reason": "versionChange",
            "newVersion": new_version,
        });
        if let Ok(value) = to_js(&event) {
            listeners.emit(&value);
        }
    }));
    let db = Rc::new(store);
    let store: Rc<dyn Store> = db.clone();
    Ok((store, Stored::Database(db)))
}

/// A new, empty store in memory (an instance without `dbName`).
fn open_memory() -> (Rc<dyn Store>, Stored) {
    let memory = Rc::new(MemoryStore::new());
    let store: Rc<dyn Store> = memory.clone();
    (store, Stored::Memory(memory))
}

/// Opens the store of an instance: IndexedDB when it has a `dbName`, else memory.
pub(super) async fn open_stored(
    db_name: Option<&str>,
    blocked_timeout_ms: u64,
    listeners: Rc<Listeners>,
) -> Result<(Rc<dyn Store>, Stored)> {
    match db_name {
        Some(name) => open_indexed_db(name, blocked_timeout_ms, listeners).await,
        None => Ok(open_memory()),
    }
}
