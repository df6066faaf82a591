//! Lectern's SentencePiece tokenizer (`lectern::generation::Tokenizer` on a
//! `tokenizer.ggml.model = llama` vocabulary) against llama.cpp: Gemma 3
//! 270M's ids for fixed strings, as wllama 3.8.1 shows them (recorded by
//! `scripts/tokens-reference.mjs` into `tests/fixtures/local/gemma3-tokens.json`),
//! are the tokenizer's, and print back as the strings. Needs the model
//! (`LECTERN_GEMMA3`, from `scripts/fetch-gemma3.sh`); skipped with a message
//! without it.

use std::time::Instant;

use lectern::generation::{Gguf, Tokenizer};
use serde_json::Value;

use crate::local_models::{model_bytes, reference};

/// The reference's cases as `(text, ids)`.
fn cases(reference: &Value) -> Vec<(String, Vec<u32>)> {
    let ids = |c: &Value| {
        c["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as u32)
            .collect()
    };
    let cases = reference["cases"].as_array().unwrap();
    cases
        .iter()
        .map(|c| (c["text"].as_str().unwrap().to_owned(), ids(c)))
        .collect()
}

#[test]
fn gemma3_encodes_as_llama_cpp_and_prints_back() {
    let Some(bytes) = model_bytes("LECTERN_GEMMA3", "fetch-gemma3.sh") else {
        return;
    };
    let tokenizer = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).unwrap();
    let reference = reference("gemma3-tokens.json");
    let id = |key: &str| reference[key].as_u64().map(|v| v as u32);
    assert_eq!(
        tokenizer.bos,
        id("bos"),
        "llama.cpp adds BOS: {}",
        reference["addBos"]
    );
    assert_eq!((tokenizer.eos, tokenizer.eot), (id("eos"), id("eot")));
    assert_eq!(tokenizer.id_of("<end_of_turn>"), tokenizer.eot);
    assert_eq!(tokenizer.len(), 262_144);
    for (text, ids) in cases(&reference) {
        assert_eq!(tokenizer.encode(&text), ids, "{text:?}");
        let mut prompt = vec![tokenizer.bos.unwrap()];
        prompt.extend(&ids);
        assert_eq!(tokenizer.encode_prompt(&text), prompt);
        // Control tokens print as nothing (llama.cpp's pieces without special tokens).
        let printed = text.replace("<start_of_turn>", "").replace("<end_of_turn>", "");
        assert_eq!(tokenizer.decode(&ids), printed, "{ids:?}");
    }
}

#[test]
fn a_long_prompt_encodes_in_milliseconds() {
    let Some(bytes) = model_bytes("LECTERN_GEMMA3", "fetch-gemma3.sh") else {
        return;
    };
    let tokenizer = Tokenizer::read(&Gguf::parse(&bytes).unwrap()).unwrap();
    let mut prompt = String::from("<start_of_turn>user\n");
    for (text, _) in cases(&reference("gemma3-tokens.json")).iter().cycle() {
        if prompt.chars().count() > 2_000 {
            break;
        }
        prompt.push_str(text);
        prompt.push(' ');
    }
    let started = Instant::now();
    let ids = tokenizer.encode(&prompt);
    let elapsed = started.elapsed();
    eprintln!(
        "{} characters, {} tokens in {elapsed:?}",
        prompt.chars().count(),
        ids.len()
    );
    assert_eq!(
        tokenizer.decode(&ids),
        prompt.replace("<start_of_turn>", "").replace("<end_of_turn>", "")
    );
    assert!(elapsed.as_millis() < 500, "{elapsed:?}");
}
