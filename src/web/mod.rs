//! The browser implementations of the core's seams, for `wasm32` only:
//! IndexedDB for [`crate::storage::Store`] and [`crate::storage::BookStore`],
//! `fetch` for [`crate::http::Transport`], `Date.now()` and `setTimeout` for
//! [`crate::runtime::time::Clock`], Web Locks for the agent's turn locks, `Intl` for
//! `current_datetime`'s time zones, and the event-loop pace of ingestion;
//! with them the one JSON-text codec (Rust values to JS values and back) that
//! they and `wasm/` share.
//!
//! Nothing here is the JS API: no `#[wasm_bindgen]` export lives in `web/`
//! (that is `wasm/`), and the core never names `web/`; `wasm/` and the
//! browser tests plug these into it.

mod clock;
mod fetch;
mod indexeddb;
mod json;
mod locks;
mod pace;
mod zones;

pub use clock::BrowserClock;
pub use fetch::FetchTransport;
pub use indexeddb::{
    CloseListener, IndexedDbOptions, IndexedDbStore, DEFAULT_BLOCKED_TIMEOUT_MS,
    SCHEMA_VERSION as INDEXEDDB_SCHEMA_VERSION,
};
pub(crate) use json::{from_js_text, to_js_text, JsonTextError};
pub use locks::WebLocks;
pub use pace::BrowserPace;
pub use zones::IntlZones;
