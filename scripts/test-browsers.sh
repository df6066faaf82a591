#!/usr/bin/env bash
# `npm run test:browsers`: the browser tests in the engines besides Chromium (which `npm test`
# covers). In Firefox ESR and WebKitGTK each: every wasm-bindgen browser test of tests/web/, then
# the JS flows through the public API, <lectern-chat> and the reading site. An engine
# that is not installed is skipped with a message, never silently. Run after `npm test` (it uses
# the pkg/ and the wasm test build that made).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

bash scripts/setup.sh browsers
[ -f pkg/lectern.js ] || bash scripts/build.sh
minilm=$(bash scripts/fetch-minilm.sh | tail -n 1)
case "$minilm" in LECTERN_MINILM_DIR=*) export "${minilm?}" ;; esac

# The JS flows each engine runs (CI's share of the time): books in the worker, turns streamed and
# not, tools and approvals across a reload, two tabs on one conversation, the fault matrix, the
# widget's stream, approval and XSS flows, the reading site answering, Lectern's own decoder
# (llama.cpp's answers, streaming, abort, the prefix cache) and the site answering with it, and the
# browser's own model (lectern/prompt-api: a scripted LanguageModel, and the engine's own 'unavailable'), and
# lectern/sync's devices through the real sync server (the transport, and Lectern's store and
# approvals following it, with followSync and with Lectern.open's `sync`), and the reading site
# signed in on two devices. `npm run test:browsers --
# all` adds the rest but the Chromium-only ones (the bundler and package checks, the local model,
# the service worker, the quota over CDP) and the real-provider check.
flows=(
  tests/js/worker.test.mjs tests/js/resume.test.mjs tests/js/fault-matrix.test.mjs
  tests/js/chat-stream.test.mjs tests/js/chat-approvals.test.mjs tests/js/chat-xss.test.mjs
  tests/js/site-chat.test.mjs tests/js/local-decoder.test.mjs tests/js/site-local.test.mjs
  tests/js/prompt-api.test.mjs tests/js/sync.test.mjs tests/js/sync-follow.test.mjs
  tests/js/sync-option.test.mjs tests/js/site-sync.test.mjs
)
if [ "${1:-}" = all ]; then
  flows+=(
    tests/js/minilm.test.mjs tests/js/bundle.test.mjs tests/js/chat-errors.test.mjs
    tests/js/chat-keyboard.test.mjs tests/js/chat-sources.test.mjs tests/js/site-books.test.mjs
    tests/js/site-sources.test.mjs tests/js/site-minilm.test.mjs
  )
fi

if command -v firefox-esr >/dev/null 2>&1 && command -v geckodriver >/dev/null 2>&1; then
  step "Firefox $(firefox-esr --version | awk '{ print $3 }'): wasm-bindgen browser tests (geckodriver $(geckodriver --version | awk 'NR == 1 { print $2 }'))"
  GECKODRIVER="$(command -v geckodriver)" WASM_BINDGEN_TEST_WEBDRIVER_JSON=tests/webdriver/firefox.json \
    WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-900}" \
    bash scripts/with-mock-server.sh cargo test --target wasm32-unknown-unknown --features test-support --test web
else
  step "Firefox: SKIPPED (firefox-esr or geckodriver missing; scripts/setup.sh browsers installs them)"
fi

if command -v firefox-esr >/dev/null 2>&1; then
  step "Firefox: the JS flows through the public API, <lectern-chat> and the reading site (WebDriver BiDi)"
  LECTERN_BROWSER=firefox node --test --test-timeout=300000 "${flows[@]}"
else
  step "Firefox: JS flows SKIPPED (no firefox-esr)"
fi

# WebKitGTK: WebKitWebDriver starts MiniBrowser (its default browser) for a session with no
# capabilities, which is what wasm-bindgen-test-runner's Safari driver sends; under Xvfb, as
# MiniBrowser needs a display. playwright-core drives only its own WebKit build, so the JS flows
# go through tests/js/webkit/ (the part of Playwright's API they use, over WebDriver classic).
if command -v WebKitWebDriver >/dev/null 2>&1 && command -v xvfb-run >/dev/null 2>&1; then
  step "WebKitGTK $(dpkg-query -W -f '${Version}' 'libwebkit2gtk-4.1-0' 2>/dev/null | cut -d- -f1): wasm-bindgen browser tests (WebKitWebDriver, MiniBrowser under Xvfb)"
  port=$(node -e "const s = require('net').createServer().listen(0, () => { console.log(s.address().port); s.close(); })")
  xvfb-run -a WebKitWebDriver --port="$port" >/dev/null 2>&1 &
  webkit_pid=$!
  trap 'pkill -P "$webkit_pid" 2>/dev/null; kill "$webkit_pid" 2>/dev/null || true' EXIT
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/status" >/dev/null && break; sleep 0.1; done
  SAFARIDRIVER_REMOTE="http://127.0.0.1:$port" WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-900}" \
    bash scripts/with-mock-server.sh cargo test --target wasm32-unknown-unknown --features test-support --test web
else
  step "WebKitGTK: SKIPPED (WebKitWebDriver or xvfb-run missing; scripts/setup.sh browsers installs them)"
fi
if command -v WebKitWebDriver >/dev/null 2>&1 && command -v xvfb-run >/dev/null 2>&1; then
  step "WebKitGTK: the JS flows through the public API, <lectern-chat> and the reading site (WebDriver classic)"
  LECTERN_BROWSER=webkit node --test --test-timeout=300000 "${flows[@]}"
else
  step "WebKitGTK: JS flows SKIPPED (WebKitWebDriver or xvfb-run missing)"
fi
