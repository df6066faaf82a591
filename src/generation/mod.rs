//! Local text generation: a decoder for the Llama and Gemma 3 architectures
//! that reads GGUF files (llama.cpp's format), their byte-level BPE or
//! SentencePiece tokenizers, a key/value cache whose prompt prefix is kept
//! between turns, greedy or sampled decoding with llama.cpp's repetition
//! penalty ([`penalty`]), and a stop for an answer that repeats itself
//! ([`repetition`]).
//!
//! Weights are read into the decoder's own block format ([`blocks`]), whose
//! products with llama.cpp's quantised activations are llama.cpp's, so a
//! greedy continuation can be checked against llama.cpp's token for token
//! (`tests/native/local_decoder.rs`) and its margins between likely tokens
//! against llama.cpp's (`tests/native/gemma_decoder.rs`). The integer
//! products run on wasm `simd128` in the browser, in plain loops natively
//! (`crate::kernels::block_sums`).

pub mod answer;
pub mod attention;
pub mod batch;
pub mod blocks;
mod bpe;
pub mod config;
pub mod decoder;
mod disjoint;
pub mod ggml_types;
pub mod gguf;
pub mod gguf_meta;
pub mod kv_cache;
pub mod ops;
pub mod penalty;
pub mod pool;
pub mod pool_registry;
mod pretokenize;
mod products;
pub mod profile;
pub mod repetition;
pub mod sampler;
mod special_tokens;
mod spm;
#[cfg(test)]
mod test_gguf;
pub mod tokenizer;
mod vocab;

pub use answer::{write, Answer, Finish};
pub use decoder::Decoder;
pub use gguf::Gguf;
pub use kv_cache::KvCache;
pub use penalty::RepeatPenalty;
pub use pool::Pool;
pub use sampler::Sampler;
pub use tokenizer::Tokenizer;

/// Reads `prompt` after what `cache` holds of it (a shared prefix is not
/// read again) and returns up to `max_tokens` greedily chosen tokens (no
/// repetition penalty, no stop for repeating: llama.cpp's greedy decoding),
/// stopping after any of `stops`; [`Decoder::read`]'s errors.
pub fn greedy(
    decoder: &Decoder,
    cache: &mut KvCache,
    prompt: &[u32],
    max_tokens: usize,
    stops: &[u32],
) -> crate::error::Result<Vec<u32>> {
    let mut answer = Answer::new(Sampler::greedy(), 0);
    write(decoder, cache, prompt, &mut answer, max_tokens, stops)?;
    Ok(answer.tokens().to_vec())
}
