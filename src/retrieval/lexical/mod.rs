//! Lexical search: BM25 over an inverted index of a book's chunks, built at
//! ingestion and stored with the book ([`encode`]), searched under a page
//! bound with statistics of the eligible chunks alone ([`bm25`]).

pub mod bm25;
pub mod encode;
pub mod index;
pub mod tokenize;

pub use index::LexicalIndex;
