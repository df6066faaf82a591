//! The JS boundary: the only module with `#[wasm_bindgen]`.
//!
//! One crate, three wasm modules, chosen by feature (the first two by default,
//! as the crate's own browser tests use them):
//! - `page`: [`Lectern`], the class the page sees: conversations, turns,
//!   tools, approvals; its book methods and book conversations go to the
//!   books module, which it loads on first use ([`books_remote`]);
//! - `books`: the books module (`lectern_books.js`): in the page,
//!   `LecternBooks` ([`books_module`]: the library, search, ingestion);
//!   in Lectern's worker, pages, chunks, embeddings and the index build
//!   ([`worker_entry`]);
//! - `local`: `LocalDecoder` (`lectern_local.js`), Lectern's own decoder for
//!   a page's Worker ([`local_decoder`]).
//!
//! [`js`] owns every value conversion and turns [`crate::Error`]s into real
//! JS `Error`s; [`typescript`] holds the hand-written TypeScript types.

#[cfg(any(feature = "page", feature = "books"))]
mod abort_signal;
pub mod js;
// The local module uses only its hook; the others its guarded calls too.
#[cfg_attr(not(any(feature = "page", feature = "books")), allow(dead_code))]
mod panic_guard;
#[cfg(any(feature = "page", feature = "books"))]
mod promise;

#[cfg(feature = "page")]
mod approval_options;
#[cfg(feature = "page")]
mod approvals_api;
#[cfg(feature = "page")]
mod books_api;
#[cfg(feature = "page")]
mod books_remote;
#[cfg(feature = "page")]
mod builtin_tools;
#[cfg(feature = "page")]
mod call;
#[cfg(feature = "page")]
mod custom_provider;
#[cfg(feature = "page")]
mod event_stream;
#[cfg(feature = "page")]
mod js_tool;
#[cfg(feature = "page")]
mod lectern;
#[cfg(feature = "page")]
mod listeners;
#[cfg(feature = "page")]
mod mention_resolver;
#[cfg(feature = "page")]
mod models;
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
mod split_off;
#[cfg(feature = "page")]
mod storage_api;
#[cfg(feature = "page")]
mod stored;
#[cfg(feature = "page")]
mod subscribe_api;
#[cfg(feature = "test-support")]
mod test_support;
#[cfg(feature = "page")]
mod typescript;

#[cfg(feature = "books")]
mod book_completion;
#[cfg(feature = "books")]
mod book_input;
#[cfg(feature = "books")]
mod books_module;
#[cfg(feature = "books")]
mod books_module_api;
#[cfg(feature = "books")]
mod books_state;
#[cfg(feature = "books")]
mod embedders;
#[cfg(feature = "books")]
mod ingest_worker;
#[cfg(feature = "books")]
mod js_embedder;
#[cfg(feature = "books")]
mod minilm_files;
#[cfg(feature = "books")]
mod worker_embedder;
#[cfg(feature = "books")]
mod worker_entry;

#[cfg(feature = "local")]
mod local_decoder;

#[cfg(feature = "page")]
pub use custom_provider::JsFunctionModel;
#[cfg(feature = "page")]
pub use lectern::Lectern;
