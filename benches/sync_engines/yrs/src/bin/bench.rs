//! The yrs side of issue 50's measurements, natively: build and encode the 1,000-message
//! conversation, load it, merge a day offline, the encoded sizes, what the CRDT does with one
//! message id appended on two devices, and hostile updates. Prints human lines and
//! `FIGURE sync_yrs_* native <value>` lines (scripts/bench-results.mjs).

use std::collections::HashSet;
use sync_bench_yrs::scenario::{
    bit_flipped, garbage, truncated, MESSAGES, OFFLINE_MESSAGES, OFFLINE_POSITIONS,
};
use sync_bench_yrs::{
    append, apply, build, diverged_pair, encode_full, encode_full_v2, ids, load, position, state_vector,
    sync_pair,
};
use yrs::Doc;

#[path = "../../../measure.rs"]
mod measure;

use measure::{figure, figure_kb, keep, timed, RUNS};

fn main() -> Result<(), String> {
    build_and_load()?;
    merge_day_offline()?;
    merged_size()?;
    same_id_on_two_devices()?;
    hostile_updates();
    Ok(())
}

/// Build + encode, the encoded sizes, and load.
fn build_and_load() -> Result<(), String> {
    let (ms, encoded) = timed("yrs build 1000 msgs (1 txn each) + encode v1", || {
        encode_full(&build(MESSAGES, 1))
    });
    figure("sync_yrs_build_ms", ms);
    println!("yrs encoded 1000-msg doc v1: {} bytes", encoded.len());
    figure_kb("sync_yrs_doc_kb", encoded.len());
    keep("yrs-1000.bin", &encoded).map_err(|e| e.to_string())?;
    let (ms, loaded) = timed("yrs load (apply) 1000-msg update into empty doc", || {
        load(&encoded, 2)
    });
    figure("sync_yrs_load_ms", ms);
    println!(
        "yrs encoded 1000-msg doc v2: {} bytes",
        encode_full_v2(&loaded?).len()
    );
    Ok(())
}

/// A day offline on two devices, synced both ways: timed, and checked to converge.
fn merge_day_offline() -> Result<(), String> {
    let mut best = f64::MAX;
    let mut bytes = 0;
    for _ in 0..RUNS {
        let (a, b) = diverged_pair(MESSAGES, OFFLINE_MESSAGES, OFFLINE_POSITIONS)?;
        let (ms, exchanged) = measure::best_of(1, || sync_pair(&a, &b));
        best = best.min(ms);
        bytes = exchanged?;
        check_converged(&a, &b)?;
    }
    println!(
        "{:<56} best of {RUNS}: {best:>9.2} ms ({bytes} bytes exchanged)",
        "yrs sync diverged replicas (200+200 msgs, 50+50 pos)"
    );
    figure("sync_yrs_merge_ms", best);
    figure_kb("sync_yrs_merge_kb", bytes);
    Ok(())
}

/// Both replicas hold the same 1,400 unique ids in the same order, and the same positions.
fn check_converged(a: &Doc, b: &Doc) -> Result<(), String> {
    let (ids_a, ids_b) = (ids(a), ids(b));
    let expected = (MESSAGES + 2 * OFFLINE_MESSAGES) as usize;
    if ids_a != ids_b {
        return Err("yrs: the replicas' orders differ".into());
    }
    if ids_a.len() != expected || ids_a.iter().collect::<HashSet<_>>().len() != expected {
        return Err(format!(
            "yrs: {} ids after the merge, {expected} expected, all unique",
            ids_a.len()
        ));
    }
    if position(a, "book-0") != position(b, "book-0") {
        return Err("yrs: the replicas' positions differ".into());
    }
    Ok(())
}

/// The size of the merged 1,400-message document.
fn merged_size() -> Result<(), String> {
    let (a, b) = diverged_pair(MESSAGES, OFFLINE_MESSAGES, OFFLINE_POSITIONS)?;
    sync_pair(&a, &b)?;
    println!(
        "yrs merged 1400-msg doc v1: {} bytes; order identical, 1400 unique ids",
        encode_full(&a).len()
    );
    Ok(())
}

/// The same message id appended on both devices: the CRDT keeps both entries.
fn same_id_on_two_devices() -> Result<(), String> {
    let a = build(10, 1);
    let b = load(&encode_full(&a), 2)?;
    append(&a, 7, 10, 1);
    append(&b, 7, 10, 1);
    sync_pair(&a, &b)?;
    let all = ids(&a);
    let unique = all.iter().collect::<HashSet<_>>().len();
    println!(
        "yrs same msg id appended on both devices -> {} entries, {unique} unique (CRDT does not dedupe)",
        all.len()
    );
    Ok(())
}

/// Truncated, garbage and bit-flipped updates: each should be an `Err` that leaves the document
/// as it was. (A panic aborts the bench: the release profile has `panic = "abort"`.)
fn hostile_updates() {
    let good = encode_full(&build(10, 9));
    for (what, bad) in [
        ("truncated", truncated(&good)),
        ("garbage", garbage()),
        ("bit-flipped", bit_flipped(&good, 3)),
    ] {
        let victim = build(5, 1);
        let (before, sv_before) = (encode_full(&victim), state_vector(&victim));
        let result = apply(&victim, &bad);
        let unchanged = encode_full(&victim) == before && state_vector(&victim) == sv_before;
        println!(
            "yrs {what} update -> {:?}; doc unchanged: {unchanged}",
            result.err()
        );
    }
}
