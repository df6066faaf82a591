//! Every input a fuzz target ever crashed on (`npm run fuzz` copies each to
//! `tests/fixtures/fuzz-regressions/<target>/`) is replayed here, on stable,
//! through the same property (`tests/fuzz_props`): each must now pass.

use crate::support::fuzz_props;

use std::path::Path;

#[test]
fn every_recorded_crash_now_keeps_its_property() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz-regressions");
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return; // No crash was ever recorded.
    };
    let mut failures = Vec::new();
    let mut replayed = 0;
    for dir in dirs.map(|d| d.expect("readable directory")) {
        let name = dir.file_name().to_string_lossy().into_owned();
        let Some((_, property)) = fuzz_props::TARGETS.iter().find(|(t, _)| *t == name) else {
            panic!("tests/fixtures/fuzz-regressions/{name} names no fuzz target");
        };
        for file in std::fs::read_dir(dir.path())
            .expect("readable")
            .map(|f| f.expect("entry").path())
        {
            let input = std::fs::read(&file).expect("readable fixture");
            replayed += 1;
            if std::panic::catch_unwind(|| property(&input)).is_err() {
                failures.push(file.display().to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {replayed} regressions fail: {failures:#?}",
        failures.len()
    );
}
