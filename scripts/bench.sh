#!/usr/bin/env bash
# `npm run bench`: benchmarks that print figures (not timed tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test

printf '\n== SSE parse throughput, native\n'
cargo bench --bench sse_throughput 2>/dev/null | grep -v '^\s*$'

printf '\n== SSE parse throughput, wasm in headless Chromium\n'
CHROMEDRIVER="$(command -v chromedriver)" \
  cargo test --release --target wasm32-unknown-unknown --test web_bench -- --include-ignored --nocapture 2>/dev/null \
  | grep -E 'MB/s|SSE throughput'
