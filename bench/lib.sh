# Shared by the bench/compare_*.sh scripts (sourced, not run).

# bench_tools NAME IMPORTS PACKAGE...: prints a pip --target folder (under GLP_BENCH_CACHE,
# default ~/.cache/glp-bench) where the Python modules IMPORTS (comma-separated) import,
# installing PACKAGE... there the first time.
bench_tools() {
  local dir="${GLP_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/glp-bench}/$1" imports=$2
  shift 2
  if ! PYTHONPATH="$dir" python3 -c "import $imports" 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check --target "$dir" "$@" >&2
  fi
  echo "$dir"
}
