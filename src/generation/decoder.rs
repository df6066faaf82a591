//! A Llama-family decoder: token embeddings, blocks of RMSNorm, grouped-query
//! attention with RoPE and a SwiGLU feed-forward network, a final norm and
//! the output layer (the embeddings again when tied). Prompts are read in
//! batches (each weight row read once for every token of the batch).

use crate::error::{Error, Result};

use super::attention::attend;
use super::blocks::{Activation, BlockMatrix};
use super::config::LlamaConfig;
use super::ggml_types::{matrix, vector};
use super::gguf::Gguf;
use super::kv_cache::KvCache;
use super::ops::{rms_norm, rope, swiglu};

/// One decoder block's weights.
struct Layer {
    attn_norm: Vec<f32>,
    wq: BlockMatrix,
    wk: BlockMatrix,
    wv: BlockMatrix,
    wo: BlockMatrix,
    ffn_norm: Vec<f32>,
    w_gate: BlockMatrix,
    w_up: BlockMatrix,
    w_down: BlockMatrix,
}

/// A loaded Llama-architecture model.
pub struct Decoder {
    config: LlamaConfig,
    embed: BlockMatrix,
    layers: Vec<Layer>,
    out_norm: Vec<f32>,
    /// The output layer; `None` when it is the embeddings (tied).
    output: Option<BlockMatrix>,
}

impl Decoder {
    /// The model in `file`, its weights in the decoder's own format.
    pub fn load(file: &Gguf) -> Result<Self> {
        let config = LlamaConfig::read(file)?;
        let layers = (0..config.layers)
            .map(|i| {
                let name = |part: &str| format!("blk.{i}.{part}.weight");
                Ok(Layer {
                    attn_norm: vector(file, &name("attn_norm"))?,
                    wq: matrix(file, &name("attn_q"))?,
                    wk: matrix(file, &name("attn_k"))?,
                    wv: matrix(file, &name("attn_v"))?,
                    wo: matrix(file, &name("attn_output"))?,
                    ffn_norm: vector(file, &name("ffn_norm"))?,
                    w_gate: matrix(file, &name("ffn_gate"))?,
                    w_up: matrix(file, &name("ffn_up"))?,
                    w_down: matrix(file, &name("ffn_down"))?,
                })
            })
            .collect::<Result<_>>()?;
        let output = match file.tensor("output.weight") {
            Some(_) => Some(matrix(file, "output.weight")?),
            None => None,
        };
        Ok(Decoder {
            embed: matrix(file, "token_embd.weight")?,
            out_norm: vector(file, "output_norm.weight")?,
            config,
            layers,
            output,
        })
    }

    /// The model's shape.
    pub fn config(&self) -> &LlamaConfig {
        &self.config
    }

    /// Tokens in the vocabulary (rows of the output layer).
    pub fn vocab_size(&self) -> usize {
        self.output.as_ref().unwrap_or(&self.embed).rows
    }

    /// An empty cache for this model.
    pub fn new_cache(&self) -> KvCache {
        KvCache::new(self.config.layers, self.config.kv_dim())
    }

    /// Reads `tokens` after the positions `cache` holds (appending theirs) and
    /// returns the logits of the last one; a `Config` error, and nothing read,
    /// for no tokens, an id outside the vocabulary, or more positions than the
    /// model's context.
    pub fn read(&self, tokens: &[u32], cache: &mut KvCache) -> Result<Vec<f32>> {
        if tokens.is_empty() {
            return Err(Error::config("no tokens to read"));
        }
        let vocab = self.vocab_size();
        if let Some(bad) = tokens.iter().find(|t| **t as usize >= vocab) {
            return Err(Error::config(format!(
                "token {bad} is not in the model's vocabulary of {vocab}"
            )));
        }
        if cache.len() + tokens.len() > self.config.context {
            return Err(Error::config(format!(
                "the conversation is longer than the model's context of {} tokens",
                self.config.context
            )));
        }
        Ok(self.forward(tokens, cache))
    }

