//! A Llama-family decoder: token embeddings, blocks of RMSNorm, grouped-query
//! attention with RoPE and a gated feed-forward network, a final norm and
//! the output layer (the embeddings again when tied). Gemma 3's blocks add
//! norms on queries and keys and on each block's two outputs, and use GELU.
//! Prompts are read in batches (each weight row read once for every token of
//! the batch).

use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};

use super::attention::{attend_group, Cached};
use super::blocks::{Activation, BlockMatrix, Input, SUPER};
use super::config::{Architecture, ModelConfig};
use super::disjoint::DisjointSlice;
use super::ggml_types::{matrix, vector};
use super::gguf::Gguf;
use super::kv_cache::KvCache;
use super::ops::{geglu, rms_norm, rms_norm_in_place, rope, rope_halves, swiglu};
use super::pool::Pool;
use super::products::{run_products, Product};
use super::profile::{Clock, Laps, Stage, StageTimes};

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
    /// Gemma 3's norms: of each query and key head, and of the attention's
    /// and the feed-forward network's outputs.
    extra_norms: Option<ExtraNorms>,
}

/// The norms a Gemma 3 block adds.
struct ExtraNorms {
    q: Vec<f32>,
    k: Vec<f32>,
    after_attention: Vec<f32>,
    after_ffn: Vec<f32>,
}

impl Layer {
    fn read(file: &Gguf, i: usize, arch: Architecture) -> Result<Self> {
        let name = |part: &str| format!("blk.{i}.{part}.weight");
        let extra_norms = match arch {
            Architecture::Llama => None,
            Architecture::Gemma3 => Some(ExtraNorms {
                q: vector(file, &name("attn_q_norm"))?,
                k: vector(file, &name("attn_k_norm"))?,
                after_attention: vector(file, &name("post_attention_norm"))?,
                after_ffn: vector(file, &name("post_ffw_norm"))?,
            }),
        };
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
            extra_norms,
        })
    }
}

/// A loaded Llama- or Gemma 3-architecture model.
pub struct Decoder {
    config: ModelConfig,
    embed: BlockMatrix,
    layers: Vec<Layer>,
    out_norm: Vec<f32>,
    /// The output layer; `None` when it is the embeddings (tied).
    output: Option<BlockMatrix>,
    /// Whether any matrix reads Q8_K inputs (has K-quant weights).
    reads_q8_k: bool,
    /// The threads that share its matrix products, attention, and a
    /// prompt's element-wise steps.
    pool: Arc<Pool>,
    /// The clock reads are timed with, stage by stage; `None`: not timed.
    clock: Option<Clock>,
    /// Each stage's time over the reads since the last [`Self::take_profile`].
    profile: Mutex<StageTimes>,
}

impl Decoder {
    /// The model in `file`, its weights in the decoder's own format.
    pub fn load(file: &Gguf) -> Result<Self> {
        let config = ModelConfig::read(file)?;
        let layers = (0..config.layers)
            .map(|i| Layer::read(file, i, config.arch))
            .collect::<Result<Vec<Layer>>>()?;
        let output = match file.tensor("output.weight") {
            Some(_) => Some(matrix(file, "output.weight")?),
            None => None,
        };
        let reads_q8_k = layers.iter().any(|l| {
            [&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down]
                .iter()
                .any(|m| m.input == Input::Q8K)
        });
        Ok(Decoder {
            embed: matrix(file, "token_embd.weight")?,
            out_norm: vector(file, "output_norm.weight")?,
            config,
            layers,
            output,
            reads_q8_k,
            pool: Arc::new(Pool::new()),
            clock: None,
            profile: Mutex::default(),
        })
    }

    /// Times every read from now on with `clock`, stage by stage
    /// ([`super::profile`]); `None` stops timing.
    pub fn set_clock(&mut self, clock: Option<Clock>) {
        self.clock = clock;
    }

