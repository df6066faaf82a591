//! Calibrating the token estimate to the model: after each call the
//! provider counted, the ratio of its input tokens to Lectern's estimate of
//! the same request is kept (smoothed, clamped to 0.5–3), and budgets and
//! `modelProfile.contextLength` scale the estimate by it. Usage marked
//! `estimated` stays Lectern's own count, uncalibrated.

use std::cell::Cell;

use crate::domain::Usage;

/// The smallest and largest ratio kept: beyond them the count is more
/// likely wrong (a cached prompt, a provider quirk) than the estimate.
const RATIO_RANGE: (f64, f64) = (0.5, 3.0);
/// Weight of the newest ratio against the one kept.
const NEWEST_WEIGHT: f64 = 0.5;
/// Requests smaller than this teach nothing (fixed overheads dominate).
const MIN_ESTIMATE: usize = 64;

/// The kept ratio of real to estimated input tokens for one model.
#[derive(Debug, Default)]
pub struct Calibration {
    ratio: Cell<Option<f64>>,
}

impl Calibration {
    /// Learns from one call: `usage` as the provider reported it for a
    /// request estimated at `estimated` tokens. Estimated usage is ignored.
    pub fn learn(&self, usage: &Usage, estimated: usize) {
        if usage.estimated || estimated < MIN_ESTIMATE || usage.input_tokens == 0 {
            return;
        }
        let seen = (usage.input_tokens as f64 / estimated as f64).clamp(RATIO_RANGE.0, RATIO_RANGE.1);
        let next = match self.ratio.get() {
            None => seen,
            Some(kept) => kept + NEWEST_WEIGHT * (seen - kept),
        };
        self.ratio.set(Some(next));
    }

    /// The kept ratio (1 until a call was counted by the provider).
    pub fn ratio(&self) -> f64 {
        self.ratio.get().unwrap_or(1.0)
    }

    /// `estimated` tokens in the model's own count.
    pub fn scale(&self, estimated: usize) -> usize {
        (estimated as f64 * self.ratio()).ceil() as usize
    }

    /// What the estimate may reach so that, in the model's count, it stays within `limit`.
    pub fn room(&self, limit: usize) -> usize {
        (limit as f64 / self.ratio()).floor() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(input_tokens: u64) -> Usage {
        Usage {
            input_tokens,
            ..Usage::default()
        }
    }

    #[test]
    fn it_learns_smoothly_within_bounds_and_ignores_estimates() {
        let calibration = Calibration::default();
        assert_eq!(
            (calibration.ratio(), calibration.scale(100), calibration.room(100)),
            (1.0, 100, 100)
        );
        calibration.learn(&reported(300), 200);
        assert_eq!(calibration.ratio(), 1.5);
        calibration.learn(&reported(200), 200);
        assert_eq!(calibration.ratio(), 1.25, "halfway to the newest");
        assert_eq!((calibration.scale(100), calibration.room(100)), (125, 80));
        calibration.learn(&reported(10_000), 100);
        assert_eq!(calibration.ratio(), 1.25 + 0.5 * (3.0 - 1.25), "clamped to 3");
        let before = calibration.ratio();
        calibration.learn(
            &Usage {
                estimated: true,
                ..reported(1)
            },
            1_000,
        );
        calibration.learn(&reported(5), 10);
        assert_eq!(
            calibration.ratio(),
            before,
            "estimated usage and tiny requests teach nothing"
        );
    }
}
