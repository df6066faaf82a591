//! llama.cpp's repetition penalty (`penalty_repeat` over `penalty_last_n`
//! tokens): each distinct token among the last `last_n` of the answer has its
//! logit divided by the penalty when positive and multiplied by it when not,
//! so a token already written is less likely to be written again.
//!
//! llama.cpp's own default is 1.0 (off; it was 1.1 before 2024), over the
//! last 64 tokens. Lectern's chat default (`localProvider` in `js/local.js`)
//! is [`RepeatPenalty::CHAT`]: 1.1 over the last 64 tokens of the answer.
//! Two choices differ from llama.cpp's server: the window holds only the
//! answer's tokens, not the prompt's (a reader's answer may quote its
//! passages), and the tokens that end an answer are never penalised.

/// How much tokens already written are held back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RepeatPenalty {
    penalty: f32,
    last_n: usize,
}

impl Default for RepeatPenalty {
    fn default() -> Self {
        RepeatPenalty::OFF
    }
}

impl RepeatPenalty {
    /// No penalty (llama.cpp's current default).
    pub const OFF: RepeatPenalty = RepeatPenalty {
        penalty: 1.0,
        last_n: 64,
    };

    /// Lectern's chat default: 1.1 over the last 64 tokens (llama.cpp's
    /// default before 2024).
    pub const CHAT: RepeatPenalty = RepeatPenalty {
        penalty: 1.1,
        last_n: 64,
    };

    /// `penalty` (1: off; one that is not a positive finite number is read
    /// as 1) over the last `last_n` tokens (0: off).
    pub fn new(penalty: f32, last_n: usize) -> Self {
        let penalty = if penalty.is_finite() && penalty > 0.0 {
            penalty
        } else {
            1.0
        };
        RepeatPenalty { penalty, last_n }
    }

    /// Whether it changes nothing.
    pub fn is_off(&self) -> bool {
        self.penalty == 1.0 || self.last_n == 0
    }

    /// How many of the latest tokens it looks at.
    pub fn last_n(&self) -> usize {
        self.last_n
    }

    /// Applies the penalty to `logits` for each distinct token among the
    /// last `last_n` of `written` (ids outside `logits` and those in `exempt`
    /// left alone), as llama.cpp's `llama_sampler_penalties_apply`: a logit
    /// at or below 0 is multiplied by the penalty, one above 0 divided by it.
    pub fn apply(&self, logits: &mut [f32], written: &[u32], exempt: &[u32]) {
        if self.is_off() {
            return;
        }
        let mut seen: Vec<u32> = written[written.len().saturating_sub(self.last_n)..].to_vec();
        seen.sort_unstable();
        seen.dedup();
        for token in seen {
            if exempt.contains(&token) {
                continue;
            }
            if let Some(logit) = logits.get_mut(token as usize) {
                if *logit <= 0.0 {
                    *logit *= self.penalty;
                } else {
                    *logit /= self.penalty;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RepeatPenalty;

    #[test]
    fn divides_positive_logits_and_multiplies_the_others_once_per_distinct_token() {
        let mut logits = [2.2, -2.0, 0.0, 3.0, 5.0];
        // Token 0 written three times is penalised once; 4 is not written.
        RepeatPenalty::new(1.1, 64).apply(&mut logits, &[0, 1, 0, 2, 0, 3], &[]);
        let expected = [2.2 / 1.1, -2.0 * 1.1, 0.0, 3.0 / 1.1, 5.0];
        for (got, want) in logits.iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "{logits:?}");
        }
    }

    #[test]
    fn looks_only_at_the_last_n_tokens_and_spares_the_exempt_ones() {
        let mut logits = [1.0, 1.0, 1.0, 1.0];
        RepeatPenalty::new(2.0, 2).apply(&mut logits, &[0, 1, 2, 3], &[3]);
        assert_eq!(logits, [1.0, 1.0, 0.5, 1.0]);
    }

    #[test]
    fn off_changes_nothing_and_bad_penalties_are_off() {
        let mut logits = [1.0, -1.0];
        RepeatPenalty::OFF.apply(&mut logits, &[0, 1], &[]);
        RepeatPenalty::new(1.5, 0).apply(&mut logits, &[0, 1], &[]);
        RepeatPenalty::new(f32::NAN, 64).apply(&mut logits, &[0, 1], &[]);
        RepeatPenalty::new(-2.0, 64).apply(&mut logits, &[0, 1, 7], &[]);
        assert_eq!(logits, [1.0, -1.0]);
        assert!(!RepeatPenalty::CHAT.is_off());
    }
}
