#!/usr/bin/env bash
# `npm start`: build the package, then serve the demo and the mock model server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh build
bash scripts/build.sh
exec node scripts/serve.mjs "$@"
