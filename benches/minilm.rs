//! MiniLM natively: `cargo bench --bench minilm`. Needs the model
//! (`LECTERN_MINILM_DIR`, from `scripts/fetch-minilm.sh`) and
//! `../shared/fixtures`; says so and stops without them.

#[path = "../tests/shared_fixtures/mod.rs"]
mod shared_fixtures;

#[path = "../tests/bench_support/figures.rs"]
mod figures;
#[path = "../tests/bench_support/minilm.rs"]
mod minilm;

use std::path::PathBuf;
use std::time::Instant;

use lectern::retrieval::minilm::encoder::Encoder;
use lectern::retrieval::minilm::tokenizer::Tokenizer;
use lectern::retrieval::vector::dot;

const ROWS: usize = 2000;

fn main() {
    let Some(dir) = std::env::var_os("LECTERN_MINILM_DIR").map(PathBuf::from) else {
        println!("SKIPPED: MiniLM needs LECTERN_MINILM_DIR (scripts/fetch-minilm.sh)");
        return;
    };
    let (Some(fixtures), Some(reference)) = (shared_fixtures::fixtures_dir(), shared_fixtures::minilm(ROWS))
    else {
        println!("SKIPPED: MiniLM needs ../shared/fixtures");
        return;
    };
    let tsv =
        std::fs::read_to_string(fixtures.join("embeddings/gutenberg-sentences.tsv")).expect("sentences");
    let sentences: Vec<String> = tsv
        .lines()
        .map(|l| l.splitn(3, '\t').nth(2).unwrap_or("").to_owned())
        .collect();
    let tokenizer =
        Tokenizer::from_vocab(&std::fs::read_to_string(dir.join("vocab.txt")).expect("vocab")).unwrap();
    let encoder =
        Encoder::from_safetensors(&std::fs::read(dir.join("model.safetensors")).expect("model")).unwrap();
    let (mut min, mut sum) = (f32::MAX, 0.0);
    for (row, sentence) in sentences.iter().take(ROWS).enumerate() {
        let cosine = dot(
            &encoder.embed(&tokenizer.encode(sentence)).unwrap(),
            reference.get(row),
        );
        min = min.min(cosine);
        sum += cosine;
    }
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    let chunks = minilm::chunks(&sentences, 5000, 800, 100);
    let (speed, tokens) = minilm::speed(&tokenizer, &encoder, &chunks, &now);
    println!("MiniLM, native (one thread)");
    for line in minilm::report(ROWS, min, sum / ROWS as f32, speed, tokens, chunks.len()) {
        println!("{line}");
    }
}