    /// [`Self::read`] without its checks: `tokens` are in the vocabulary and fit.
    fn forward(&self, tokens: &[u32], cache: &mut KvCache) -> Vec<f32> {
        let c = &self.config;
        let (n, dim, kv_dim) = (tokens.len(), c.dim, c.kv_dim());
        let start = cache.len();
        let mut x = vec![0.0; n * dim];
        for (row, &token) in x.chunks_exact_mut(dim).zip(tokens) {
            self.embed.row_into(token as usize, row);
        }
        let mut work = Work::new(n, c);
        for (index, layer) in self.layers.iter().enumerate() {
            work.normalise(&x, &layer.attn_norm, c);
            batch(&layer.wq, &work.acts, &mut work.q);
            batch(&layer.wk, &work.acts, &mut work.k);
            batch(&layer.wv, &work.acts, &mut work.v);
            for t in 0..n {
                rope(&mut work.q[t * dim..][..dim], c.head_dim, start + t, c.rope_base);
                let key = &mut work.k[t * kv_dim..][..kv_dim];
                rope(key, c.head_dim, start + t, c.rope_base);
                cache.push(index, key, &work.v[t * kv_dim..][..kv_dim]);
            }
            let (keys, values) = cache.layer(index);
            for t in 0..n {
                let out = &mut work.attended[t * dim..][..dim];
                attend(&work.q[t * dim..][..dim], keys, values, start + t + 1, c, out);
            }
            quantise_rows(&mut work.acts, &work.attended, dim);
            work.add(&layer.wo, &mut x);
            work.normalise(&x, &layer.ffn_norm, c);
            batch(&layer.w_gate, &work.acts, &mut work.gate);
            batch(&layer.w_up, &work.acts, &mut work.up);
            swiglu(&mut work.gate, &work.up);
            quantise_rows(&mut work.acts, &work.gate, c.ffn_dim);
            work.add(&layer.w_down, &mut x);
        }
        for &token in tokens {
            cache.push_token(token);
        }
        let mut last = vec![0.0; dim];
        rms_norm(&x[(n - 1) * dim..], &self.out_norm, c.eps, &mut last);
        let mut act = Activation::default();
        act.quantise(&last);
        let output = self.output.as_ref().unwrap_or(&self.embed);
        let mut logits = vec![0.0; output.rows];
        output.apply(&act, &mut logits);
        logits
    }
}

/// `out[t · rows + r] = m.row r · xs[t]`, each weight row read once for all tokens.
fn batch(m: &BlockMatrix, xs: &[Activation], out: &mut [f32]) {
    let mut sums = vec![0; m.blocks_per_row() * xs.len()];
    for row in 0..m.rows {
        m.row_dot_each(row, xs, &mut sums, |t, product| out[t * m.rows + row] = product);
    }
}

/// Each token's `width`-wide row of `rows` quantised into `acts`.
fn quantise_rows(acts: &mut [Activation], rows: &[f32], width: usize) {
    for (row, act) in rows.chunks_exact(width).zip(acts.iter_mut()) {
        act.quantise(row);
    }
}

/// The buffers of one forward pass over `n` tokens.
struct Work {
    n: usize,
    acts: Vec<Activation>,
    normed: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    attended: Vec<f32>,
    gate: Vec<f32>,
    up: Vec<f32>,
    delta: Vec<f32>,
}

impl Work {
    fn new(n: usize, c: &LlamaConfig) -> Self {
        Work {
            n,
            acts: vec![Activation::default(); n],
            normed: vec![0.0; c.dim],
            q: vec![0.0; n * c.dim],
            k: vec![0.0; n * c.kv_dim()],
            v: vec![0.0; n * c.kv_dim()],
            attended: vec![0.0; n * c.dim],
            gate: vec![0.0; n * c.ffn_dim],
            up: vec![0.0; n * c.ffn_dim],
            delta: vec![0.0; n * c.dim],
        }
    }

    /// Each token's row of `x` normalised with `weight`, then quantised.
    fn normalise(&mut self, x: &[f32], weight: &[f32], c: &LlamaConfig) {
        for (row, act) in x.chunks_exact(c.dim).zip(self.acts.iter_mut()) {
            rms_norm(row, weight, c.eps, &mut self.normed);
            act.quantise(&self.normed);
        }
    }

    /// `x += m · acts`, token by token.
    fn add(&mut self, m: &BlockMatrix, x: &mut [f32]) {
        let delta = &mut self.delta[..self.n * m.rows];
        batch(m, &self.acts, delta);
        for (value, d) in x.iter_mut().zip(delta.iter()) {
            *value += d;
        }
    }
}
