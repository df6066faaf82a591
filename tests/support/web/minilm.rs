//! The MiniLM check in Chromium, shared by `web_minilm` (a few hundred
//! sentences in `npm test`) and `web_bench` (the 2,000, and speed):
//! the model and vocabulary from the mock server's `/models` (the cache
//! `scripts/fetch-minilm.sh` fills), the sentences and reference vectors
//! from its `/fixtures` (`../shared`).
#![allow(dead_code)]

use lectern::retrieval::embed::minilm::encoder::{Encoder, DIMS};
use lectern::retrieval::embed::minilm::tokenizer::Tokenizer;

use super::fetch_bytes;
use crate::support::bench::minilm::{cosines as cosines_of, sentences};
use crate::support::shared_fixtures::f16_to_f32;

/// The tokenizer and encoder, every sentence, and the reference vectors of
/// the first `rows`; `None` (the caller skips) when a file is not served.
pub async fn load(
    models: &str,
    fixtures: &str,
    rows: usize,
) -> Option<(Tokenizer, Encoder, Vec<String>, Vec<Vec<f32>>)> {
    let vocab = fetch_bytes(&format!("{models}/vocab.txt")).await?;
    let tokenizer = Tokenizer::from_vocab(&String::from_utf8(vocab).ok()?).expect("a BERT vocabulary");
    let model = fetch_bytes(&format!("{models}/model.safetensors")).await?;
    let encoder = Encoder::from_safetensors(&model.as_slice()).expect("the MiniLM weights");
    drop(model);
    let tsv = fetch_bytes(&format!("{fixtures}/embeddings/gutenberg-sentences.tsv")).await?;
    let sentences = sentences(&String::from_utf8(tsv).ok()?);
    let f16 = fetch_bytes(&format!("{fixtures}/embeddings/gutenberg-minilm-384.f16")).await?;
    let reference = f16
        .chunks_exact(DIMS * 2)
        .take(rows)
        .map(|row| {
            row.chunks_exact(2)
                .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect()
        })
        .collect();
    Some((tokenizer, encoder, sentences, reference))
}

/// What [`check`] found.
pub struct Agreement {
    /// Sentences embedded.
    pub rows: usize,
    /// The lowest cosine to the reference.
    pub min: f32,
    /// The mean cosine.
    pub mean: f32,
    /// Tokens encoded.
    pub tokens: usize,
    /// Milliseconds it took, tokenizing included.
    pub ms: f64,
}

/// Embeds each sentence that has a reference vector and compares the two,
/// yielding to the page every ten sentences (the driver gives up on a page
/// busy for long).
pub async fn check(
    tokenizer: &Tokenizer,
    encoder: &Encoder,
    sentences: &[String],
    reference: &[Vec<f32>],
) -> Agreement {
    let rows = sentences.len().min(reference.len());
    let (mut cosines, mut tokens, mut ms) = (Vec::with_capacity(rows), 0, 0.0);
    for (start, slice) in (0..rows).step_by(10).zip(sentences[..rows].chunks(10)) {
        let began = js_sys::Date::now();
        let (found, count) = cosines_of(tokenizer, encoder, slice, &|i| &reference[start + i]);
        ms += js_sys::Date::now() - began;
        cosines.extend(found);
        tokens += count;
        super::sleep(0).await;
    }
    Agreement {
        rows,
        min: cosines.iter().copied().fold(f32::MAX, f32::min),
        mean: cosines.iter().sum::<f32>() / rows as f32,
        tokens,
        ms,
    }
}
