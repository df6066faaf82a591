//! The proptest configuration the property-test files share: a case count
//! that `PROPTEST_CASES` overrides, and no persisted failures (the fuzz
//! regressions are kept under `tests/fixtures/fuzz-regressions` instead).

use proptest::prelude::ProptestConfig;

/// `cases` unless `PROPTEST_CASES` says otherwise.
pub fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}
