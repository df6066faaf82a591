//! The JS boundary: the only module with `#[wasm_bindgen]`.
//!
//! One crate, four wasm modules, chosen by feature (the first two by default,
//! as the crate's own browser tests use them), one folder each:
//! - `page` ([`page`]): [`Lectern`], the class the page sees: conversations,
//!   turns, tools, approvals; its book methods and book conversations go to
//!   the books module, which it loads on first use
//!   ([`page::host::books_remote`]);
//! - `books` ([`books`]): the books module (`lectern_books.js`): in the page,
//!   `LecternBooks` ([`books::books_module`]: the library, search,
//!   ingestion); in Lectern's worker, pages, chunks, embeddings and the index
//!   build ([`books::worker`]);
//! - `local` ([`local`]): `LocalDecoder` (`lectern_local.js`), Lectern's own
//!   decoder for a page's Worker;
//! - `sync` ([`sync`]): `SyncReplica` (`lectern_sync.js`), a user's sync
//!   document, for `lectern/sync`'s client.
//!
//! The files here are shared by more than one of them. [`js`] owns every
//! value conversion and turns [`crate::Error`]s into real JS `Error`s; the
//! page's hand-written TypeScript types are in [`page::typescript`].
//! `books/` and `local/` never import `page/` (`scripts/import-graph.py`).

#[cfg(any(feature = "page", feature = "books"))]
mod abort_signal;
pub mod js;
// The local module uses only its hook; the others its guarded calls too.
#[cfg_attr(not(any(feature = "page", feature = "books")), allow(dead_code))]
mod panic_guard;
#[cfg(any(feature = "page", feature = "books"))]
mod promise;

#[cfg(feature = "page")]
mod page;

#[cfg(feature = "books")]
mod books;

#[cfg(feature = "local")]
mod local;

#[cfg(feature = "sync")]
mod sync;

#[cfg(feature = "page")]
pub use page::{JsFunctionModel, Lectern};
