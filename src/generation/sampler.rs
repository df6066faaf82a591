//! The next token from a model's logits: the most likely one (temperature 0,
//! the default), or one drawn from the softmax at a temperature, kept to the
//! smallest set of tokens whose probabilities reach `top_p` (nucleus sampling),
//! with a seeded generator so a seed replays its answer; before either, a
//! [`RepeatPenalty`] (off unless asked for) holds back the tokens it has
//! already chosen.

use super::ops::argmax;
use super::penalty::RepeatPenalty;

/// How the next token is chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampler {
    temperature: f32,
    top_p: f32,
    state: u64,
    penalty: RepeatPenalty,
    /// The tokens it chose, the last `penalty.last_n()` of them.
    chosen: Vec<u32>,
    /// Tokens never penalised (those that end an answer).
    exempt: Vec<u32>,
    /// The penalised logits' room, reused.
    scratch: Vec<f32>,
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler::greedy()
    }
}

impl Sampler {
    /// Always the most likely token.
    pub fn greedy() -> Self {
        Sampler {
            temperature: 0.0,
            top_p: 1.0,
            state: 1,
            penalty: RepeatPenalty::OFF,
            chosen: Vec::new(),
            exempt: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Draws at `temperature` (0 or less: greedy) from the nucleus of `top_p`
    /// (clamped to 0..=1; 0 keeps only the most likely token), seeded by `seed`.
    pub fn new(temperature: f32, top_p: f32, seed: u64) -> Self {
        Sampler {
            temperature: if temperature.is_finite() { temperature } else { 0.0 },
            top_p: if top_p.is_nan() {
                1.0
            } else {
                top_p.clamp(0.0, 1.0)
            },
            // xorshift's state must not be zero.
            state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            ..Sampler::greedy()
        }
    }

    /// This sampler with `penalty` applied to the tokens it chooses from now
    /// on, except `exempt` ones (the tokens that end an answer).
    pub fn with_penalty(mut self, penalty: RepeatPenalty, exempt: &[u32]) -> Self {
        self.penalty = penalty;
        self.exempt = exempt.to_vec();
        self
    }

    /// The next token for `logits`, after the penalty for the tokens it chose before.
    pub fn pick(&mut self, logits: &[f32]) -> u32 {
        let token = if self.penalty.is_off() || self.chosen.is_empty() {
            self.choose(logits)
        } else {
            let mut penalised = std::mem::take(&mut self.scratch);
            penalised.clear();
            penalised.extend_from_slice(logits);
            self.penalty.apply(&mut penalised, &self.chosen, &self.exempt);
            let token = self.choose(&penalised);
            self.scratch = penalised;
            token
        };
        if !self.penalty.is_off() {
            if self.chosen.len() == self.penalty.last_n() {
                self.chosen.remove(0);
            }
            self.chosen.push(token);
        }
        token
    }

    /// The token drawn (or the most likely) from `logits` as they are.
    fn choose(&mut self, logits: &[f32]) -> u32 {
        if self.temperature <= 0.0 || logits.is_empty() {
            return argmax(logits) as u32;
        }
        let max = logits.iter().fold(f32::NEG_INFINITY, |m, l| m.max(*l));
        let mut weighted: Vec<(f32, u32)> = logits
            .iter()
            .enumerate()
            .map(|(i, l)| (((l - max) / self.temperature).exp(), i as u32))
            .collect();
        weighted.sort_by(|a, b| b.0.total_cmp(&a.0));
        let total: f32 = weighted.iter().map(|w| w.0).sum();
        let mut kept = 0.0;
        let mut nucleus = 0;
        for (weight, _) in &weighted {
            kept += weight;
            nucleus += 1;
            if kept >= self.top_p * total {
                break;
            }
        }
        let mut target = self.uniform() * kept;
        for (weight, token) in &weighted[..nucleus] {
            if target < *weight {
                return *token;
            }
            target -= weight;
        }
        weighted[nucleus - 1].1
    }

    /// A uniform draw in [0, 1) (xorshift64*).
    fn uniform(&mut self) -> f32 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let bits = self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
        bits as f32 / (1u64 << 24) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::Sampler;

    const LOGITS: [f32; 4] = [2.0, 1.0, 0.0, -1.0];

    fn frequencies(mut sampler: Sampler, draws: usize) -> Vec<f64> {
        let mut counts = vec![0usize; LOGITS.len()];
        for _ in 0..draws {
            counts[sampler.pick(&LOGITS) as usize] += 1;
        }
        counts.iter().map(|c| *c as f64 / draws as f64).collect()
    }

    #[test]
    fn temperature_zero_and_a_tiny_nucleus_are_greedy() {
        assert_eq!(Sampler::greedy().pick(&LOGITS), 0);
        assert_eq!(frequencies(Sampler::new(0.0, 1.0, 7), 100), [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(frequencies(Sampler::new(1.0, 0.0, 7), 100), [1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn draws_follow_the_softmax_and_the_nucleus() {
        let exp: Vec<f64> = LOGITS.iter().map(|l| (*l as f64).exp()).collect();
        let sum: f64 = exp.iter().sum();
        let seen = frequencies(Sampler::new(1.0, 1.0, 42), 200_000);
        for (p, q) in exp.iter().map(|e| e / sum).zip(&seen) {
            assert!((p - q).abs() < 0.01, "{seen:?}");
        }
        // top_p 0.8 keeps the first two tokens (0.64 + 0.24 of the mass), renormalised.
        let seen = frequencies(Sampler::new(1.0, 0.8, 42), 100_000);
        assert!(
            (seen[0] - 0.7311).abs() < 0.01 && seen[2] == 0.0 && seen[3] == 0.0,
            "{seen:?}"
        );
    }

    #[test]
    fn the_penalty_turns_greedy_away_from_a_token_it_chose() {
        use super::RepeatPenalty;
        // Each leads the next by less than a tenth: 1.1 lets the next one win.
        let logits = [2.1, 2.0, 1.95];
        let mut plain = Sampler::greedy();
        assert_eq!([plain.pick(&logits), plain.pick(&logits)], [0, 0]);
        let mut held = Sampler::greedy().with_penalty(RepeatPenalty::new(1.1, 64), &[]);
        assert_eq!(
            [held.pick(&logits), held.pick(&logits), held.pick(&logits)],
            [0, 1, 2]
        );
        // An exempt token (the end of the answer) is never held back.
        let mut ends = Sampler::greedy().with_penalty(RepeatPenalty::new(1.1, 64), &[0]);
        assert_eq!([ends.pick(&logits), ends.pick(&logits)], [0, 0]);
        // Only the last `last_n` choices count: after 0 and 1, 0 is free again.
        let mut short = Sampler::greedy().with_penalty(RepeatPenalty::new(1.1, 1), &[]);
        assert_eq!(
            [short.pick(&logits), short.pick(&logits), short.pick(&logits)],
            [0, 1, 0]
        );
    }

    #[test]
    fn a_seed_replays_its_draws() {
        let draws = |seed| {
            let mut s = Sampler::new(0.8, 0.95, seed);
            (0..64).map(|_| s.pick(&LOGITS)).collect::<Vec<_>>()
        };
        assert_eq!(draws(3), draws(3));
        assert_ne!(draws(3), draws(4));
    }
}
