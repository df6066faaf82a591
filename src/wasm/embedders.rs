//! The embedder the options describe, for the page (queries) and the
//! ingestion module (books) alike.

use std::rc::Rc;

use js_sys::Function;

use super::js_embedder::JsEmbedder;
use crate::error::{Error, Result};
use crate::http::FetchTransport;
use crate::retrieval::config::EmbedderConfig;
use crate::retrieval::embed::Embedder;
use crate::retrieval::hashed::HashedEmbedder;
use crate::retrieval::openai_embedder::OpenAiEmbedder;
use crate::time::BrowserClock;

/// The embedder `config` describes.
pub fn embedder_for(config: &EmbedderConfig, embed: Option<Function>) -> Result<Rc<dyn Embedder>> {
    Ok(match (config, embed) {
        (EmbedderConfig::Hashed(s), _) => {
            if !(16..=8192).contains(&s.dimensions) {
                return Err(Error::config("embedder.dimensions must be within 16..=8192"));
            }
            Rc::new(HashedEmbedder::new(s.dimensions))
        }
        (EmbedderConfig::Openai(s), _) => Rc::new(OpenAiEmbedder::new(
            s.clone(),
            Rc::new(FetchTransport),
            Rc::new(BrowserClock),
        )),
        (EmbedderConfig::Custom(s), Some(embed)) => {
            Rc::new(JsEmbedder::new(embed, s.model.clone(), s.batch_size))
        }
        (EmbedderConfig::Custom(_), None) => {
            return Err(Error::config("a custom embedder needs embedder.embed"))
        }
        (EmbedderConfig::Minilm(_), _) => {
            return Err(Error::config(
                "the MiniLM embedder runs in the ingestion module (loaded_embedder)",
            ))
        }
    })
}

/// The embedder `config` describes, with MiniLM's files loaded first (in
/// the ingestion module, which computes it), reporting their bytes.
#[cfg(feature = "ingest")]
pub async fn loaded_embedder(
    config: &EmbedderConfig,
    embed: Option<Function>,
    on_bytes: super::minilm_files::OnBytes,
) -> Result<Rc<dyn Embedder>> {
    match config {
        EmbedderConfig::Minilm(settings) => Ok(super::minilm_files::minilm(settings, on_bytes).await?),
        _ => embedder_for(config, embed),
    }
}
