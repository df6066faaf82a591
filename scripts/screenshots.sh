#!/usr/bin/env bash
# Copies the screenshots of the README and docs/ from the last test run's artifacts
# (.test-artifacts/, written by the Playwright flows of `npm test`) to docs/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p docs/screenshots
for shot in site-offline chat-tool-card chat-approval-invalid site-sources chat-sources chat-sentences site-quotes; do
  [ -f ".test-artifacts/$shot.png" ] || { echo "missing .test-artifacts/$shot.png: run npm test first" >&2; exit 1; }
  cp ".test-artifacts/$shot.png" "docs/screenshots/$shot.png"
done
ls -l docs/screenshots
