//! The keys and values of every position a decoder has read, per layer, and
//! the tokens they came from: a new prompt that begins with the same tokens
//! (the system prompt and passages of the turn before) reuses them.

use crate::kernels::half::round_to_half;

/// Keys and values by layer and position, at half-float precision (as
/// llama.cpp's F16 cache holds them; kept as `f32` for speed).
#[derive(Debug, Clone, Default)]
pub struct KvCache {
    kv_dim: usize,
    keys: Vec<Vec<f32>>,
    values: Vec<Vec<f32>>,
    tokens: Vec<u32>,
}

impl KvCache {
    /// An empty cache for `layers` layers of `kv_dim`-wide keys and values.
    pub fn new(layers: usize, kv_dim: usize) -> Self {
        KvCache {
            kv_dim,
            keys: vec![Vec::new(); layers],
            values: vec![Vec::new(); layers],
            tokens: Vec::new(),
        }
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The tokens whose keys and values are held, in order.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// Keeps the first `len` positions, drops the rest.
    pub fn truncate(&mut self, len: usize) {
        let len = len.min(self.tokens.len());
        self.tokens.truncate(len);
        for layer in self.keys.iter_mut().chain(self.values.iter_mut()) {
            layer.truncate(len * self.kv_dim);
        }
    }

    /// Keeps the longest prefix of `prompt` held (short of the whole prompt:
    /// its last token must be read again for its logits) and returns its length.
    pub fn keep_prefix_of(&mut self, prompt: &[u32]) -> usize {
        let shared = self
            .tokens
            .iter()
            .zip(prompt)
            .take_while(|(a, b)| a == b)
            .count()
            .min(prompt.len().saturating_sub(1));
        self.truncate(shared);
        shared
    }

    /// Appends one position's key and value in `layer` (rounded to half floats).
    pub(super) fn push(&mut self, layer: usize, key: &[f32], value: &[f32]) {
        self.keys[layer].extend(key.iter().map(|k| round_to_half(*k)));
        self.values[layer].extend(value.iter().map(|v| round_to_half(*v)));
    }

    /// Records that `token`'s position was appended in every layer.
    pub(super) fn push_token(&mut self, token: u32) {
        self.tokens.push(token);
    }

    /// Layer `layer`'s keys and values, position by position.
    pub(super) fn layer(&self, layer: usize) -> (&[f32], &[f32]) {
        (&self.keys[layer], &self.values[layer])
    }
}
