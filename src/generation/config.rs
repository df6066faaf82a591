//! A decoder's shape, read from its GGUF metadata: the Llama architecture
//! (SmolLM2, Llama 3) and Gemma 3, which adds norms on queries, keys and
//! each block's outputs, GELU, wider heads and sliding-window layers.

use crate::error::{Error, Result};

use super::gguf::Gguf;

/// The architectures the decoder runs (`general.architecture`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// `llama`: RMSNorm, RoPE on adjacent pairs, SwiGLU.
    Llama,
    /// `gemma3`: scaled embeddings, query/key norms, RoPE on halves, norms
    /// after attention and the feed-forward network, GELU, five of every six
    /// layers attending within a sliding window.
    Gemma3,
}

/// The hyper-parameters of a decoder.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// Which forward pass the weights are for.
    pub arch: Architecture,
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
    /// RoPE's base frequency (of the global layers, when some slide).
    pub rope_base: f32,
    /// RoPE's base frequency in sliding-window layers.
    pub rope_base_sliding: f32,
    /// Positions a sliding-window layer sees (itself included), if any layer slides.
    pub sliding_window: Option<usize>,
    /// RMSNorm's epsilon.
    pub eps: f32,
}

impl ModelConfig {
    /// The configuration in `file`'s metadata; a `Config` error for another
    /// architecture or a missing value.
    pub fn read(file: &Gguf) -> Result<Self> {
        let arch = match file.text("general.architecture").unwrap_or("") {
            "llama" => Architecture::Llama,
            "gemma3" => Architecture::Gemma3,
            other => {
                return Err(Error::config(format!(
                    "the model's architecture is '{other}'; Lectern's decoder runs 'llama' (SmolLM2, Llama 3) and 'gemma3'"
                )))
            }
        };
        let prefix = match arch {
            Architecture::Llama => "llama",
            Architecture::Gemma3 => "gemma3",
        };
        let key = |name: &str| format!("{prefix}.{name}");
        let int = |name: &str| file.required_u64(&key(name)).map(|v| v as usize);
        let optional = |name: &str| file.meta(&key(name)).and_then(|v| v.as_u64()).map(|v| v as usize);
        let dim = int("embedding_length")?;
        let heads = int("attention.head_count")?;
        let kv_heads = optional("attention.head_count_kv").unwrap_or(heads);
        let head_dim = match optional("attention.key_length") {
            Some(width) => width,
            None if heads > 0 => dim / heads,
            None => 0,
        };
        let value_dim = optional("attention.value_length").unwrap_or(head_dim);
        if heads == 0 || kv_heads == 0 || head_dim == 0 || heads % kv_heads != 0 || value_dim != head_dim {
            return Err(Error::config(format!(
                "the model's attention shape does not fit: {dim} wide, {heads} heads of {head_dim} \
                 (values {value_dim}), {kv_heads} key/value heads"
            )));
        }
        let rope_base = file.f32(&key("rope.freq_base")).unwrap_or(10_000.0);
        Ok(ModelConfig {
            arch,
            dim,
            layers: int("block_count")?,
            heads,
            kv_heads,
            head_dim,
            ffn_dim: int("feed_forward_length")?,
            context: int("context_length")?,
            rope_base,
            rope_base_sliding: match arch {
                Architecture::Llama => rope_base,
                // Gemma 3's local layers keep the original base (as llama.cpp sets it).
                Architecture::Gemma3 => 10_000.0,
            },
            sliding_window: match arch {
                Architecture::Llama => None,
                Architecture::Gemma3 => Some(int("attention.sliding_window")?),
            },
            eps: file.f32(&key("attention.layer_norm_rms_epsilon")).unwrap_or(1e-5),
        })
    }

    /// Width of the keys (and values) of one position.
    pub fn kv_dim(&self) -> usize {
        self.kv_heads * self.head_dim
    }

    /// Width of all query heads together (`dim` unless heads are wider).
    pub fn q_dim(&self) -> usize {
        self.heads * self.head_dim
    }

    /// The window of layer `layer`, `None` for a layer that sees every
    /// position (Gemma 3: every sixth layer).
    pub fn window_of(&self, layer: usize) -> Option<usize> {
        self.sliding_window.filter(|_| layer % 6 < 5)
    }

    /// RoPE's base in layer `layer`.
    pub fn rope_base_of(&self, layer: usize) -> f32 {
        match self.window_of(layer) {
            Some(_) => self.rope_base_sliding,
            None => self.rope_base,
        }
    }
}
