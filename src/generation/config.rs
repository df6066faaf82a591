//! A Llama-family decoder's shape, read from its GGUF metadata.

use crate::error::{Error, Result};

use super::gguf::Gguf;

/// The hyper-parameters of a Llama-architecture model (`general.architecture = llama`:
/// SmolLM2, Llama 3 and their kin).
#[derive(Debug, Clone, PartialEq)]
pub struct LlamaConfig {
    /// Width of the residual stream.
    pub dim: usize,
    /// Decoder blocks.
    pub layers: usize,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (fewer than `heads` with grouped-query attention).
    pub kv_heads: usize,
    /// Width of one head.
    pub head_dim: usize,
    /// Width of the feed-forward network's hidden layer.
    pub ffn_dim: usize,
    /// Positions the model was trained on.
    pub context: usize,
    /// RoPE's base frequency.
    pub rope_base: f32,
    /// RMSNorm's epsilon.
    pub eps: f32,
}

impl LlamaConfig {
    /// The configuration in `file`'s metadata; a `Config` error for another
    /// architecture or a missing value.
    pub fn read(file: &Gguf) -> Result<Self> {
        let arch = file.text("general.architecture").unwrap_or("");
        if arch != "llama" {
            return Err(Error::config(format!(
                "the model's architecture is '{arch}'; Lectern's decoder runs 'llama' (SmolLM2, Llama 3)"
            )));
        }
        let key = |name: &str| format!("llama.{name}");
        let int = |name: &str| file.required_u64(&key(name)).map(|v| v as usize);
        let dim = int("embedding_length")?;
        let heads = int("attention.head_count")?;
        let kv_heads = match file.meta(&key("attention.head_count_kv")) {
            Some(value) => value.as_u64().unwrap_or(heads as u64) as usize,
            None => heads,
        };
        if heads == 0 || kv_heads == 0 || dim % heads != 0 || heads % kv_heads != 0 {
            return Err(Error::config(format!(
                "the model's attention shape does not fit: {dim} wide, {heads} heads, {kv_heads} key/value heads"
            )));
        }
        Ok(LlamaConfig {
            dim,
            layers: int("block_count")?,
            heads,
            kv_heads,
            head_dim: dim / heads,
            ffn_dim: int("feed_forward_length")?,
            context: int("context_length")?,
            rope_base: file.f32(&key("rope.freq_base")).unwrap_or(10_000.0),
            eps: file.f32(&key("attention.layer_norm_rms_epsilon")).unwrap_or(1e-5),
        })
    }

    /// Width of the keys (and values) of one position.
    pub fn kv_dim(&self) -> usize {
        self.kv_heads * self.head_dim
    }
}
