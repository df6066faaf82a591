//! Books and retrieval: pages, chunks, embeddings, the vector index and the
//! page-bounded search behind `search_book`.

pub mod chunk;
pub mod pages;
pub mod embed;
pub mod hashed;
pub mod vector;
