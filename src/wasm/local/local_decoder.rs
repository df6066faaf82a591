//! `LocalDecoder` (`lectern_local.js`, feature `local`): Lectern's own decoder
//! for a page's Worker: a GGUF file's bytes in, a prompt read (its cached
//! prefix kept), then tokens (greedy or sampled, with or without a repetition
//! penalty) one call at a time, so the Worker can post each, hear an abort
//! between them, and stop an answer that repeats itself.

use wasm_bindgen::prelude::*;

use crate::generation::profile::{Clock, Stage};
use crate::generation::{Answer, Decoder, Gguf, KvCache, RepeatPenalty, Sampler, Tokenizer};
use crate::wasm::js::error_to_js;
use crate::wasm::panic_guard;

/// A loaded model, its tokenizer and one conversation's key/value cache.
#[wasm_bindgen]
pub struct LocalDecoder {
    decoder: Decoder,
    tokenizer: Tokenizer,
    cache: KvCache,
    logits: Vec<f32>,
    /// The tokens [`Self::next`] gave since the last [`Self::set_sampling`].
    answer: Answer,
}

#[wasm_bindgen]
impl LocalDecoder {
    /// Reads a GGUF file (Llama or Gemma 3 architecture, byte-level BPE or SentencePiece vocabulary);
    /// throws a `ConfigError` saying what it cannot read.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<LocalDecoder, JsValue> {
        panic_guard::install();
        let file = Gguf::parse(bytes).map_err(|e| error_to_js(&e))?;
        let decoder = Decoder::load(&file).map_err(|e| error_to_js(&e))?;
        let tokenizer = Tokenizer::read(&file).map_err(|e| error_to_js(&e))?;
        Ok(LocalDecoder {
            cache: decoder.new_cache(),
            decoder,
            tokenizer,
            logits: Vec::new(),
            answer: Answer::new(Sampler::greedy(), 0),
        })
    }

    /// A prompt's token ids (special tokens written in it matched whole; the
    /// beginning-of-sequence token first when the model asks for one).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode_prompt(text)
    }

    /// Keeps the cached positions of the longest prefix of `prompt` already
    /// read (short of its last token) and drops the rest; returns how many
    /// were kept: the caller then reads `prompt` from there ([`Self::read`]).
    #[wasm_bindgen(js_name = keepPrefix)]
    pub fn keep_prefix(&mut self, prompt: &[u32]) -> Result<usize, JsValue> {
        let context = self.decoder.config().context;
        if prompt.is_empty() || prompt.len() > context {
            return Err(error_to_js(&crate::Error::config(format!(
                "the prompt has {} tokens; the model reads 1 to {context}",
                prompt.len()
            ))));
        }
        self.logits.clear();
        Ok(self.cache.keep_prefix_of(prompt))
    }

    /// Reads `tokens` after the cached positions, keeping the last one's
    /// logits for [`Self::next`] (a prompt's last piece: the Worker reads a
    /// prompt in pieces, so it can hear an abort between them).
    pub fn read(&mut self, tokens: &[u32]) -> Result<(), JsValue> {
        self.logits = self
            .decoder
            .read(tokens, &mut self.cache)
            .map_err(|e| error_to_js(&e))?;
        Ok(())
    }

    /// Reads `tokens` after the cached positions without the output layer
    /// (a prompt's pieces before its last, or a prefix read ahead): no logits
    /// are kept, so [`Self::next`] asks for a [`Self::read`] first.
    #[wasm_bindgen(js_name = readAhead)]
    pub fn read_ahead(&mut self, tokens: &[u32]) -> Result<(), JsValue> {
        self.logits.clear();
        self.decoder
            .read_ahead(tokens, &mut self.cache)
            .map_err(|e| error_to_js(&e))
    }

    /// How the next answer's tokens are chosen: at `temperature` (0: the most
    /// likely one, the default) from the nucleus of `top_p`, drawn with
    /// `seed`, after llama.cpp's repetition penalty `repeat_penalty` (1: off)
    /// over the answer's last `repeat_last_n` tokens; [`Self::answer_repeats`]
    /// says when its last `repeat_stop` tokens (0: never) are written a third time.
    #[wasm_bindgen(js_name = setSampling)]
    pub fn set_sampling(
        &mut self,
        temperature: f32,
        top_p: f32,
        seed: u32,
        repeat_penalty: f32,
        repeat_last_n: usize,
        repeat_stop: usize,
    ) {
        let penalty = RepeatPenalty::new(repeat_penalty, repeat_last_n);
        let sampler =
            Sampler::new(temperature, top_p, seed.into()).with_penalty(penalty, &self.stop_tokens());
        self.answer = Answer::new(sampler, repeat_stop);
    }

    /// The next token ([`Self::set_sampling`]), read into the cache (so the
    /// next call gives the one after it).
    pub fn next(&mut self) -> Result<u32, JsValue> {
        if self.logits.is_empty() {
            return Err(error_to_js(&crate::Error::config("read a prompt first")));
        }
        let token = self.answer.pick(&self.logits);
        self.logits = self
            .decoder
            .read(&[token], &mut self.cache)
            .map_err(|e| error_to_js(&e))?;
        Ok(token)
    }

    /// Whether the answer repeats itself: its last `repeat_stop` tokens
    /// ([`Self::set_sampling`]) were written twice before in it.
    #[wasm_bindgen(js_name = answerRepeats)]
    pub fn answer_repeats(&self) -> bool {
        self.answer.repeats()
    }

    /// The bytes token `id` stands for (none for a control token).
    #[wasm_bindgen(js_name = tokenBytes)]
    pub fn token_bytes(&self, id: u32) -> Vec<u8> {
        self.tokenizer.token_bytes(id)
    }

    /// The tokens that end an answer: end of sequence, end of turn.
    #[wasm_bindgen(js_name = stopTokens)]
    pub fn stop_tokens(&self) -> Vec<u32> {
        self.tokenizer.eos.into_iter().chain(self.tokenizer.eot).collect()
    }

    /// Positions held in the cache.
    #[wasm_bindgen(js_name = cachedTokens)]
    pub fn cached_tokens(&self) -> usize {
        self.cache.len()
    }

    /// Threads sharing its matrix products: 1, and a helper Worker's each.
    pub fn threads(&self) -> usize {
        self.decoder.pool().threads()
    }

    /// The parts of the jobs shared with helper Workers so far, and those the
    /// helpers ran (a diagnostic: how much of the work the helpers took).
    #[wasm_bindgen(js_name = sharedParts)]
    pub fn shared_parts(&self) -> Vec<f64> {
        let pool = self.decoder.pool();
        vec![pool.shared_parts() as f64, pool.helper_parts() as f64]
    }

    /// Whether reads are timed stage by stage from now on ([`Self::take_profile`]).
    #[wasm_bindgen(js_name = setProfiling)]
    pub fn set_profiling(&mut self, on: bool) {
        self.decoder.set_clock(on.then_some(performance_now as Clock));
    }

    /// The milliseconds of each stage ([`Self::profile_stages`]' order) over
    /// the reads since the last call, and resets them.
    #[wasm_bindgen(js_name = takeProfile)]
    pub fn take_profile(&self) -> Vec<f64> {
        self.decoder.take_profile().each().map(|(_, ms)| ms).collect()
    }

    /// The names of the stages [`Self::take_profile`] times.
    #[wasm_bindgen(js_name = profileStages)]
    pub fn profile_stages() -> Vec<String> {
        Stage::ALL.iter().map(|s| s.name().to_owned()).collect()
    }
}

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`, in a page or a Worker.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// The threaded build (`lectern_local_threads.js`: atomics and shared memory):
/// a helper Worker, given the module and its memory, serves a decoder's pool
/// (its products and attention), found by the number the decoder gave.
#[cfg(target_feature = "atomics")]
mod helpers {
    use wasm_bindgen::prelude::*;

    use super::LocalDecoder;
    use crate::generation::pool::MAX_HELPERS;
    use crate::generation::pool_registry;

    #[wasm_bindgen]
    impl LocalDecoder {
        /// The number of the decoder's threads, for a helper Worker's [`serve_decoder`].
        #[wasm_bindgen(js_name = helperHandle)]
        pub fn helper_handle(&self) -> u32 {
            pool_registry::register(&self.decoder.pool())
        }

        /// The address (in the shared memory) of the decoder's dead mask: a
        /// helper's Worker whose wasm traps in [`serve_decoder`] sets its
        /// slot's bit (`1 << slot`) with `Atomics.or`; the decoder then runs
        /// that job again, and every later one, alone.
        #[wasm_bindgen(js_name = helperDeadMask)]
        pub fn helper_dead_mask(&self) -> u32 {
            self.decoder.pool().dead_mask() as usize as u32
        }
    }

    /// A helper Worker's loop in slot `slot` (0 for the first helper, 1 for
    /// the next…) of the decoder whose [`LocalDecoder::helper_handle`] is
    /// `handle`: runs parts of its jobs; returns only with an error (an
    /// unknown handle, a slot out of range), else the Worker ends with the
    /// decoder's.
    #[wasm_bindgen(js_name = serveDecoder)]
    pub fn serve_decoder(handle: u32, slot: usize) -> Result<(), JsError> {
        const _: () = assert!(MAX_HELPERS == 15, "the message below names the slots");
        if slot >= MAX_HELPERS {
            return Err(JsError::new("a decoder's helper slots are 0 to 14"));
        }
        let pool = pool_registry::registered(handle)
            .ok_or_else(|| JsError::new("no living decoder has this helper handle"))?;
        pool.serve(slot);
        Ok(())
    }
}
