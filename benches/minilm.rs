//! MiniLM natively: `cargo bench --bench minilm`. Needs the model
//! (`LECTERN_MINILM_DIR`, from `scripts/fetch-minilm.sh`) and
//! `../shared/fixtures`; says so and stops without them.

#[path = "../tests/support/mod.rs"]
mod support;

use support::bench::minilm;
use support::shared_fixtures;

use std::path::PathBuf;
use std::time::Instant;

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
    let sentences = minilm::sentences(&tsv);
    let (tokenizer, encoder) = minilm::load(&dir);
    let (cosines, _) = minilm::cosines(&tokenizer, &encoder, &sentences[..ROWS], &|row| {
        reference.get(row)
    });
    let min = cosines.iter().copied().fold(f32::MAX, f32::min);
    let mean = cosines.iter().sum::<f32>() / ROWS as f32;
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    let chunks = minilm::chunks(&sentences, 5000, 800, 100);
    let (speed, tokens) = minilm::speed(&tokenizer, &encoder, &chunks, &now);
    println!("MiniLM, native (one thread)");
    for line in minilm::report(ROWS, min, mean, speed, tokens, chunks.len()) {
        println!("{line}");
    }
}
