//! Books and retrieval: pages, chunks, embeddings, the vector index and the
//! page-bounded search behind `search_book`, and the reader's context.
//!
//! By stage, each importing only the stages above it in this list
//! (`scripts/import-graph.py` checks it):
//! - [`text`]: a book's text into pages, sentences and chunks;
//! - [`vectors`]: vectors, their quantised forms, kernels and exact top-k;
//! - [`formats`]: the files read and written (EPUB, zip, the export bundle);
//! - [`index`]: the approximate vector index (HNSW) and its snapshot;
//! - [`embed`]: embedders (hashed, MiniLM, OpenAI-compatible);
//! - [`lexical`]: the BM25 index;
//! - [`ingest`]: a new book prepared for the library;
//! - [`library`]: the books kept, loaded and searched;
//! - [`reader`]: the reader's context, its checks and quoted answers.

pub mod books_settings;
pub mod config;
pub mod embed;
pub mod formats;
pub mod fuzz_entry;
pub mod index;
pub mod ingest;
pub mod lexical;
pub mod library;
pub mod reader;
pub mod text;
pub mod vectors;
