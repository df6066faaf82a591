#!/usr/bin/env bash
# Builds the release wasm package into pkg/ and prints the sizes of every shipped file.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --target wasm32-unknown-unknown --lib
rm -rf pkg
wasm-bindgen --target web --weak-refs --out-dir pkg --out-name lectern \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/lectern.wasm"
# The ingestion worker's entry, beside lectern.js (it imports ./lectern.js).
cp src/wasm/js/lectern_worker.js pkg/lectern_worker.js
# binaryen from npm: Debian's wasm-opt (108) corrupts wasm-bindgen's externref table.
wasm_opt=node_modules/.bin/wasm-opt
if [ -x "$wasm_opt" ]; then
  "$wasm_opt" -Os --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int --enable-simd \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types \
    pkg/lectern_bg.wasm -o pkg/lectern_bg.wasm
  optimised="(wasm-opt -Os)"
else
  optimised="(not optimised: run npm install for wasm-opt)"
fi
raw=$(wc -c < pkg/lectern_bg.wasm)
gz=$(gzip -9 -c pkg/lectern_bg.wasm | wc -c)
printf 'pkg/lectern_bg.wasm: %d bytes raw, %d bytes gzip %s\n' "$raw" "$gz" "$optimised"
# Every shipped file (package.json "files"): raw, gzip -9 and brotli q11 (node's zlib);
# SIZES_OUT=path also writes the table there.
node scripts/sizes.mjs ${SIZES_OUT:+"$SIZES_OUT"}