    /// Each stage's time over the reads since the last call (all zero without a clock), and resets it.
    pub fn take_profile(&self) -> StageTimes {
        std::mem::take(&mut *self.profile.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The threads that share its matrix products: a helper thread that runs
    /// [`Pool::serve`] on it takes parts of every product from then on.
    pub fn pool(&self) -> Arc<Pool> {
        Arc::clone(&self.pool)
    }

    /// The model's shape.
    pub fn config(&self) -> &ModelConfig {
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
        self.check(tokens, cache)?;
        let (last, mut work) = self.forward(tokens, cache);
        let logits = self.logits(&last);
        work.laps.lap(Stage::Logits);
        self.keep_profile(&work);
        Ok(logits)
    }

    /// [`Self::read`] without the output layer: `tokens` go into the cache
    /// and no logits come out (a prompt's pieces before its last, or a prefix
    /// read ahead; for Gemma 3, a 262k-row product saved each time).
    pub fn read_ahead(&self, tokens: &[u32], cache: &mut KvCache) -> Result<()> {
        self.check(tokens, cache)?;
        let (_, work) = self.forward(tokens, cache);
        self.keep_profile(&work);
        Ok(())
    }

    /// A `Config` error for no tokens, an id outside the vocabulary, or more
    /// positions than the model's context.
    fn check(&self, tokens: &[u32], cache: &KvCache) -> Result<()> {
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
        Ok(())
    }

    /// Reads `tokens` (in the vocabulary, and fitting the context) into the
    /// cache: the last one's residual stream, and the work's clock.
    fn forward(&self, tokens: &[u32], cache: &mut KvCache) -> (Vec<f32>, Work) {
        let c = &self.config;
        let dim = c.dim;
        let mut work = Work::new(tokens.len(), c, self.reads_q8_k, self.clock);
        let mut x = vec![0.0; tokens.len() * dim];
        for (row, &token) in x.chunks_exact_mut(dim).zip(tokens) {
            self.embed.row_into(token as usize, row);
        }
        if c.arch == Architecture::Gemma3 {
            let scale = (dim as f32).sqrt();
            x.iter_mut().for_each(|v| *v *= scale);
        }
        for (index, layer) in self.layers.iter().enumerate() {
            self.attention_block(index, layer, &mut x, &mut work, cache);
            self.ffn_block(layer, &mut x, &mut work);
        }
        for &token in tokens {
            cache.push_token(token);
        }
        let last = x.split_off((tokens.len() - 1) * dim);
        (last, work)
    }

    /// Adds the work's stage times to the profile, when the decoder is clocked.
    fn keep_profile(&self, work: &Work) {
        if self.clock.is_some() {
            let mut profile = self.profile.lock().unwrap_or_else(PoisonError::into_inner);
            profile.add(work.laps.times());
        }
    }

    /// `x += attention(norm(x))` for layer `index`, its keys and values cached.
    fn attention_block(
        &self,
        index: usize,
        layer: &Layer,
        x: &mut [f32],
        work: &mut Work,
        cache: &mut KvCache,
    ) {
        let c = &self.config;
        let start = cache.len();
        work.normalise(&self.pool, x, &layer.attn_norm, c);
        work.laps.lap(Stage::NormsAndQuantising);
        let Work { inputs, q, k, v, .. } = work;
        run_products(
            &self.pool,
            &[
                Product::new(&layer.wq, inputs.of(&layer.wq), q),
                Product::new(&layer.wk, inputs.of(&layer.wk), k),
                Product::new(&layer.wv, inputs.of(&layer.wv), v),
            ],
        );
        work.laps.lap(Stage::AttentionProducts);
        self.place(index, layer, start, work, cache);
        work.laps.lap(Stage::PositionsAndCache);
        self.attend_each(index, start, work, cache);
        work.laps.lap(Stage::Attention);
        work.quantise_rows(&self.pool, RowsOf::Attended, c.q_dim());
        work.laps.lap(Stage::NormsAndQuantising);
        let after = layer.extra_norms.as_ref().map(|e| e.after_attention.as_slice());
        work.add(&self.pool, &layer.wo, after, c.eps, x);
        work.laps.lap(Stage::AttentionProducts);
    }

    /// Each token's query and key normalised (Gemma 3) and rotated to its
    /// position (from `start`), its key and value cached in layer `index`.
    fn place(&self, index: usize, layer: &Layer, start: usize, work: &mut Work, cache: &mut KvCache) {
        let c = &self.config;
        let (q_dim, kv_dim, hd) = (c.q_dim(), c.kv_dim(), c.head_dim);
        let base = c.rope_base_of(index);
        for t in 0..work.n {
            let query = &mut work.q[t * q_dim..][..q_dim];
            let key = &mut work.k[t * kv_dim..][..kv_dim];
            if let Some(norms) = &layer.extra_norms {
                norm_heads(query, &norms.q, hd, c.eps);
                norm_heads(key, &norms.k, hd, c.eps);
            }
            match c.arch {
                Architecture::Llama => {
                    rope(query, hd, start + t, base);
                    rope(key, hd, start + t, base);
                }
                Architecture::Gemma3 => {
                    rope_halves(query, hd, start + t, base);
                    rope_halves(key, hd, start + t, base);
                    // Gemma scales its queries before attention, Llama its scores.
                    let scale = 1.0 / (hd as f32).sqrt();
                    query.iter_mut().for_each(|v| *v *= scale);
                }
            }
            cache.push(index, key, &work.v[t * kv_dim..][..kv_dim]);
        }
    }

    /// Each token's attention over the cached positions it sees (all before
    /// it, or its window's) in layer `index`, into `work.attended`: every
    /// (token, key/value head) pair one unit of the pool's parts, its query
    /// heads attended together; when there are fewer pairs than the threads
    /// can share (a generated token), each pair's query heads in slices
    /// ([`query_slices`]), each head's result the same either way.
    fn attend_each(&self, index: usize, start: usize, work: &mut Work, cache: &KvCache) {
        let c = &self.config;
        let (q_dim, hd) = (c.q_dim(), c.head_dim);
        let group = c.heads / c.kv_heads;
        let per_slice = group.div_ceil(query_slices(work.n * c.kv_heads, group, self.pool.threads()));
        let slices = group.div_ceil(per_slice);
        let scale = match c.arch {
            Architecture::Llama => 1.0 / (hd as f32).sqrt(),
            Architecture::Gemma3 => 1.0,
        };
        let (queries, (keys, values)) = (&work.q, cache.layer(index));
        let out = DisjointSlice::new(&mut work.attended);
        self.pool.split(work.n * c.kv_heads * slices, 1, &|units| {
            let mut query = vec![0.0; per_slice * hd];
            for unit in units {
                let (pair, slice) = (unit / slices, unit % slices);
                let (t, kv_head) = (pair / c.kv_heads, pair % c.kv_heads);
                let heads = slice * per_slice..group.min((slice + 1) * per_slice);
                let end = start + t + 1;
                let first = c.window_of(index).map_or(0, |w| end.saturating_sub(w));
                let at = t * q_dim + (kv_head * group + heads.start) * hd;
                let width = heads.len() * hd;
                // SAFETY: unit (t, kv_head, slice) writes its own heads of
                // token t's row; the pool's parts do not overlap.
                let out = unsafe { out.range(at..at + width) };
                let cached = Cached {
                    keys,
                    values,
                    kv_dim: c.kv_dim(),
                    column: kv_head * hd,
                    head_dim: hd,
                };
                attend_group(
                    &queries[at..at + width],
                    cached,
                    first..end,
                    scale,
                    &mut query[..width],
                    out,
                );
            }
        });
    }

    /// `x += ffn(norm(x))`: gate and up, SwiGLU or GeGLU, down.
    fn ffn_block(&self, layer: &Layer, x: &mut [f32], work: &mut Work) {
        let c = &self.config;
        work.normalise(&self.pool, x, &layer.ffn_norm, c);
        work.laps.lap(Stage::NormsAndQuantising);
        let Work { inputs, gate, up, .. } = work;
        run_products(
            &self.pool,
            &[
                Product::new(&layer.w_gate, inputs.of(&layer.w_gate), gate),
                Product::new(&layer.w_up, inputs.of(&layer.w_up), up),
            ],
        );
        work.laps.lap(Stage::FeedForwardProducts);
        work.gated(&self.pool, c.arch, c.ffn_dim);
        work.laps.lap(Stage::Activation);
        work.quantise_rows(&self.pool, RowsOf::Gate, c.ffn_dim);
        work.laps.lap(Stage::NormsAndQuantising);
        let after = layer.extra_norms.as_ref().map(|e| e.after_ffn.as_slice());
        work.add(&self.pool, &layer.w_down, after, c.eps, x);
        work.laps.lap(Stage::FeedForwardProducts);
    }

    /// The output layer's logits for the residual stream `last` of one position.
    fn logits(&self, last: &[f32]) -> Vec<f32> {
        let mut normed = vec![0.0; self.config.dim];
        rms_norm(last, &self.out_norm, self.config.eps, &mut normed);
        let output = self.output.as_ref().unwrap_or(&self.embed);
        let mut act = Activation::default();
        match output.input {
            Input::Q8_1 => act.quantise(&normed),
            Input::Q8K => act.quantise_k(&normed),
        }
        let mut logits = vec![0.0; output.rows];
        let inputs = std::slice::from_ref(&act);
        run_products(&self.pool, &[Product::new(output, inputs, &mut logits)]);
        logits
    }
}

/// How many slices each of `pairs` (token, key/value head) pairs' `group`
/// query heads go in, so that `threads` threads have two units each where
/// they can: 1 (the heads together, each key read once for all) when the
/// pairs are enough already.
fn query_slices(pairs: usize, group: usize, threads: usize) -> usize {
    if threads < 2 || pairs >= 2 * threads {
        1
    } else {
        (2 * threads).div_ceil(pairs).min(group)
    }
}

/// Each `width`-wide head of `x` RMS-normalised with `weight`, in place.
fn norm_heads(x: &mut [f32], weight: &[f32], width: usize, eps: f32) {
    for head in x.chunks_exact_mut(width) {
        rms_norm_in_place(head, weight, eps);
    }
}

/// Which of a pass's buffers [`Work::quantise_rows`] reads.
enum RowsOf {
    Attended,
    Gate,
}

/// The buffers of one forward pass over `n` tokens.
struct Work {
    n: usize,
    inputs: Inputs,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    attended: Vec<f32>,
    gate: Vec<f32>,
    up: Vec<f32>,
    delta: Vec<f32>,
    /// The read's stage times.
    laps: Laps,
}

impl Work {
    fn new(n: usize, c: &ModelConfig, with_q8_k: bool, clock: Option<Clock>) -> Self {
        Work {
            laps: Laps::start(clock),
            n,
            inputs: Inputs {
                q8_1: vec![Activation::default(); n],
                q8_k: vec![Activation::default(); n],
                with_q8_k,
            },
            q: vec![0.0; n * c.q_dim()],
            k: vec![0.0; n * c.kv_dim()],
            v: vec![0.0; n * c.kv_dim()],
            attended: vec![0.0; n * c.q_dim()],
            gate: vec![0.0; n * c.ffn_dim],
            up: vec![0.0; n * c.ffn_dim],
            delta: vec![0.0; n * c.dim],
        }
    }

    /// Each token's row of `x` normalised with `weight`, then quantised
    /// (a prompt's tokens shared with the pool).
    fn normalise(&mut self, pool: &Pool, x: &[f32], weight: &[f32], c: &ModelConfig) {
        let inputs = self.inputs.shared();
        pool.split(self.n, 1, &|tokens| {
            let mut normed = vec![0.0; c.dim];
            for t in tokens {
                rms_norm(&x[t * c.dim..][..c.dim], weight, c.eps, &mut normed);
                // SAFETY: the pool's parts hold disjoint tokens.
                unsafe { inputs.quantise(t, &normed) };
            }
        });
    }

    /// Each token's `width`-wide row of `which` quantised as the next input
    /// (a prompt's tokens shared with the pool).
    fn quantise_rows(&mut self, pool: &Pool, which: RowsOf, width: usize) {
        let rows = match which {
            RowsOf::Attended => &self.attended,
            RowsOf::Gate => &self.gate,
        };
        let inputs = self.inputs.shared();
        pool.split(self.n, 1, &|tokens| {
            for t in tokens {
                // SAFETY: the pool's parts hold disjoint tokens.
                unsafe { inputs.quantise(t, &rows[t * width..][..width]) };
            }
        });
    }

    /// `gate = act(gate) · up`, SwiGLU or GeGLU by `arch`, each token's
    /// `width`-wide row (a prompt's tokens shared with the pool).
    fn gated(&mut self, pool: &Pool, arch: Architecture, width: usize) {
        let (gate, up) = (DisjointSlice::new(&mut self.gate), &self.up);
        pool.split(self.n, 1, &|tokens| {
            let rows = tokens.start * width..tokens.end * width;
            // SAFETY: the pool's parts hold disjoint tokens.
            let gate = unsafe { gate.range(rows.clone()) };
            match arch {
                Architecture::Llama => swiglu(gate, &up[rows]),
                Architecture::Gemma3 => geglu(gate, &up[rows]),
            }
        });
    }

    /// `x += m · acts` token by token, each token's product RMS-normalised
    /// with `norm` first when there is one.
    fn add(&mut self, pool: &Pool, m: &BlockMatrix, norm: Option<&[f32]>, eps: f32, x: &mut [f32]) {
        let delta = &mut self.delta[..self.n * m.rows];
        run_products(pool, &[Product::new(m, self.inputs.of(m), delta)]);
        if let Some(weight) = norm {
            norm_heads(delta, weight, m.rows, eps);
        }
        for (value, d) in x.iter_mut().zip(delta.iter()) {
            *value += d;
        }
    }
}

/// Each token's input to the next products, as Q8_1 and (for a model with
/// K-quant matrices, when its width is a multiple of 256 as theirs are) as Q8_K.
struct Inputs {
    q8_1: Vec<Activation>,
    q8_k: Vec<Activation>,
    with_q8_k: bool,
}

impl Inputs {
    /// These inputs, for the pool's threads to write token by token.
    fn shared(&mut self) -> SharedInputs<'_> {
        SharedInputs {
            q8_1: DisjointSlice::new(&mut self.q8_1),
            q8_k: DisjointSlice::new(&mut self.q8_k),
            with_q8_k: self.with_q8_k,
        }
    }

    /// The quantisation `m`'s products read.
    fn of(&self, m: &BlockMatrix) -> &[Activation] {
        match m.input {
            Input::Q8_1 => &self.q8_1,
            Input::Q8K => &self.q8_k,
        }
    }
}

/// [`Inputs`] written by the pool's threads, each its own tokens.
struct SharedInputs<'a> {
    q8_1: DisjointSlice<'a, Activation>,
    q8_k: DisjointSlice<'a, Activation>,
    with_q8_k: bool,
}

impl SharedInputs<'_> {
    /// Token `t`'s input quantised from `row`.
    ///
    /// # Safety
    /// No other thread writes or reads token `t`'s input meanwhile.
    unsafe fn quantise(&self, t: usize, row: &[f32]) {
        // SAFETY: token `t` is this thread's alone (the caller's promise).
        unsafe { self.q8_1.range(t..t + 1)[0].quantise(row) };
        if self.with_q8_k && row.len() % SUPER == 0 {
            // SAFETY: as above.
            unsafe { self.q8_k.range(t..t + 1)[0].quantise_k(row) };
        }
    }
}
