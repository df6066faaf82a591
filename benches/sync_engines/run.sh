#!/usr/bin/env bash
# Issue 50: yrs (Yjs) beside Automerge as the engine for syncing Lectern's store across devices
# (docs/sync.md). `npm run bench -- sync`, or `bash benches/sync_engines/run.sh` alone.
#
# Builds the three crates here (each its own workspace, never part of the package):
#   yrs/, automerge/   the same conversation and positions in each engine (scenario.rs)
#   empty/             the baseline module: std, the allocator and wasm-bindgen's glue, no CRDT
# for wasm32 (release, as a cdylib alone so LTO applies, as scripts/build.sh does), runs
# wasm-bindgen --target web and binaryen's wasm-opt -Oz on each in a temporary directory, and
# prints their gzip -9 sizes and times them in node (node.mjs); then builds and runs the two
# native benches, and gzips the 1,000-message documents they wrote to that directory. Every figure is a
# `FIGURE <id> native <value>` line for scripts/bench-results.mjs.
#
# Skips (exit 0) with a message when the crates cannot be fetched. Without wasm-bindgen (the
# version in the crates' Cargo.lock) or node_modules/.bin/wasm-opt (scripts/setup.sh installs
# both) it skips the sizes only. The first run compiles yrs and automerge twice (wasm32 and
# native): a few minutes; later runs about a minute. BUILD_NICE=19 runs the compiles under
# `nice -n 19`; the crates build in ${CARGO_TARGET_DIR:-benches/sync_engines/target}.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$here/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
export CARGO_TARGET_DIR="$target"
# The repository's .cargo/config.toml adds simd128 to every wasm32 build; the probe measured
# without it (neither engine uses SIMD), and so does this: no rustflags from any config.
export CARGO_ENCODED_RUSTFLAGS=""
crates=(yrs automerge empty)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

build() { # <crate> <cargo arguments…>
  local crate=$1
  shift
  (cd "$here/$crate" && nice -n "${BUILD_NICE:-0}" cargo "$@" --locked --quiet)
}

# gzip -9 size of a file.
gzip_size() { gzip -9 -c "$1" | wc -c; }

# The crate's module through wasm-bindgen and wasm-opt -Oz into $out/<crate>/; prints its sizes.
pack() { # <crate>
  local crate=$1 name="sync_bench_$1" dir="$out/$1"
  wasm-bindgen --target web --out-dir "$dir" "$target/wasm32-unknown-unknown/release/$name.wasm"
  "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$dir/${name}_bg.wasm" -o "$dir/${name}_bg.opt.wasm"
  for file in "$dir/${name}_bg.wasm" "$dir/${name}_bg.opt.wasm" "$dir/$name.js"; do
    printf '%-32s raw %9d B   gzip -9 %8d B\n' "$(basename "$file")" "$(wc -c <"$file")" "$(gzip_size "$file")"
  done
}

# The sizes of the three modules, and each engine's over the baseline as FIGURE lines (KB = 1,000 B).
sizes() {
  printf '\n-- wasm32 modules (opt-level "s", wasm-bindgen --target web, wasm-opt -Oz)\n'
  for crate in "${crates[@]}"; do
    build "$crate" rustc --lib --release --target wasm32-unknown-unknown --crate-type cdylib
    pack "$crate"
  done
  local empty yrs automerge
  empty=$(gzip_size "$out/empty/sync_bench_empty_bg.opt.wasm")
  yrs=$(gzip_size "$out/yrs/sync_bench_yrs_bg.opt.wasm")
  automerge=$(gzip_size "$out/automerge/sync_bench_automerge_bg.opt.wasm")
  echo "over the empty module's $empty B: yrs $((yrs - empty)) B, automerge $((automerge - empty)) B (gzip -9, after wasm-opt -Oz)"
  echo "FIGURE sync_empty_wasm_gzip_kb native $(awk "BEGIN { print $empty / 1000 }")"
  echo "FIGURE sync_yrs_wasm_gzip_kb native $(awk "BEGIN { print ($yrs - $empty) / 1000 }")"
  echo "FIGURE sync_automerge_wasm_gzip_kb native $(awk "BEGIN { print ($automerge - $empty) / 1000 }")"
}

# The reason the sizes cannot be measured here, or nothing.
sizes_missing() {
  local want have
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$here/yrs/Cargo.lock")
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
  if [ "$have" != "$want" ]; then
    echo "wasm-bindgen $want is needed (found: ${have:-none}; scripts/setup.sh build installs it)"
  elif [ ! -x "$wasm_opt" ]; then
    echo "$wasm_opt is missing (npm's binaryen: scripts/setup.sh build installs it)"
  fi
}

for crate in "${crates[@]}"; do
  if ! (cd "$here/$crate" && cargo fetch --locked --quiet); then
    echo "SKIPPED sync engines: the crates of benches/sync_engines/$crate could not be fetched (offline?)"
    exit 0
  fi
done

wasm_opt="$root/node_modules/.bin/wasm-opt"
missing=$(sizes_missing)
if [ -n "$missing" ]; then
  echo "SKIPPED sync engines' module sizes: $missing"
else
  sizes
fi

if [ -z "$missing" ]; then
  printf '\n-- the -Oz modules in node (wasm; best of 5)\n'
  node "$here/node.mjs" "$out"
fi

for engine in yrs automerge; do
  build "$engine" build --release --bin bench
  cp "$target/release/bench" "$out/bench-$engine"
done
for engine in yrs automerge; do
  printf '\n-- %s, native (release, best of 5)\n' "$engine"
  "$out/bench-$engine" "$out"
done
# What the documents would take on disk gzipped (a browser's CompressionStream), KB = 1,000 B.
for engine in yrs automerge; do
  doc=$(gzip_size "$out/$engine-1000.bin")
  echo "$engine 1000-msg doc, gzip -9: $doc bytes"
  echo "FIGURE sync_${engine}_doc_gzip_kb native $(awk "BEGIN { print $doc / 1000 }")"
done
