#!/usr/bin/env bash
# Runs a command with the mock model server up: `scripts/with-mock-server.sh cargo test …`.
# The server serves ../shared's fixtures and the MiniLM files too (tests/web/minilm.rs); its URL
# goes to the command as LECTERN_MOCK_URL. Stops the server when the command ends.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
shared_fixtures="$(cd .. && pwd)/shared/fixtures"
if [ -d "$shared_fixtures" ]; then export LECTERN_FIXTURES_DIR="$shared_fixtures"; fi
mock_pid=
trap 'kill "$mock_pid" 2>/dev/null || true; rm -f "$log"' EXIT
# Starts the server on port $1 (0: any); true once it reported its URL.
start_mock() {
  node tests/mock-server/server.mjs --port "$1" >"$log" 2>&1 &
  mock_pid=$!
  for _ in $(seq 100); do
    grep -q '^MOCK_URL=' "$log" && return 0
    kill -0 "$mock_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# A fixed port first: the wasm tests read the URL at compile time, so the same URL run after run
# spares a rebuild of the test crate (a minute or two); any free port if it is taken.
start_mock "${LECTERN_MOCK_PORT:-47180}" || start_mock 0 || { cat "$log"; echo "mock server failed to start" >&2; exit 1; }
mock_url=$(sed -n 's/^MOCK_URL=//p' "$log")
[ -n "$mock_url" ] || { cat "$log"; echo "mock server did not report its URL" >&2; exit 1; }
echo "mock model server: $mock_url"
LECTERN_MOCK_URL="$mock_url" "$@"
