//! The JS boundary: the only module with `#[wasm_bindgen]`.
//!
//! [`Lectern`] is the class JS sees; [`js`] owns every value conversion and
//! turns [`crate::Error`]s into real JS `Error`s; [`typescript`] holds the
//! hand-written TypeScript types of the public API.

mod approval_options;
mod approvals_api;
mod book_input;
mod books_api;
mod browser_pace;
mod call;
mod custom_provider;
mod event_stream;
mod ingest_worker;
pub mod js;
mod js_embedder;
mod js_tool;
mod lectern;
mod mention_resolver;
mod options;
mod panic_guard;
mod send_options;
mod storage_api;
#[cfg(feature = "test-support")]
mod test_support;
mod typescript;
mod web_locks;
mod worker_entry;

pub use custom_provider::JsFunctionModel;
pub use lectern::Lectern;
