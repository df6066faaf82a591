#!/usr/bin/env bash
# `npm run test:real`: the built package in headless Chromium against a real llama.cpp
# llama-server on 127.0.0.1 serving SmolLM2-135M-Instruct (tests/real/). Not part of `npm test`:
# the first run builds llama-server from source (several minutes on 2 cores; cached after). Each
# test skips with the SKIPPED line of a fetch script when the server or the model cannot be had.
#
#   LECTERN_REAL_NO_BUILD=1 npm run test:real    keep pkg/ as it is (no release build first)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh test
if [ -z "${LECTERN_REAL_NO_BUILD:-}" ] || [ ! -f pkg/lectern.js ]; then
  printf '\n== release package (pkg/)\n'
  bash scripts/build.sh
fi

printf '\n== SmolLM2-135M-Instruct and llama-server (cached outside the repo)\n'
smollm2=$(bash scripts/fetch-smollm2.sh | tail -n 1)
echo "$smollm2"
case "$smollm2" in LECTERN_SMOLLM2=*) export "${smollm2?}" ;; esac
server=$(bash scripts/fetch-llama-server.sh | tail -n 1)
echo "$server"
case "$server" in LECTERN_LLAMA_SERVER=*) export "${server?}" ;; esac

printf '\n== tests/real/ against llama-server\n'
# One file at a time: each starts its own llama-server, and two would share the cores.
node --test --test-concurrency=1 tests/real/
