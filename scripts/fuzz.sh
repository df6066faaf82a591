#!/usr/bin/env bash
# `npm run fuzz`: coverage-guided fuzzing (cargo fuzz, libFuzzer, nightly) of
# every parser that reads outside input. Each target runs until FUZZ_RUNS
# cases (default 1,000,000) or FUZZ_SECONDS seconds (default 600), whichever
# comes first, and prints its runs, cases per second and findings. A crash's
# input is copied to tests/fixtures/fuzz-regressions/<target>/, which
# `cargo test` (tests/native/fuzz_regressions.rs) replays on stable.
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
export CARGO_TARGET_DIR=$PWD/target
bin_dir=$CARGO_TARGET_DIR/$(rustc +nightly -vV | sed -n 's/^host: //p')/release
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
# No sanitizer: the code under test is safe Rust (debug assertions and
# overflow checks are on, see fuzz/Cargo.toml), and ASan would halve the runs.
# `-O`: fuzz/Cargo.toml's release profile decides the checks (debug assertions and overflow checks
# on, but off for yrs, which ships without them); cargo fuzz's default build would force them on in
# every crate through RUSTFLAGS.
cargo +nightly fuzz build -O -s none || exit 1

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
  started=$SECONDS
  cargo +nightly fuzz run -O -s none "$target" "corpus/$target" "seeds/$target" -- \
    -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 "${keep_going[@]}" >"$log" 2>&1
  status=$?
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ -z "$executed" ]; then
    executed=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  fi
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ -z "$rate" ] || [ "$rate" = 0 ]; then
    rate=$(( ${executed:-0} / (SECONDS - started > 0 ? SECONDS - started : 1) ))
  fi
  corpus=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  # One input per distinct failure (where it panicked, or timeout/oom), replayed
  # one by one: fork mode (FUZZ_KEEP_GOING) finds the same failure many times.
  declare -A first=() count=()
  while IFS= read -r artifact; do
    site=$("$bin_dir/$target" "$artifact" 2>&1 | grep -a -m1 -o 'panicked at [^ ]*' | sed 's/panicked at //; s/:$//')
    site=${site:-$(basename "$artifact" | cut -d- -f1)}
    count[$site]=$(( ${count[$site]:-0} + 1 ))
    [ -n "${first[$site]:-}" ] || first[$site]=$artifact
  done < <(find "artifacts/$target" -type f -newer "$marker" \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort)
  rm -f "$marker"
  if [ ${#first[@]} -gt 0 ]; then
    found_any=1
    mkdir -p "../tests/fixtures/fuzz-regressions/$target"
    summary="FOUND ${#first[@]} distinct (inputs in tests/fixtures/fuzz-regressions/$target/; log: fuzz/$log):"
    for site in "${!first[@]}"; do
      cp "${first[$site]}" "../tests/fixtures/fuzz-regressions/$target/"
      message=$("$bin_dir/$target" "${first[$site]}" 2>&1 | grep -a -m1 -A1 'panicked at' | tail -1)
      summary+=$'\n'"    ${count[$site]} × $site: $(basename "${first[$site]}")"$'\n'"        $message"
    done
  elif [ $status -ne 0 ]; then
    found_any=1
    summary="FAILED (exit $status, no artifact; log: fuzz/$log)"
  else
    summary="nothing"
  fi
  unset first count
  printf '%-18s %12s %10s %8s  %s\n' "$target" "${executed:-?}" "${rate:-?}" "${corpus:-?}" "$summary"
done
exit $found_any
