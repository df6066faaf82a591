//! The JS boundary: the only module with `#[wasm_bindgen]`.
//!
//! One crate, two wasm modules, chosen by feature (both by default, as the
//! crate's own browser tests use them):
//! - `page`: [`Lectern`], the class the page sees; it never parses, embeds
//!   a book or builds an index itself;
//! - `ingest`: the ingestion module (`lectern_ingest.js`) that Lectern's
//!   worker runs, or the page when there is no worker: pages, chunks,
//!   embeddings and the index build ([`worker_entry`]).
//!
//! [`js`] owns every value conversion and turns [`crate::Error`]s into real
//! JS `Error`s; [`typescript`] holds the hand-written TypeScript types.

mod abort_signal;
#[cfg(feature = "page")]
mod book_input;
mod embedders;
pub mod js;
mod js_embedder;
mod panic_guard;

#[cfg(feature = "page")]
mod approval_options;
#[cfg(feature = "page")]
mod approvals_api;
#[cfg(feature = "page")]
mod book_completion;
#[cfg(feature = "page")]
mod books_api;
#[cfg(feature = "page")]
mod builtin_tools;
#[cfg(feature = "page")]
mod call;
#[cfg(feature = "page")]
mod custom_provider;
#[cfg(feature = "page")]
mod event_stream;
#[cfg(feature = "page")]
mod ingest_worker;
#[cfg(feature = "page")]
mod js_tool;
#[cfg(feature = "page")]
mod lectern;
#[cfg(feature = "page")]
mod listeners;
#[cfg(feature = "page")]
mod mention_resolver;
#[cfg(feature = "page")]
mod options;
#[cfg(feature = "page")]
mod portability_api;
#[cfg(feature = "page")]
mod replay_api;
#[cfg(feature = "page")]
mod resume_api;
#[cfg(feature = "page")]
mod retry_api;
#[cfg(feature = "page")]
mod send_options;
#[cfg(feature = "page")]
mod storage_api;
#[cfg(feature = "page")]
mod subscribe_api;
#[cfg(feature = "test-support")]
mod test_support;
#[cfg(feature = "page")]
mod typescript;
#[cfg(feature = "page")]
mod worker_embedder;

#[cfg(feature = "ingest")]
mod minilm_files;
#[cfg(feature = "ingest")]
mod worker_entry;

#[cfg(feature = "page")]
pub use custom_provider::JsFunctionModel;
#[cfg(feature = "page")]
pub use lectern::Lectern;
