//! The MiniLM benchmark's inputs and its report, natively and in Chromium:
//! agreement with the reference vectors on the 2,000 sentences, and
//! tokens per second on chunks of about 800 characters (Lectern's default
//! chunk size), single thread.
#![allow(dead_code)]

use lectern::retrieval::embed::minilm::encoder::Encoder;
use lectern::retrieval::embed::minilm::tokenizer::Tokenizer;
use lectern::retrieval::vectors::vector::dot;

use super::figures::{env, figure};

/// The sentences of the shared fixture's `gutenberg-sentences.tsv` (`row, book, sentence`).
pub fn sentences(tsv: &str) -> Vec<String> {
    tsv.lines()
        .map(|l| l.splitn(3, '\t').nth(2).unwrap_or("").to_owned())
        .collect()
}

/// The tokenizer and encoder from the folder `scripts/fetch-minilm.sh` fills
/// (natively: the browser benchmark fetches them).
pub fn load(dir: &std::path::Path) -> (Tokenizer, Encoder) {
    let vocab = std::fs::read_to_string(dir.join("vocab.txt")).expect("vocab.txt");
    let model = std::fs::read(dir.join("model.safetensors")).expect("model.safetensors");
    (
        Tokenizer::from_vocab(&vocab).expect("a BERT vocabulary"),
        Encoder::from_safetensors(&model.as_slice()).expect("the MiniLM weights"),
    )
}

/// Each sentence's cosine to its reference vector (`reference(i)` for
/// `sentences[i]`), and the tokens encoded.
pub fn cosines<'r>(
    tokenizer: &Tokenizer,
    encoder: &Encoder,
    sentences: &[String],
    reference: &dyn Fn(usize) -> &'r [f32],
) -> (Vec<f32>, usize) {
    let mut tokens = 0;
    let cosines = sentences
        .iter()
        .enumerate()
        .map(|(i, sentence)| {
            let ids = tokenizer.encode(sentence);
            tokens += ids.len();
            dot(&encoder.embed(&ids).expect("embeds"), reference(i))
        })
        .collect();
    (cosines, tokens)
}

/// Consecutive sentences from `from` on, packed into `count` chunks of at
/// most `chars` characters (joined by spaces).
pub fn chunks(sentences: &[String], from: usize, chars: usize, count: usize) -> Vec<String> {
    let mut chunks = vec![String::new()];
    for sentence in sentences.iter().skip(from) {
        let last = chunks.last_mut().expect("one chunk at least");
        if !last.is_empty() && last.chars().count() + 1 + sentence.chars().count() > chars {
            if chunks.len() == count {
                break;
            }
            chunks.push(String::new());
        }
        let last = chunks.last_mut().expect("one chunk at least");
        if !last.is_empty() {
            last.push(' ');
        }
        last.push_str(sentence);
    }
    chunks
}

/// Tokens per second embedding `chunks` (tokenizing included), and the tokens.
pub fn speed(
    tokenizer: &Tokenizer,
    encoder: &Encoder,
    chunks: &[String],
    now: &dyn Fn() -> f64,
) -> (f64, usize) {
    let start = now();
    let mut tokens = 0;
    for chunk in chunks {
        let ids = tokenizer.encode(chunk);
        tokens += ids.len();
        encoder.embed(&ids).expect("embeds");
    }
    (tokens as f64 / (now() - start) * 1000.0, tokens)
}

/// The report lines: agreement and speed, with their figures.
pub fn report(
    rows: usize,
    min: f32,
    mean: f32,
    tokens_per_s: f64,
    chunk_tokens: usize,
    chunks: usize,
) -> Vec<String> {
    vec![
        format!("  all-MiniLM-L6-v2, first {rows} sentences: cosine to the reference min {min:.7}, mean {mean:.7}"),
        format!(
            "  speed: {tokens_per_s:.0} tokens/s on {chunks} chunks of <= 800 characters ({:.0} tokens each), one thread",
            chunk_tokens as f64 / chunks as f64
        ),
        figure(&format!("minilm_cosine_min_{rows}"), env(), min as f64),
        figure("minilm_tokens_per_s", env(), tokens_per_s),
    ]
}
