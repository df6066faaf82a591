//! The embedder the options describe, for the page (queries) and the
//! ingestion module (books) alike.

use std::rc::Rc;

use js_sys::Function;

use super::js_embedder::JsEmbedder;
use crate::error::{Error, Result};
use crate::retrieval::config::EmbedderConfig;
use crate::retrieval::embed::hashed::HashedEmbedder;
use crate::retrieval::embed::openai_embedder::OpenAiEmbedder;
use crate::retrieval::embed::Embedder;
use crate::web::{BrowserClock, FetchTransport};

/// The embedder `config` describes, if any (`kind: 'none'`, the default, has none).
pub fn optional_embedder(
    config: &EmbedderConfig,
    embed: Option<Function>,
) -> Result<Option<Rc<dyn Embedder>>> {
    match config {
        EmbedderConfig::None => Ok(None),
        _ => embedder_for(config, embed).map(Some),
    }
}

/// The embedder `config` describes.
pub fn embedder_for(config: &EmbedderConfig, embed: Option<Function>) -> Result<Rc<dyn Embedder>> {
    Ok(match (config, embed) {
        (EmbedderConfig::None, _) => return Err(Error::config("no embedder is configured")),
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

/// The embedder `config` describes, if any, with MiniLM's files loaded
/// first (in the ingestion module, which computes it), reporting their bytes.
pub async fn loaded_embedder(
    config: &EmbedderConfig,
    embed: Option<Function>,
    on_bytes: super::minilm_files::OnBytes,
) -> Result<Option<Rc<dyn Embedder>>> {
    match config {
        EmbedderConfig::Minilm(settings) => Ok(Some(super::minilm_files::minilm(settings, on_bytes).await?)),
        _ => optional_embedder(config, embed),
    }
}

/// The embedder options the page sent as JSON text; a `Config` error if they are not.
pub fn embedder_config(json: &str) -> Result<EmbedderConfig> {
    serde_json::from_str(json).map_err(|e| Error::config(format!("invalid embedder: {e}")))
}

/// The unit vectors of `texts`, one per text, by the embedder the options
/// `json` describe (loading MiniLM's files first, once per module, their
/// bytes to `on_bytes`): how queries and chunks are embedded where the model lives.
pub async fn embed_texts(
    json: &str,
    texts: &[String],
    on_bytes: super::minilm_files::OnBytes,
) -> Result<Vec<Vec<f32>>> {
    let embedder = loaded_embedder(&embedder_config(json)?, None, on_bytes)
        .await?
        .ok_or_else(|| Error::config("no embedder is configured"))?;
    let cancel = crate::runtime::cancel::CancelToken::new();
    let mut vectors = Vec::with_capacity(texts.len());
    for batch in texts.chunks(embedder.batch_size().max(1)) {
        for mut vector in embedder.embed(batch, &cancel).await? {
            crate::retrieval::vectors::vector::normalize(&mut vector);
            vectors.push(vector);
        }
    }
    Ok(vectors)
}
