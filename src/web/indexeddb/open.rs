//! Opening the IndexedDB database, with the two ways an open can go wrong
//! between tabs handled:
//!
//! - a schema upgrade runs in the one version-change transaction; a step that
//!   fails aborts it, so the database stays at its old version, intact, and
//!   the open rejects with reason `upgrade`;
//! - an upgrade that other connections block (a tab that does not close on
//!   `versionchange`) waits at most [`IndexedDbOptions::blocked_timeout_ms`],
//!   then rejects with reason `blocked`; if the blockers close later, the
//!   abandoned open aborts its upgrade and closes, so it changes nothing.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::channel::oneshot;
use futures::future::{select, Either};
use idb::Database;
use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DomException, Event, IdbDatabase, IdbFactory, IdbOpenDbRequest, IdbVersionChangeEvent};

use crate::error::{Error, Result, StorageReason};
use crate::runtime::time::Clock;
use crate::web::clock::BrowserClock;

/// How long an upgrade blocked by other connections waits, by default (ms).
pub const DEFAULT_BLOCKED_TIMEOUT_MS: u64 = 5_000;

/// How to open an IndexedDB store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedDbOptions {
    /// How long an upgrade waits for other connections (other tabs) to close
    /// before the open rejects with reason `blocked`, in milliseconds.
    pub blocked_timeout_ms: u64,
    /// Test-only, not part of the API: the upgrade step to this schema version
    /// fails on purpose after doing its work, to exercise the abort path.
    #[doc(hidden)]
    pub fail_upgrade_to: Option<u32>,
}

impl Default for IndexedDbOptions {
    fn default() -> Self {
        IndexedDbOptions {
            blocked_timeout_ms: DEFAULT_BLOCKED_TIMEOUT_MS,
            fail_upgrade_to: None,
        }
    }
}

/// The schema upgrade: brings the database from the old version (0 when new) to the current one.
pub(super) type Upgrade = Box<dyn FnOnce(&Database, u32) -> Result<()>>;

/// What the request's handlers share with the waiting open.
#[derive(Default)]
struct OpenState {
    settle: RefCell<Option<oneshot::Sender<Result<IdbDatabase>>>>,
    blocked: RefCell<Option<oneshot::Sender<()>>>,
    /// Set once the open gave up: a late upgrade is aborted, a late connection closed.
    abandoned: Cell<bool>,
    upgrade_error: RefCell<Option<Error>>,
}

impl OpenState {
    fn settle(&self, outcome: Result<IdbDatabase>) {
        if let Some(sender) = self.settle.borrow_mut().take() {
            let _ = sender.send(outcome);
        }
    }
}

/// Opens `name` at `version`, running `upgrade` in the version-change transaction if needed.
pub(super) async fn open_database(
    name: &str,
    version: u32,
    options: &IndexedDbOptions,
    upgrade: Upgrade,
) -> Result<IdbDatabase> {
    let request = factory()?
        .open_with_u32(name, version)
        .map_err(|e| Error::storage(format!("cannot open IndexedDB database {name}: {}", describe(&e))))?;
    let (settle, settled) = oneshot::channel();
    let (blocked, was_blocked) = oneshot::channel();
    let state = Rc::new(OpenState {
        settle: RefCell::new(Some(settle)),
        blocked: RefCell::new(Some(blocked)),
        ..OpenState::default()
    });
    listen(&request, &state, version, upgrade);

    let ms = options.blocked_timeout_ms;
    let timeout = Box::pin(async move {
        if was_blocked.await.is_err() {
            futures::future::pending::<()>().await;
        }
        BrowserClock.sleep(ms).await;
    });
    match select(settled, timeout).await {
        Either::Left((Ok(outcome), _)) => outcome,
        Either::Left((Err(_), _)) => Err(Error::storage(format!(
            "the open request of IndexedDB database {name} ended without an answer"
        ))),
        Either::Right(_) => {
            state.abandoned.set(true);
            Err(Error::storage_because(
                StorageReason::Blocked,
                format!(
                    "opening IndexedDB database {name} at version {version} waited {ms} ms for other \
                     connections to close (another tab has it open at an older version); close or \
                     reload the other tabs and try again"
                ),
            ))
        }
    }
}

/// Sets the request's four handlers. Each runs at most once; `once_into_js`
/// frees it when it runs (the ones that never run stay, a few bytes per open).
fn listen(request: &IdbOpenDbRequest, state: &Rc<OpenState>, version: u32, upgrade: Upgrade) {
    let (req, st) = (request.clone(), state.clone());
    let on_upgrade = Closure::once_into_js(move |event: IdbVersionChangeEvent| {
        let tx = req.transaction();
        if st.abandoned.get() {
            if let Some(tx) = tx {
                let _ = tx.abort();
            }
            return;
        }
        let old = event.old_version() as u32;
        let outcome = match req.result().ok().and_then(|r| r.dyn_into::<IdbDatabase>().ok()) {
            Some(db) => upgrade(&Database::from(db), old),
            None => Err(Error::storage("the upgrade request has no database")),
        };
        if let Err(e) = outcome {
            *st.upgrade_error.borrow_mut() = Some(Error::storage_because(
                StorageReason::Upgrade,
                format!(
                    "the schema upgrade from version {old} to {version} failed and was rolled back, \
                     so the database stays at version {old}: {e}"
                ),
            ));
            if let Some(tx) = tx {
                let _ = tx.abort();
            }
        }
    });
    let (req, st) = (request.clone(), state.clone());
    let on_success = Closure::once_into_js(move |_: Event| {
        let db = req.result().ok().and_then(|r| r.dyn_into::<IdbDatabase>().ok());
        match db {
            Some(db) if st.abandoned.get() => db.close(),
            Some(db) => st.settle(Ok(db)),
            None => st.settle(Err(Error::storage(
                "the open request succeeded without a database",
            ))),
        }
    });
    let (req, st) = (request.clone(), state.clone());
    let on_error = Closure::once_into_js(move |event: Event| {
        // Handled here: not reported again as an uncaught error.
        event.prevent_default();
        let error =
            st.upgrade_error
                .borrow_mut()
                .take()
                .unwrap_or_else(|| match req.error().ok().flatten() {
                    Some(e) => Error::storage_because(
                        StorageReason::from_dom_exception(&e.name()),
                        format!("cannot open IndexedDB database: {}: {}", e.name(), e.message()),
                    ),
                    None => Error::storage("cannot open IndexedDB database"),
                });
        st.settle(Err(error));
    });
    let st = state.clone();
    let on_blocked = Closure::once_into_js(move |_: Event| {
        if let Some(sender) = st.blocked.borrow_mut().take() {
            let _ = sender.send(());
        }
    });
    request.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    request.set_onsuccess(Some(on_success.unchecked_ref()));
    request.set_onerror(Some(on_error.unchecked_ref()));
    request.set_onblocked(Some(on_blocked.unchecked_ref()));
}

/// The global `indexedDB` (window or worker).
fn factory() -> Result<IdbFactory> {
    Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .ok()
        .and_then(|f| f.dyn_into::<IdbFactory>().ok())
        .ok_or_else(|| Error::storage("IndexedDB is not available here"))
}

fn describe(value: &JsValue) -> String {
    match value.dyn_ref::<DomException>() {
        Some(e) => format!("{}: {}", e.name(), e.message()),
        None => format!("{value:?}"),
    }
}
