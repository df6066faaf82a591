#!/usr/bin/env bash
# Builds the release package into pkg/ — two wasm modules from this crate —
# and prints the sizes of every shipped file:
#   lectern.js + lectern_bg.wasm                 the page's module (feature `page`)
#   lectern_ingest.js + lectern_ingest_bg.wasm   the ingestion module (feature `ingest`),
#                                                run by lectern_worker.js or, without a
#                                                worker, loaded into the page on demand
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release"
rm -rf pkg
build_module() { # <feature> <out-name> [wasm-bindgen flags…]
  local feature=$1 name=$2
  shift 2
  cargo build --release --target wasm32-unknown-unknown --lib --no-default-features --features "$feature"
  wasm-bindgen --target web --weak-refs --out-dir pkg --out-name "$name" "$@" "$target/lectern.wasm"
}
build_module page lectern
build_module ingest lectern_ingest --no-typescript
# The ingestion worker's entry, beside lectern.js (it imports ./lectern_ingest.js).
cp src/wasm/js/lectern_worker.js pkg/lectern_worker.js
# The wllama adapter (import 'lectern/wllama'): plain JS, no wasm.
cp js/wllama.js pkg/lectern_wllama.js
cp js/wllama.d.ts pkg/lectern_wllama.d.ts
# The <lectern-chat> widget (import 'lectern/chat'): plain JS modules, no wasm.
cp -r js/chat pkg/chat
# binaryen from npm: Debian's wasm-opt (108) corrupts wasm-bindgen's externref table.
wasm_opt=node_modules/.bin/wasm-opt
for wasm in pkg/lectern_bg.wasm pkg/lectern_ingest_bg.wasm; do
  if [ -x "$wasm_opt" ]; then
    "$wasm_opt" -Os --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int --enable-simd \
      --enable-sign-ext --enable-mutable-globals --enable-reference-types \
      "$wasm" -o "$wasm"
    optimised="(wasm-opt -Os)"
  else
    optimised="(not optimised: run npm install for wasm-opt)"
  fi
  printf '%s: %d bytes raw, %d bytes gzip %s\n' "$wasm" "$(wc -c < "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)" "$optimised"
done
# Every shipped file (package.json "files"): raw, gzip -9 and brotli q11 (node's zlib);
# SIZES_OUT=path also writes the table there.
node scripts/sizes.mjs ${SIZES_OUT:+"$SIZES_OUT"}
