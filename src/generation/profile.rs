//! Where a decoder's time goes: the wall time of each stage of reading
//! tokens, summed over reads, when the decoder is given a clock
//! ([`crate::generation::Decoder::set_clock`]). Without one nothing is timed.
//! The stages are laps: each is charged the time since the previous one
//! ended, so together they cover the whole read.

/// A stage of reading tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Token embeddings, RMS norms, and each token's input quantised for the next products.
    NormsAndQuantising,
    /// The query, key, value and attention-output matrix products (and the residual add).
    AttentionProducts,
    /// Query and key norms (Gemma 3), rotary positions, keys and values into the cache.
    PositionsAndCache,
    /// Each token's attention over the positions it sees.
    Attention,
    /// The feed-forward network's gate, up and down products (and the residual add).
    FeedForwardProducts,
    /// SwiGLU or GeGLU.
    Activation,
    /// The final norm and the output layer's logits for the last token.
    Logits,
}

impl Stage {
    /// Every stage, in the order they run.
    pub const ALL: [Stage; 7] = [
        Stage::NormsAndQuantising,
        Stage::AttentionProducts,
        Stage::PositionsAndCache,
        Stage::Attention,
        Stage::FeedForwardProducts,
        Stage::Activation,
        Stage::Logits,
    ];

    /// Its name in reports (camelCase, as the browser's `read` message carries it).
    pub fn name(self) -> &'static str {
        match self {
            Stage::NormsAndQuantising => "normsAndQuantising",
            Stage::AttentionProducts => "attentionProducts",
            Stage::PositionsAndCache => "positionsAndCache",
            Stage::Attention => "attention",
            Stage::FeedForwardProducts => "feedForwardProducts",
            Stage::Activation => "activation",
            Stage::Logits => "logits",
        }
    }
}

/// A clock in milliseconds (`performance.now` in the browser).
pub type Clock = fn() -> f64;

/// Milliseconds per stage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    ms: [f64; Stage::ALL.len()],
}

impl StageTimes {
    /// The milliseconds charged to `stage`.
    pub fn of(&self, stage: Stage) -> f64 {
        self.ms[stage as usize]
    }

    /// All stages' milliseconds.
    pub fn total(&self) -> f64 {
        self.ms.iter().sum()
    }

    /// Each stage with its milliseconds, in [`Stage::ALL`]'s order.
    pub fn each(&self) -> impl Iterator<Item = (Stage, f64)> + '_ {
        Stage::ALL.iter().map(|s| (*s, self.of(*s)))
    }

    /// Adds `other`'s times to these.
    pub fn add(&mut self, other: &StageTimes) {
        for (mine, theirs) in self.ms.iter_mut().zip(other.ms) {
            *mine += theirs;
        }
    }
}

/// The laps of one read: a no-op without a clock.
pub(crate) struct Laps {
    clock: Option<Clock>,
    last: f64,
    times: StageTimes,
}

impl Laps {
    /// Starts timing now (when there is a clock).
    pub fn start(clock: Option<Clock>) -> Self {
        Laps {
            last: clock.map_or(0.0, |now| now()),
            clock,
            times: StageTimes::default(),
        }
    }

    /// Charges the time since the last lap (or the start) to `stage`.
    pub fn lap(&mut self, stage: Stage) {
        if let Some(now) = self.clock {
            let at = now();
            self.times.ms[stage as usize] += at - self.last;
            self.last = at;
        }
    }

    /// The times charged so far.
    pub fn times(&self) -> &StageTimes {
        &self.times
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local!(static NOW: Cell<f64> = const { Cell::new(0.0) });

    /// A clock that advances one millisecond each time it is read.
    fn ticking() -> f64 {
        NOW.with(|n| {
            n.set(n.get() + 1.0);
            n.get()
        })
    }

    #[test]
    fn each_lap_is_charged_the_time_since_the_last_one() {
        let mut laps = Laps::start(Some(ticking));
        laps.lap(Stage::Attention);
        laps.lap(Stage::Attention);
        laps.lap(Stage::Logits);
        let times = laps.times();
        assert_eq!(times.of(Stage::Attention), 2.0);
        assert_eq!(times.of(Stage::Logits), 1.0);
        assert_eq!(times.total(), 3.0);
    }

    #[test]
    fn without_a_clock_nothing_is_timed() {
        let mut laps = Laps::start(None);
        laps.lap(Stage::Attention);
        assert_eq!(laps.times().total(), 0.0);
    }
}
