//! Books and retrieval: pages, chunks, embeddings, the vector index and the
//! page-bounded search behind `search_book`.

pub mod book;
pub mod breaks;
pub mod budget;
pub mod built_graph;
pub mod bundle;
pub mod chunk;
pub mod config;
pub mod embed;
pub mod entities;
pub mod epub;
pub mod fuzz_entry;
pub mod hashed;
pub mod hnsw;
pub mod index;
pub mod library;
pub mod loaded_book;
pub mod markup;
pub mod minilm;
pub mod openai_embedder;
pub mod page_bound;
pub mod pages;
pub mod prepare;
pub mod prepared_wire;
pub mod quantized;
pub mod scan;
pub mod search_tool;
pub mod sentences;
pub mod snapshot;
pub mod test_vectors;
pub mod topk;
pub mod vector;
pub mod zip;
pub mod zip_writer;
