//! all-MiniLM-L6-v2 from the files `scripts/fetch-minilm.sh` fetched
//! (`LECTERN_MINILM_DIR`), for the native evaluations and benchmarks.
#![allow(dead_code)]

use std::path::PathBuf;
use std::rc::Rc;

use lectern::retrieval::embed::Embedder;
use lectern::retrieval::minilm::embedder::MiniLmEmbedder;

/// The model, or `None` (saying so) without `LECTERN_MINILM_DIR`.
pub fn minilm_from_env() -> Option<Rc<dyn Embedder>> {
    let Some(dir) = std::env::var_os("LECTERN_MINILM_DIR").map(PathBuf::from) else {
        eprintln!("SKIPPED: the MiniLM and hybrid rows need LECTERN_MINILM_DIR (scripts/fetch-minilm.sh)");
        return None;
    };
    let vocab = std::fs::read_to_string(dir.join("vocab.txt")).expect("vocab.txt");
    let weights = std::fs::read(dir.join("model.safetensors")).expect("model.safetensors");
    Some(Rc::new(
        MiniLmEmbedder::new(&vocab, &weights).expect("the MiniLM model"),
    ))
}
