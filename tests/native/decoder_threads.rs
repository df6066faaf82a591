//! The decoder with helper threads (`Pool::serve` on spawned threads, as a
//! Worker serves it in the browser) computes what it computes alone, bit for
//! bit: each row of every product, and each token's norms, quantising and
//! gate, is one thread's, with the same arithmetic.
//! Needs SmolLM2-135M-Instruct and, for the second test, Gemma 3 270M
//! (`LECTERN_SMOLLM2`, `LECTERN_GEMMA3`); skipped with a message without them.

use std::thread::JoinHandle;

use lectern::generation::{Decoder, Gguf, Tokenizer};

use crate::local_models::model_bytes;

/// `count` helper threads serving `decoder`'s pool, stopped when dropped.
struct Helpers {
    decoder_pool: std::sync::Arc<lectern::generation::Pool>,
    threads: Vec<JoinHandle<()>>,
}

impl Helpers {
    fn start(decoder: &Decoder, count: usize) -> Self {
        let threads = (0..count)
            .map(|slot| {
                let pool = decoder.pool();
                std::thread::spawn(move || pool.serve(slot))
            })
            .collect();
        let helpers = Helpers {
            decoder_pool: decoder.pool(),
            threads,
        };
        while helpers.decoder_pool.threads() < count + 1 {
            std::thread::yield_now();
        }
        helpers
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        self.decoder_pool.stop();
        for thread in self.threads.drain(..) {
            thread.join().expect("a helper thread");
        }
    }
}

/// The logits after a prompt read in one batch, then after two tokens read one at a time.
fn passes(decoder: &Decoder, prompt: &[u32]) -> Vec<Vec<f32>> {
    let mut cache = decoder.new_cache();
    let mut out = vec![decoder.read(prompt, &mut cache).unwrap()];
    for token in [42, 7] {
        out.push(decoder.read(&[token], &mut cache).unwrap());
    }
    out
}

fn same_with_helpers(env: &str, script: &str, text: &str) {
    let Some(bytes) = model_bytes(env, script) else {
        return;
    };
    let file = Gguf::parse(&bytes).unwrap();
    let (decoder, tokenizer) = (Decoder::load(&file).unwrap(), Tokenizer::read(&file).unwrap());
    let prompt = tokenizer.encode_prompt(text);
    let alone = passes(&decoder, &prompt);
    for count in [1, 2] {
        let helpers = Helpers::start(&decoder, count);
        let before = decoder.pool().helper_parts();
        assert_eq!(passes(&decoder, &prompt), alone, "{count} helper(s)");
        assert!(decoder.pool().helper_parts() > before, "the helpers ran parts");
        drop(helpers);
    }
    assert_eq!(decoder.pool().threads(), 1, "the helpers returned");
}

#[test]
fn smollm2_with_helper_threads_computes_what_it_does_alone() {
    let prompt = "<|im_start|>user\nWho walked along the river at night?<|im_end|>\n<|im_start|>assistant\n";
    same_with_helpers("LECTERN_SMOLLM2", "fetch-smollm2.sh", prompt);
}

#[test]
fn gemma3_with_helper_threads_computes_what_it_does_alone() {
    same_with_helpers(
        "LECTERN_GEMMA3",
        "fetch-gemma3.sh",
        "The man who was Thursday walked along",
    );
}
