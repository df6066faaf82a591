//! The MiniLM tokenizer against the reference (HF tokenizers, as
//! sentence-transformers calls it): the words of 234 texts — English
//! sentences, the Unicode edge cases, random multi-script strings — from
//! `tests/fixtures/minilm/tokens.jsonl` (made by
//! `scripts/minilm/make_token_fixture.py`), and their ids with the real
//! vocabulary, which `scripts/fetch-minilm.sh` fetches (`LECTERN_MINILM_DIR`;
//! skipped with a message without it).

use lectern::retrieval::embed::minilm::tokenizer::{pre_tokenize, Tokenizer};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/minilm/tokens.jsonl");
    let text = std::fs::read_to_string(path).expect("the fixture");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_text_is_cut_into_the_reference_words() {
    let cases = cases();
    assert!(cases.len() > 200);
    let mut wrong = Vec::new();
    for case in &cases {
        let text = case["text"].as_str().unwrap();
        if pre_tokenize(text) != strings(&case["words"]) {
            wrong.push(text.to_owned());
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ, e.g. {:?}",
        wrong.len(),
        cases.len(),
        &wrong[..wrong.len().min(3)]
    );
}

#[test]
fn every_text_gets_the_reference_ids() {
    let Some(dir) = std::env::var_os("LECTERN_MINILM_DIR") else {
        eprintln!("SKIPPED: the MiniLM vocabulary needs LECTERN_MINILM_DIR (scripts/fetch-minilm.sh)");
        return;
    };
    let vocab = std::fs::read_to_string(std::path::Path::new(&dir).join("vocab.txt")).expect("vocab.txt");
    let tokenizer = Tokenizer::from_vocab(&vocab).expect("a BERT vocabulary");
    let mut wrong = 0;
    for case in cases() {
        let text = case["text"].as_str().unwrap();
        let expected: Vec<u32> = case["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as u32)
            .collect();
        let ids = tokenizer.encode(text);
        if ids != expected {
            wrong += 1;
            eprintln!("{text:?}\n  got      {ids:?}\n  expected {expected:?}");
        }
    }
    assert_eq!(wrong, 0, "texts whose ids differ");
}
