#!/usr/bin/env bash
# Builds the release package into pkg/ — two wasm modules from this crate —
# and prints the sizes of every shipped file:
#   lectern.js + lectern_bg.wasm               the page's module (feature `page`)
#   __wasm_split.js + split_*.wasm             the page's module's rarely used methods
#                                              (export/import, history, maintenance, approvals), cut
#                                              off it by wasm-split-cli, each loaded on first call
#   lectern_books.js + lectern_books_bg.wasm   the books module (feature `books`): loaded
#                                              into the page on the first book call or
#                                              book conversation, and run by lectern_worker.js
#   lectern_local.js + lectern_local_bg.wasm   Lectern's own decoder (feature `local`), run in
#                                              a page's Worker by lectern/local
#   lectern_local_threads.js + _bg.wasm        the same with threads (atomics, shared memory),
#                                              for cross-origin isolated pages
#   lectern_local{,_threads}_relaxed_bg.wasm   both again with relaxed SIMD, for browsers that
#                                              have it (the same glue)
#   lectern_sync.js + lectern_sync_bg.wasm     the sync document (feature `sync`), for
#                                              lectern/sync (lectern_sync_client.js, and
#                                              lectern_sync_follow.js: followSync)
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release"
rm -rf pkg
# `cargo rustc --crate-type cdylib`, not `cargo build`: with the crate's two types (cdylib and
# rlib) cargo drops the release profile's `lto = true`, and each module is ~30 KB gzip larger.
# On the pinned nightly of scripts/release-toolchain.sh, with std rebuilt for size; the
# `--config` rustflags are added to .cargo/config.toml's (simd128): no panic locations, and
# legacy symbol names (the nightly's v0 names lengthen the JS glue's export names).
source scripts/release-toolchain.sh
if ! rustup component list --toolchain "$RELEASE_TOOLCHAIN" --installed 2>/dev/null | grep -q '^rust-src'; then
  echo "error: the release build needs $RELEASE_TOOLCHAIN with rust-src: run scripts/setup.sh build" >&2
  exit 1
