#!/usr/bin/env bash
# Installs what the build, the demo and the tests need, skipping what is there.
#   scripts/setup.sh build   Rust wasm target, wasm-bindgen CLI, npm packages
#   scripts/setup.sh test    the same, plus Chromium and ChromeDriver
#   scripts/setup.sh browsers the other engines: Firefox ESR with geckodriver (crates.io),
#                             WebKitGTK's WebKitWebDriver and MiniBrowser, Xvfb; where they
#                             cannot be installed, says so (npm run test:browsers skips them)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-build}"

say() { printf '\n== %s\n' "$*"; }
need() {
  command -v "$1" >/dev/null 2>&1 || { echo "error: $1 is required: $2" >&2; exit 1; }
}

need cargo "install Rust with rustup (https://rustup.rs)"
need node "install Node.js 20 or newer"
need npm "install npm (it comes with Node.js)"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown Rust target"
  rustup target add wasm32-unknown-unknown
fi

# The release build's pinned nightly, with the std sources it rebuilds (scripts/release-toolchain.sh).
source scripts/release-toolchain.sh
if ! rustup component list --toolchain "$RELEASE_TOOLCHAIN" --installed 2>/dev/null | grep -q '^rust-src' \
  || ! rustup target list --toolchain "$RELEASE_TOOLCHAIN" --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "installing $RELEASE_TOOLCHAIN with rust-src and the wasm32 target (the release build)"
  rustup toolchain install "$RELEASE_TOOLCHAIN" --profile minimal --target wasm32-unknown-unknown --component rust-src
fi

# The CLI must match the wasm-bindgen crate exactly; Cargo.lock pins it.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (found: ${have:-none}); this compiles for a few minutes"
  cargo install --force wasm-bindgen-cli --version "$want"
fi

# wasm-split-cli cuts the page's module into the chunks its rare methods load
# on first call (scripts/build.sh); pinned with the runtime crate, wasm_split_helpers.
split_version=0.2.4
if ! cargo install --list | grep -qx "wasm_split_cli_support v$split_version:"; then
  say "installing wasm-split-cli $split_version; this compiles for a minute or two"
  cargo install --force --locked wasm_split_cli_support --version "$split_version" --features build-binary
fi

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/typescript ] || [ ! -d node_modules/binaryen ] || [ ! -d node_modules/@wllama/wllama ] || [ ! -d node_modules/vite ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund
fi

# Debian packages: the browser, for the tests.
packages=()
if [ "$mode" = test ]; then
  command -v chromium >/dev/null 2>&1 || packages+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || packages+=(chromium-driver)
  # scripts/import-graph.py (the layout's rules) and the model wheels' download.
  command -v python3 >/dev/null 2>&1 || packages+=(python3 python3-pip)
fi
if [ "$mode" = browsers ]; then
  command -v firefox-esr >/dev/null 2>&1 || packages+=(firefox-esr)
  command -v WebKitWebDriver >/dev/null 2>&1 || packages+=(webkit2gtk-driver)
  command -v xvfb-run >/dev/null 2>&1 || packages+=(xvfb)
fi
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${packages[*]} from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
  elif [ "$mode" = browsers ]; then
    echo "note: cannot install ${packages[*]} here (not root, or no apt-get): those engines are skipped."
  elif [ "$mode" = test ]; then
    echo "error: the tests need chromium, chromedriver and python3 on PATH." >&2
    echo "       On Debian/Ubuntu: sudo apt-get install chromium chromium-driver python3" >&2
    exit 1
  fi
fi

# geckodriver, which wasm-bindgen-test-runner drives Firefox with: from crates.io, pinned.
geckodriver_version=0.37.1
if [ "$mode" = browsers ] && command -v firefox-esr >/dev/null 2>&1 \
  && [ "$(geckodriver --version 2>/dev/null | awk 'NR == 1 { print $2 }')" != "$geckodriver_version" ]; then
  say "installing geckodriver $geckodriver_version from crates.io; this compiles for a few minutes"
  cargo install --force geckodriver --version "$geckodriver_version" \
    || echo "note: geckodriver did not install: Firefox's wasm tests are skipped."
fi
