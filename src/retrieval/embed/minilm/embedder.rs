//! all-MiniLM-L6-v2 as an [`Embedder`]: tokenized and encoded on this
//! thread (no I/O), 384-dimensional unit vectors.

use futures::future::LocalBoxFuture;

use super::encoder::Encoder;
use super::safetensors::FileBytes;
use super::tokenizer::Tokenizer;
use crate::error::Result;
use crate::retrieval::embed::Embedder;
use crate::runtime::cancel::CancelToken;

/// The model name recorded with the books it embeds.
pub const MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The tokenizer and encoder of all-MiniLM-L6-v2.
#[derive(Debug, Clone)]
pub struct MiniLmEmbedder {
    tokenizer: Tokenizer,
    encoder: Encoder,
}

impl MiniLmEmbedder {
    /// The embedder of a `vocab.txt` and a `model.safetensors`; a `Config`
    /// error naming what is wrong with either.
    pub fn new(vocab: &str, safetensors: &[u8]) -> Result<Self> {
        Self::from_file(vocab, &safetensors)
    }

    /// [`MiniLmEmbedder::new`] reading the model through [`FileBytes`], a
    /// tensor at a time (the browser's fetched buffer, never copied whole).
    pub fn from_file(vocab: &str, safetensors: &dyn FileBytes) -> Result<Self> {
        Ok(MiniLmEmbedder {
            tokenizer: Tokenizer::from_vocab(vocab)?,
            encoder: Encoder::from_safetensors(safetensors)?,
        })
    }
}

impl Embedder for MiniLmEmbedder {
    fn model(&self) -> &str {
        MODEL
    }

    /// One text a call: each is encoded alone anyway, and a chunk of 800
    /// characters takes about 0.2 s in Chromium, as long as a paced page's
    /// task may be.
    fn batch_size(&self) -> usize {
        1
    }

    fn is_local(&self) -> bool {
        true
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>>> {
        Box::pin(async move {
            texts
                .iter()
                .map(|text| {
                    cancel.check()?;
                    self.encoder.embed(&self.tokenizer.encode(text))
                })
                .collect()
        })
    }
}
