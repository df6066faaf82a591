//! One answer being written: its [`Sampler`] (with any repetition penalty),
//! the tokens chosen so far, and whether it has begun to repeat itself
//! ([`repeats_itself`]). The browser's Worker takes its tokens one call at a
//! time (`wasm::local`); [`write`] writes a whole answer natively.

use crate::error::Result;

use super::repetition::repeats_itself;
use super::{Decoder, KvCache, Sampler};

/// Why an answer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// It chose a token that ends an answer (kept as its last token).
    Stop,
    /// It reached its token limit.
    Length,
    /// It wrote the same run of tokens a third time.
    Repetition,
}

/// An answer's tokens and how the next is chosen.
#[derive(Debug, Clone)]
pub struct Answer {
    sampler: Sampler,
    tokens: Vec<u32>,
    repeat_stop: usize,
}

impl Answer {
    /// An empty answer whose tokens `sampler` chooses, over once its last
    /// `repeat_stop` tokens are written a third time (0: never).
    pub fn new(sampler: Sampler, repeat_stop: usize) -> Self {
        Answer {
            sampler,
            tokens: Vec::new(),
            repeat_stop,
        }
    }

    /// The next token for `logits`, added to the answer.
    pub fn pick(&mut self, logits: &[f32]) -> u32 {
        let token = self.sampler.pick(logits);
        self.tokens.push(token);
        token
    }

    /// Whether its last `repeat_stop` tokens appear twice before in it.
    pub fn repeats(&self) -> bool {
        repeats_itself(&self.tokens, self.repeat_stop)
    }

    /// The tokens chosen so far.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }
}

/// Reads `prompt` after what `cache` holds of it (a shared prefix is not
/// read again), then writes `answer` until it chooses one of `stops`, has
/// `max_tokens` tokens, or repeats itself; returns why it ended (nothing
/// written for `max_tokens` 0: `Length`). [`Decoder::read`]'s errors.
pub fn write(
    decoder: &Decoder,
    cache: &mut KvCache,
    prompt: &[u32],
    answer: &mut Answer,
    max_tokens: usize,
    stops: &[u32],
) -> Result<Finish> {
    let kept = cache.keep_prefix_of(prompt);
    let mut logits = decoder.read(&prompt[kept..], cache)?;
    while answer.tokens().len() < max_tokens {
        let token = answer.pick(&logits);
        if stops.contains(&token) {
            return Ok(Finish::Stop);
        }
        if answer.repeats() {
            return Ok(Finish::Repetition);
        }
        if answer.tokens().len() < max_tokens {
            logits = decoder.read(&[token], cache)?;
        }
    }
    Ok(Finish::Length)
}
