//! The state every `LecternBooks` method shares: the library, the
//! ingestion that feeds it, the database and the page's event listener.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::JsValue;

use crate::error::{Error, Result, StorageReason};
use crate::retrieval::library::Library;
use crate::wasm::books::worker::ingest_worker::Ingestion;
use crate::web::IndexedDbStore;

/// A JS function that gets the page's book events (`ingestProgress`, `ingestFailed`).
pub type Emit = Rc<dyn Fn(&JsValue)>;

/// The state every `LecternBooks` method shares.
pub(super) struct BooksInner {
    /// The books, their search and what ingestion stores.
    pub(super) library: Rc<Library>,
    /// Where `addBook` runs: Lectern's worker, or here.
    pub(super) ingestion: Rc<Ingestion>,
    /// The database the books live in (`None`: in memory).
    pub(super) database: Option<Rc<IndexedDbStore>>,
    /// The page's listener of book events.
    pub(super) emit: Emit,
    /// Set by `close()`.
    pub(super) closed: Cell<bool>,
}

impl BooksInner {
    /// `Closed` once `close()` ran or the database was closed under it.
    pub(super) fn ensure_open(&self) -> Result<()> {
        let closed = self.closed.get() || self.database.as_ref().is_some_and(|db| db.is_closed());
        if closed {
            return Err(Error::storage_because(
                StorageReason::Closed,
                "this Lectern instance's books were closed; open a new instance",
            ));
        }
        Ok(())
    }
}
