//! all-MiniLM-L6-v2 from the files `scripts/fetch-minilm.sh` fetched
//! (`LECTERN_MINILM_DIR`), for the native evaluations and benchmarks: the
//! crate's embedder, its batches spread over every core (the evaluations
//! embed a whole book; one core made that the longest part of `npm test`).
#![allow(dead_code)]

use std::path::PathBuf;
use std::rc::Rc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use lectern::error::Result;
use lectern::retrieval::embed::minilm::embedder::MiniLmEmbedder;
use lectern::retrieval::embed::Embedder;
use lectern::runtime::cancel::CancelToken;

/// The model, or `None` (saying so) without `LECTERN_MINILM_DIR`.
pub fn minilm_from_env() -> Option<Rc<dyn Embedder>> {
    let Some(dir) = std::env::var_os("LECTERN_MINILM_DIR").map(PathBuf::from) else {
        eprintln!("SKIPPED: the MiniLM and hybrid rows need LECTERN_MINILM_DIR (scripts/fetch-minilm.sh)");
        return None;
    };
    let vocab = std::fs::read_to_string(dir.join("vocab.txt")).expect("vocab.txt");
    let weights = std::fs::read(dir.join("model.safetensors")).expect("model.safetensors");
    let inner = MiniLmEmbedder::new(&vocab, &weights).expect("the MiniLM model");
    Some(Rc::new(ParallelMiniLm { inner }))
}

/// [`MiniLmEmbedder`] taking batches of 64 and encoding each batch's
/// texts on as many threads as there are cores. The vectors are the
/// embedder's own, in order.
struct ParallelMiniLm {
    inner: MiniLmEmbedder,
}

impl Embedder for ParallelMiniLm {
    fn model(&self) -> &str {
        self.inner.model()
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>> {
        Box::pin(async move {
            cancel.check()?;
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let share = texts.len().div_ceil(threads).max(1);
            let parts: Vec<Result<Vec<Vec<f32>>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = texts
                    .chunks(share)
                    .map(|part| {
                        // A token per thread: the caller's is not `Send`.
                        scope.spawn(move || block_on(self.inner.embed(part, &CancelToken::new())))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("an encoder thread"))
                    .collect()
            });
            let mut vectors = Vec::with_capacity(texts.len());
            for part in parts {
                vectors.extend(part?);
            }
            Ok(vectors)
        })
    }
}
