//! The Automerge side of issue 50's measurements, natively: build and save the 1,000-message
//! conversation, load it, merge a day offline (the sync protocol, and the in-memory `merge()`),
//! the saved sizes, what the CRDT does with one message id appended on two devices, and hostile
//! input. Prints human lines and `FIGURE sync_automerge_* native <value>` lines
//! (scripts/bench-results.mjs).

use automerge::{AutoCommit, AutomergeError};
use std::collections::HashSet;
use sync_bench_automerge::scenario::{
    bit_flipped, garbage, truncated, MESSAGES, OFFLINE_MESSAGES, OFFLINE_POSITIONS,
};
use sync_bench_automerge::{append, build, diverged_pair, ids, load, position, sync_pair, Result};

#[path = "../../../measure.rs"]
mod measure;

use measure::{best_of, figure, figure_kb, keep, timed, RUNS};

fn main() -> Result<()> {
    build_and_load()?;
    merge_day_offline()?;
    merge_in_memory()?;
    merged_size()?;
    same_id_on_two_devices()?;
    hostile_input()
}

/// Build + save, the saved sizes, and load.
fn build_and_load() -> Result<()> {
    let (ms, saved) = timed("automerge build 1000 msgs (1 commit each) + save", || {
        build(MESSAGES, 1).map(|mut d| d.save())
    });
    let saved = saved?;
    figure("sync_automerge_build_ms", ms);
    println!("automerge saved 1000-msg doc: {} bytes", saved.len());
    figure_kb("sync_automerge_doc_kb", saved.len());
    keep("automerge-1000.bin", &saved).map_err(|e| AutomergeError::EncodingError(e.to_string()))?;
    let (ms, loaded) = timed("automerge load 1000-msg save", || load(&saved, 2));
    figure("sync_automerge_load_ms", ms);
    println!(
        "automerge save_nocompress 1000-msg doc: {} bytes",
        loaded?.save_nocompress().len()
    );
    Ok(())
}

/// The day-offline pair of `diverged_pair` at the scenario's sizes.
fn day_offline() -> Result<(AutoCommit, AutoCommit)> {
    diverged_pair(MESSAGES, OFFLINE_MESSAGES, OFFLINE_POSITIONS)
}

/// A day offline on two devices, synced with the sync protocol: timed, and checked to converge.
fn merge_day_offline() -> Result<()> {
    let mut best = f64::MAX;
    let (mut bytes, mut messages) = (0, 0);
    for _ in 0..RUNS {
        let (mut a, mut b) = day_offline()?;
        let (ms, exchanged) = best_of(1, || sync_pair(&mut a, &mut b));
        best = best.min(ms);
        (bytes, messages) = exchanged?;
        check_converged(&a, &b)?;
    }
    println!(
        "{:<56} best of {RUNS}: {best:>9.2} ms ({bytes} bytes in {messages} sync msgs)",
        "automerge sync diverged replicas (200+200, 50+50 pos)"
    );
    figure("sync_automerge_merge_ms", best);
    figure_kb("sync_automerge_merge_kb", bytes);
    Ok(())
}

/// Both replicas hold the same 1,400 unique ids in the same order, and the same positions.
/// (A broken invariant of the bench itself: it panics.)
fn check_converged(a: &AutoCommit, b: &AutoCommit) -> Result<()> {
    let (ids_a, ids_b) = (ids(a)?, ids(b)?);
    let expected = (MESSAGES + 2 * OFFLINE_MESSAGES) as usize;
    assert_eq!(ids_a, ids_b, "automerge: the replicas' orders differ");
    assert_eq!(ids_a.len(), expected, "automerge: ids after the merge");
    assert_eq!(
        ids_a.iter().collect::<HashSet<_>>().len(),
        expected,
        "automerge: duplicate ids"
    );
    assert_eq!(
        position(a, "book-0")?,
        position(b, "book-0")?,
        "automerge: the replicas' positions differ"
    );
    Ok(())
}

/// The same pair merged in memory (`AutoCommit::merge`), for comparison with the sync protocol.
fn merge_in_memory() -> Result<()> {
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        let (mut a, mut b) = day_offline()?;
        let (ms, merged) = best_of(1, || a.merge(&mut b));
        best = best.min(ms);
        merged?;
    }
    println!(
        "{:<56} best of {RUNS}: {best:>9.2} ms",
        "automerge in-memory merge() of same diverged pair"
    );
    Ok(())
}

/// The size of the merged 1,400-message document.
fn merged_size() -> Result<()> {
    let (mut a, mut b) = day_offline()?;
    sync_pair(&mut a, &mut b)?;
    println!(
        "automerge merged 1400-msg doc save: {} bytes; order identical, 1400 unique ids",
        a.save().len()
    );
    Ok(())
}

/// The same message id appended on both devices: the CRDT keeps both entries.
fn same_id_on_two_devices() -> Result<()> {
    let mut a = build(10, 1)?;
    let mut b = load(&a.save(), 2)?;
    append(&mut a, 7, 10, 1)?;
    append(&mut b, 7, 10, 1)?;
    sync_pair(&mut a, &mut b)?;
    let all = ids(&a)?;
    let unique = all.iter().collect::<HashSet<_>>().len();
    println!("automerge same msg id appended on both devices -> {} entries, {unique} unique (CRDT does not dedupe)", all.len());
    Ok(())
}

/// Truncated, garbage and bit-flipped documents given to `load_incremental` (it reports `Ok(0)`,
/// nothing loaded), and garbage as a sync message. (A panic aborts the bench: the release profile
/// has `panic = "abort"`.)
fn hostile_input() -> Result<()> {
    let good = build(10, 9)?.save();
    for (what, bad) in [
        ("truncated", truncated(&good)),
        ("garbage", garbage()),
        ("bit-flipped", bit_flipped(&good, 12)),
    ] {
        let mut victim = build(5, 1)?;
        let before = victim.save();
        let result = victim.load_incremental(&bad).map_err(|e| e.to_string());
        println!(
            "automerge {what} doc -> {result:?}; doc unchanged: {}",
            victim.save() == before
        );
    }
    let decoded = automerge::sync::Message::decode(&garbage())
        .map(|_| ())
        .map_err(|e| e.to_string());
    println!("automerge garbage sync msg -> {decoded:?}");
    Ok(())
}
