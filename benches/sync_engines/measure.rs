//! Timing and printing for the two bench binaries (each includes this file with `#[path]`).

use std::time::Instant;

/// Runs of each timed step; the best is reported (the machine is shared).
pub const RUNS: u32 = 5;

/// The best wall time of `runs` calls of `f` in milliseconds, and the last call's result.
pub fn best_of<R>(runs: u32, mut f: impl FnMut() -> R) -> (f64, R) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let result = f();
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        last = Some(result);
    }
    (best, last.expect("runs > 0"))
}

/// `f` timed as [`best_of`] with a human line `label  best of N: … ms`; returns the result.
pub fn timed<R>(label: &str, f: impl FnMut() -> R) -> (f64, R) {
    let (ms, result) = best_of(RUNS, f);
    println!("{label:<56} best of {RUNS}: {ms:>9.2} ms");
    (ms, result)
}

/// A figure line for scripts/bench-results.mjs: `FIGURE <id> native <value>`.
pub fn figure(id: &str, value: f64) {
    println!("FIGURE {id} native {value:.3}");
}

/// A byte count as a figure in KB (1,000 bytes, as scripts/sizes.mjs counts).
pub fn figure_kb(id: &str, bytes: usize) {
    figure(id, bytes as f64 / 1000.0);
}

/// Writes `bytes` as `<dir>/<name>` when the bench was given a directory (its first argument):
/// run.sh gzips the documents written there. Without one, nothing is written.
pub fn keep(name: &str, bytes: &[u8]) -> std::io::Result<()> {
    match std::env::args_os().nth(1) {
        Some(dir) => std::fs::write(std::path::Path::new(&dir).join(name), bytes),
        None => Ok(()),
    }
}