fi
# std's `optimize_for_size` (its smaller sorts and number formatting) only for the page's module:
# in the books module its heapsort made `search()` over 53,901 passages 2.2 -> 3.7 ms p50.
# $extra_rustflags: more rustflags for every crate, std included (the threaded build's atomics).
extra_rustflags=""
build_wasm() { # <features> <std features> [rustc flags…]
  local features=$1 std_features=$2
  shift 2
  cargo "+$RELEASE_TOOLCHAIN" rustc --release --target wasm32-unknown-unknown --lib --crate-type cdylib \
    -Zbuild-std=std,panic_abort ${std_features:+-Zbuild-std-features=$std_features} \
    --config "target.wasm32-unknown-unknown.rustflags = [\"-Zlocation-detail=none\", \"-Csymbol-mangling-version=legacy\", \"-Zunstable-options\"$extra_rustflags]" \
    --no-default-features --features "$features" -- "$@"
}
build_module() { # <feature> <out-name> [wasm-bindgen flags…]
  local feature=$1 name=$2
  shift 2
  build_wasm "$feature" ""
  wasm-bindgen --target web --weak-refs --out-dir pkg --out-name "$name" "$@" "$target/lectern.wasm"
}
# The page's module: linked with its relocations (`--emit-relocs`, for this crate only, so
# the dependencies' builds do not change with it), cut at its #[wasm_split]
# points (src/wasm/page/split_off.rs), and the main part given to wasm-bindgen.
split_dir="${CARGO_TARGET_DIR:-target}/wasm-split"
build_wasm split optimize_for_size -C link-arg=--emit-relocs
rm -rf "$split_dir" && mkdir -p "$split_dir"
wasm-split-cli "$target/lectern.wasm" "$split_dir" --target web --out-name lectern
# --keep-lld-exports: the chunks import the function table that wasm-bindgen would drop.
wasm-bindgen --target web --weak-refs --keep-lld-exports --out-dir pkg --out-name lectern "$split_dir/lectern.wasm"
# split_<name>.wasm per chunk, chunk_<n>.wasm for code two chunks share.
shopt -s nullglob
cp "$split_dir"/split_*.wasm "$split_dir"/chunk_*.wasm pkg/
# The chunks' loader, with a fallback for servers that send .wasm without
# `Content-Type: application/wasm` (instantiateStreaming refuses those).
node scripts/split-loader.mjs "$split_dir/__wasm_split.js" pkg/__wasm_split.js
build_module books lectern_books --no-typescript
# Lectern's own decoder for a page's Worker (feature `local`), loaded only by pages that generate
# locally; at opt-level 3 (at the profile's "z" it read prompts 24 % and generated 34 % slower,
# benches/local_decoder.mjs).
build_wasm local "" -C opt-level=3
wasm-bindgen --target web --weak-refs --out-dir pkg --out-name lectern_local --no-typescript "$target/lectern.wasm"
# The same decoder with threads (lectern_local_threads.js + _bg.wasm), for cross-origin isolated
# pages: atomics and a shared, imported memory (up to 4 GiB), std rebuilt with them; helper Workers
# (lectern_local_helper.js) instantiate it on the same memory. Its own target directory, so the
# two builds do not rebuild each other's dependencies.
# The threaded link: a shared, imported memory, and the TLS exports helpers instantiate with.
threaded_link=(
  -C link-arg=--shared-memory -C link-arg=--import-memory -C link-arg=--max-memory=4294967296
  -C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size
  -C link-arg=--export=__tls_align -C link-arg=--export=__tls_base
)
threaded_features='+atomics,+bulk-memory,+mutable-globals'
extra_rustflags=", \"-Ctarget-feature=$threaded_features\""
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/threads" build_wasm local "" -C opt-level=3 "${threaded_link[@]}"
extra_rustflags=""
wasm-bindgen --target web --weak-refs --out-dir pkg --out-name lectern_local_threads --no-typescript \
  "${CARGO_TARGET_DIR:-target}/threads/wasm32-unknown-unknown/release/lectern.wasm"
