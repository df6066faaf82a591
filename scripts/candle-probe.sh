#!/usr/bin/env bash
# Issue 32's first measurement: builds bench/candle-probe (candle's quantized Llama for wasm32 with
# simd128; its own workspace, never part of the package), makes Q4_0 and Q8_0 copies of SmolLM2's
# Q4_1 GGUF beside it in ~/.cache/lectern (scripts/requant-gguf.py, with PyPI's gguf and numpy in a
# venv there), and times candle and wllama on each in headless Chromium (benches/candle_probe.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."

model=$(bash scripts/fetch-smollm2.sh | tail -n 1)
case "$model" in LECTERN_SMOLLM2=*) model=${model#LECTERN_SMOLLM2=} ;; *) echo "$model"; exit 0 ;; esac
venv="$HOME/.cache/lectern/venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import gguf, numpy' 2>/dev/null || "$venv/bin/pip" -q install gguf numpy
copies=()
for quant in Q4_0 Q8_0; do
  copy="${model%.Q4_1.gguf}.$quant.gguf"
  [ -f "$copy" ] || "$venv/bin/python" scripts/requant-gguf.py "$model" "$copy" "$quant" >/dev/null
  copies+=("$copy")
done

(cd bench/candle-probe && cargo build --release --target wasm32-unknown-unknown --quiet)
wasm-bindgen --target web --out-dir bench/candle-probe/pkg \
  bench/candle-probe/target/wasm32-unknown-unknown/release/candle_probe.wasm
node benches/candle_probe.mjs bench/candle-probe/pkg "$model" "${copies[@]}"
