//! The embedder seam: text in, unit vectors out.

pub mod hashed;
pub mod minilm;
pub mod openai_embedder;

use futures::future::LocalBoxFuture;

use crate::error::Result;
use crate::runtime::cancel::CancelToken;

/// Turns texts into vectors of one fixed dimension.
pub trait Embedder {
    /// The model's name, recorded with every book it embeds (a book can only
    /// be searched with the embedder that ingested it).
    fn model(&self) -> &str;
    /// How many texts to send in one call.
    fn batch_size(&self) -> usize {
        64
    }
    /// Whether it computes on this thread (no I/O): then a paced ingestion
    /// gives it small batches, so that one call stays short.
    fn is_local(&self) -> bool {
        false
    }
    /// Whether its vectors capture meaning beyond shared words: then a
    /// search is hybrid (BM25 and vectors fused) by default. The hashed
    /// embedder's do not (a search with it stays semantic by default).
    fn is_semantic(&self) -> bool {
        true
    }
    /// One vector per text, in order.
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>>;
}
