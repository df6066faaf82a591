//! The TypeScript types of the public API, written once by hand, one file a
//! concept; wasm-bindgen puts every section into `pkg/lectern.d.ts`.

mod agent;
mod approvals;
mod books;
mod errors;
mod events;
mod options;
mod portability;
mod providers;
mod records;
mod resume;
mod storage;
mod sync;
