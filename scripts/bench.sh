#!/usr/bin/env bash
# `npm run bench`: benchmarks that print figures (not timed tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test

printf '\n== SSE parse throughput, native\n'
cargo bench --bench sse_throughput 2>/dev/null | grep -v '^\s*$'

printf '\n== Retrieval, native\n'
cargo bench --bench retrieval 2>/dev/null | grep -v '^\s*$'

printf '\n== Context per step, native\n'
cargo bench --bench context 2>/dev/null | grep -v '^\s*$'

printf '\n== addBook of 1.3 MB: the page'"'"'s longest task, with the worker and in the page (headless Chromium)\n'
bash scripts/build.sh >/dev/null
node benches/longtask.mjs "$(cd .. && pwd)/shared/fixtures/books/chesterton-thursday.txt"

printf '\n== SSE parse throughput, retrieval and context per step, wasm in headless Chromium\n'
fixtures="$(cd .. && pwd)/shared/fixtures"
log=$(mktemp)
LECTERN_FIXTURES_DIR="$fixtures" node tests/mock-server/server.mjs --port 0 >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q '^MOCK_URL=' "$log" && break; sleep 0.1; done
WASM_BINDGEN_TEST_TIMEOUT=900 LECTERN_FIXTURES_URL="$(sed -n 's/^MOCK_URL=//p' "$log")/fixtures" \
  CHROMEDRIVER="$(command -v chromedriver)" \
  cargo test --release --target wasm32-unknown-unknown --test web_bench -- --include-ignored --nocapture 2>/dev/null \
  | grep -E 'MB/s|throughput|Retrieval|corpus|vectors|exact|HNSW|snapshot|cold start|IndexedDB|[Cc]ontext|SKIPPED'
