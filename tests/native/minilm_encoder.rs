//! The MiniLM encoder against the reference: the first 100 sentences of
//! the shared Gutenberg fixture (`LECTERN_MINILM_ROWS`, up to 2,000; `npm
//! run bench` checks all 2,000), tokenized and encoded here, must each have
//! a cosine of at least 0.999 to the stored all-MiniLM-L6-v2 vector
//! (sentence-transformers' output). Needs the model (`LECTERN_MINILM_DIR`,
//! from `scripts/fetch-minilm.sh`) and `../shared`; skipped with a message
//! without them. And a library searching with it: paraphrased questions
//! that share no word with their passage find it, within a page bound.

use crate::support::bench::minilm;
use crate::support::shared_fixtures;

use std::path::PathBuf;
use std::time::Instant;

use futures::executor::block_on;
use lectern::retrieval::embed::minilm::embedder::MiniLmEmbedder;
use lectern::retrieval::library::{BookSource, Library, NewBook, SearchOptions};
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::runtime::cancel::CancelToken;
use lectern::runtime::time::ManualClock;
use lectern::storage::MemoryStore;

/// Sentences checked: 100 (15 s of `npm test`; `npm run bench` checks all 2,000), or
/// `LECTERN_MINILM_ROWS` up to 2,000.
fn rows() -> usize {
    std::env::var("LECTERN_MINILM_ROWS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(100)
        .min(2000)
}

#[test]
fn the_first_sentences_match_the_reference_vectors() {
    let Some(dir) = std::env::var_os("LECTERN_MINILM_DIR").map(PathBuf::from) else {
        eprintln!("SKIPPED: the MiniLM model needs LECTERN_MINILM_DIR (scripts/fetch-minilm.sh)");
        return;
    };
    let (Some(reference), Some(fixtures)) =
        (shared_fixtures::minilm(rows()), shared_fixtures::fixtures_dir())
    else {
        return;
    };
    let tsv =
        std::fs::read_to_string(fixtures.join("embeddings/gutenberg-sentences.tsv")).expect("the sentences");
    let mut sentences = minilm::sentences(&tsv);
    sentences.truncate(rows());
    let (tokenizer, encoder) = minilm::load(&dir);

    let started = Instant::now();
    let (cosines, tokens) = minilm::cosines(&tokenizer, &encoder, &sentences, &|row| reference.get(row));
    let seconds = started.elapsed().as_secs_f64();
    for (row, cosine) in cosines.iter().enumerate() {
        assert!(
            *cosine >= 0.999,
            "row {row}: cosine {cosine} ({:?})",
            sentences[row]
        );
    }
    eprintln!(
        "MiniLM natively: {} sentences, cosine to the reference min {:.7} mean {:.7}; {tokens} tokens in {seconds:.1} s ({:.0} tokens/s, test profile)",
        cosines.len(),
        cosines.iter().copied().fold(f32::MAX, f32::min),
        cosines.iter().sum::<f32>() / cosines.len() as f32,
        tokens as f64 / seconds
    );
}

#[test]
fn a_library_with_minilm_answers_paraphrases_within_the_page_bound() {
    let Some(dir) = std::env::var_os("LECTERN_MINILM_DIR").map(PathBuf::from) else {
        eprintln!("SKIPPED: the MiniLM model needs LECTERN_MINILM_DIR (scripts/fetch-minilm.sh)");
        return;
    };
    let vocab = std::fs::read_to_string(dir.join("vocab.txt")).unwrap();
    let embedder =
        MiniLmEmbedder::new(&vocab, &std::fs::read(dir.join("model.safetensors")).unwrap()).unwrap();
    let library = Library::new(
        std::rc::Rc::new(MemoryStore::new()),
        std::rc::Rc::new(embedder),
        std::rc::Rc::new(ManualClock::new(1.0e12)),
        // A chunk a page.
        ChunkSettings {
            chunk_chars: 100,
            overlap_chars: 0,
            page_chars: 2000,
        },
    );
    let pages = [
        "The ship left the harbour at dawn, its sails full of wind.",
        "She baked bread every morning, kneading the dough by hand.",
        "The detective examined the footprints beneath the broken window.",
        "Snow covered the mountain village all winter long.",
    ];
    let new = NewBook {
        title: "Four pages".into(),
        author: None,
        source: BookSource::Pages(pages.iter().map(|p| p.to_string()).collect()),
    };
    let book = block_on(library.add_book(new, &|_| {}, &CancelToken::new())).expect("adds");
    let ask = |query: &str, max_page: Option<u32>| {
        let options = SearchOptions {
            book_ids: Some(vec![book.id.clone()]),
            k: Some(1),
            max_page,
            mode: None,
        };
        block_on(library.search(query, &options, &CancelToken::new())).unwrap()[0].start_page
    };
    assert_eq!(ask("Who was looking for clues about the burglary?", None), 3);
    assert_eq!(ask("Sailing out to sea early in the day", None), 1);
    assert_eq!(ask("A cold place high in the hills", None), 4);
    assert!(
        ask("Who was looking for clues about the burglary?", Some(2)) <= 2,
        "the page bound holds"
    );
}
