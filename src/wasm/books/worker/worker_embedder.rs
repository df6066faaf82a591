//! The page's side of an embedder that lives in the ingestion module
//! (`embedder: { kind: 'minilm' }`): queries are embedded where the model is
//! loaded — Lectern's worker, or the page's ingestion module without one —
//! so that the page neither downloads nor holds a second copy of it.

use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::ingest_worker::Ingestion;
use crate::error::Result;
use crate::retrieval::embed::minilm::embedder::MODEL;
use crate::retrieval::embed::Embedder;
use crate::runtime::cancel::CancelToken;

/// all-MiniLM-L6-v2, computed by the ingestion module.
pub struct WorkerEmbedder {
    ingestion: Rc<Ingestion>,
}

impl WorkerEmbedder {
    /// Embeds through `ingestion`'s worker.
    pub fn new(ingestion: Rc<Ingestion>) -> Self {
        WorkerEmbedder { ingestion }
    }
}

impl Embedder for WorkerEmbedder {
    fn model(&self) -> &str {
        MODEL
    }

    /// A book's chunks go eight a message (under a second of the worker's
    /// time); without a worker the page's pace makes it fewer.
    fn batch_size(&self) -> usize {
        8
    }

    fn is_local(&self) -> bool {
        true
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>> {
        Box::pin(cancel.run(self.ingestion.embed_texts(texts)))
    }
}
