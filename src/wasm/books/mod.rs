//! The books module (feature `books`, `lectern_books.js`): `LecternBooks`
//! ([`books_module`]: the library, search, ingestion) in the page, its
//! embedders and the MiniLM model's files (with their JS, `model_files.js`),
//! and Lectern's ingestion worker ([`worker`]).

mod book_completion;
mod book_input;
pub(super) mod books_module;
mod books_module_api;
mod books_state;
mod embedders;
mod js_embedder;
mod minilm_files;
mod worker;