# Both decoders again with relaxed SIMD (its 8-bit dot product in the 4-bit matrix products,
# src/kernels/block_sums/simd128.rs): lectern_local_relaxed_bg.wasm and
# lectern_local_threads_relaxed_bg.wasm, which the Worker runs where the browser validates relaxed
# SIMD (js/local-worker.js). Only the wasm ships: the glue wasm-bindgen makes for it must be the
# plain build's, byte for byte (checked here), so one glue runs either.
relaxed_build() { # <target dir> <glue name> [rustc flags…]
  local dir=$1 glue=$2
  shift 2
  CARGO_TARGET_DIR="$dir" build_wasm local "" -C opt-level=3 "$@"
  rm -rf "$dir/bindgen" && mkdir -p "$dir/bindgen"
  wasm-bindgen --target web --weak-refs --out-dir "$dir/bindgen" --out-name "$glue" --no-typescript \
    "$dir/wasm32-unknown-unknown/release/lectern.wasm"
  if ! cmp -s "$dir/bindgen/$glue.js" "pkg/$glue.js"; then
    echo "build.sh: the relaxed-SIMD build's glue differs from pkg/$glue.js" >&2
    exit 1
  fi
  cp "$dir/bindgen/${glue}_bg.wasm" "pkg/${glue}_relaxed_bg.wasm"
}
extra_rustflags=', "-Ctarget-feature=+relaxed-simd"'
relaxed_build "${CARGO_TARGET_DIR:-target}/relaxed" lectern_local
extra_rustflags=", \"-Ctarget-feature=+relaxed-simd,$threaded_features\""
relaxed_build "${CARGO_TARGET_DIR:-target}/threads-relaxed" lectern_local_threads "${threaded_link[@]}"
extra_rustflags=""
# The sync module (feature `sync`): SyncReplica, loaded only by pages that sync (lectern/sync).
build_module sync lectern_sync --no-typescript
cp js/sync.js pkg/lectern_sync_client.js
cp js/sync-follow.js pkg/lectern_sync_follow.js
cp js/sync.d.ts pkg/lectern_sync_client.d.ts
# wasm-bindgen's classes declare [Symbol.dispose]: name the lib that types it, so a consumer's
# tsc with an ES2022 lib and skipLibCheck off accepts lectern.d.ts (tests/js/consumer.test.mjs).
sed -i '1i /// <reference lib="esnext.disposable" />' pkg/lectern.d.ts
# The ingestion worker's entry, beside lectern.js (it imports ./lectern_books.js).
cp src/wasm/books/worker/lectern_worker.js pkg/lectern_worker.js
# The wllama adapter (import 'lectern/wllama'): plain JS, no wasm.
cp js/wllama.js pkg/lectern_wllama.js
cp js/wllama.d.ts pkg/lectern_wllama.d.ts
# The browser's own model (import 'lectern/prompt-api', the Prompt API): plain JS, no wasm.
cp js/prompt-api.js pkg/lectern_prompt_api.js
cp js/prompt-api.d.ts pkg/lectern_prompt_api.d.ts
# Lectern's own decoder as a provider (import 'lectern/local') and its Worker's entry.
cp js/local.js pkg/lectern_local_provider.js
cp js/local.d.ts pkg/lectern_local_provider.d.ts
cp js/local-worker.js pkg/lectern_local_worker.js
cp js/local-helper.js pkg/lectern_local_helper.js
# The <lectern-chat> widget (import 'lectern/chat'): plain JS modules, no wasm.
cp -r js/chat pkg/chat
# binaryen from npm: Debian's wasm-opt (108) corrupts wasm-bindgen's externref table.
wasm_opt=node_modules/.bin/wasm-opt
for wasm in pkg/lectern_bg.wasm pkg/split_*.wasm pkg/chunk_*.wasm pkg/lectern_books_bg.wasm pkg/lectern_local_bg.wasm pkg/lectern_local_threads_bg.wasm \
  pkg/lectern_local_relaxed_bg.wasm pkg/lectern_local_threads_relaxed_bg.wasm pkg/lectern_sync_bg.wasm; do
  if [ -x "$wasm_opt" ]; then
    # Atomics only in the threaded build (the flag changes what wasm-opt makes of the others).
    threads_flag=""
    case "$wasm" in *_threads_bg.wasm | *_threads_relaxed_bg.wasm) threads_flag=--enable-threads ;; esac
    relaxed_flag=""
    case "$wasm" in *_relaxed_bg.wasm) relaxed_flag=--enable-relaxed-simd ;; esac
    # Monomorphised copies that differ only in constants are merged first (the page's module
    # −1 % gzip; docs/figures.md, "Package size").
    "$wasm_opt" --duplicate-function-elimination --merge-similar-functions -Os --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int --enable-simd \
      --enable-sign-ext --enable-mutable-globals --enable-reference-types ${threads_flag:+"$threads_flag"} ${relaxed_flag:+"$relaxed_flag"} \
      "$wasm" -o "$wasm"
    optimised="(wasm-opt --merge-similar-functions -Os)"
  else
    optimised="(not optimised: run npm install for wasm-opt)"
  fi
  printf '%s: %d bytes raw, %d bytes gzip %s\n' "$wasm" "$(wc -c < "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)" "$optimised"
done
# Every shipped file (package.json "files"): raw, gzip -9 and brotli q11 (node's zlib);
# SIZES_OUT=path also writes the table there.
node scripts/sizes.mjs ${SIZES_OUT:+"$SIZES_OUT"}
