#!/usr/bin/env bash
# `npm run fuzz`: coverage-guided fuzzing (cargo fuzz, libFuzzer, nightly) of
# every parser that reads outside input. Each target runs until FUZZ_RUNS
# cases (default 1,000,000) or FUZZ_SECONDS seconds (default 600), whichever
# comes first, and prints its runs, cases per second and findings. A crash's
# input is copied to tests/fixtures/fuzz-regressions/<target>/, which
# `cargo test` (tests/native_fuzz_regressions.rs) replays on stable.
#
#   npm run fuzz                          every target
#   npm run fuzz -- sse_parser epub       some targets
#   FUZZ_SECONDS=60 npm run fuzz          a time budget per target
#
# Installs the nightly toolchain and cargo-fuzz when they are missing; `npm
# test` itself stays on stable. Exits non-zero if any target found something.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${FUZZ_RUNS:-1000000}
seconds=${FUZZ_SECONDS:-600}
# FUZZ_KEEP_GOING=1: go on past crashes (libFuzzer fork mode) to find the
# ones behind the first; the time budget then bounds the run.
keep_going=()
if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
  keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "installing the nightly toolchain (for cargo fuzz only)"
  rustup toolchain install nightly --profile minimal || exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo +nightly install cargo-fuzz --locked || exit 1
fi

cd fuzz
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
# No sanitizer: the code under test is safe Rust (debug assertions and
# overflow checks are on, see fuzz/Cargo.toml), and ASan would halve the runs.
cargo +nightly fuzz build -s none || exit 1

# Seeds: fuzz/seeds/<target>/, plus the recorded streams and EPUB files under
# tests/fixtures, each behind the control bytes its target reads first.
seed() {
  local target=$1 control=$2; shift 2
  for file in "$@"; do
    [ -f "$file" ] || continue
    { printf "$control"; cat "$file"; } >"corpus/$target/seed-$(basename "$file")"
  done
}

found_any=0
printf '\n%-18s %12s %10s %8s  %s\n' target runs cases/s corpus found
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target" "artifacts/$target" "seeds/$target"
  case $target in
    sse_parser) seed "$target" '\x40\xbf\x80' ../tests/fixtures/openai/*.sse ../tests/fixtures/anthropic/*.sse ;;
    openai_stream) seed "$target" '\x40\xbf' ../tests/fixtures/openai/*.sse ;;
    anthropic_stream) seed "$target" '\x40\xbf' ../tests/fixtures/anthropic/*.sse ;;
    epub) seed "$target" '\x00\xc8' ../tests/fixtures/epub/*.epub ;;
  esac
  log="artifacts/$target/last-run.log"
  marker=$(mktemp)
  cargo +nightly fuzz run -s none "$target" "corpus/$target" "seeds/$target" -- \
    -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 "${keep_going[@]}" >"$log" 2>&1
  status=$?
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ -z "$executed" ]; then
    executed=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  fi
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  findings=()
  while IFS= read -r artifact; do
    findings+=("$(basename "$artifact")")
    mkdir -p "../tests/fixtures/fuzz-regressions/$target"
    cp "$artifact" "../tests/fixtures/fuzz-regressions/$target/"
  done < <(find "artifacts/$target" -type f -newer "$marker" \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \))
  rm -f "$marker"
  if [ ${#findings[@]} -gt 0 ]; then
    found_any=1
    summary="FOUND ${findings[*]} (copied to tests/fixtures/fuzz-regressions/$target/; log: fuzz/$log)"
    # Each distinct place that panicked, with how often, and the first message.
    grep -a -o 'panicked at [^ ]*' "$log" | sort | uniq -c | sed 's/^/    /' >&2
    grep -a -m1 -A1 'panicked at' "$log" | tail -1 | sed 's/^/      /' >&2
  elif [ $status -ne 0 ]; then
    found_any=1
    summary="FAILED (exit $status, no artifact; log: fuzz/$log)"
  else
    summary="nothing"
  fi
  printf '%-18s %12s %10s %8s  %s\n' "$target" "${executed:-?}" "${rate:-?}" "${corpus:-?}" "$summary"
done
exit $found_any
