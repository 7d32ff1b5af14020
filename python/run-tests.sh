#!/usr/bin/env bash
# Builds the Python package into a virtual environment and runs its tests (pytest), against
# the `glp` command built by `cargo build --release` (the tests compare the API's labels and
# samples with the command's). Used by .ci/run after the Rust tests; runs anywhere:
#
#   python/run-tests.sh [PYTEST ARGS...]
#
# The environment is kept in $GLP_PY_ENV (default: ~/.cache/glp-ci/py) and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
env_dir="${GLP_PY_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/glp-ci/py}"
if [ ! -x "$env_dir/bin/python" ]; then
  python3 -m venv "$env_dir"
fi
py="$env_dir/bin/python"
# The build backend (maturin) runs from the environment.
export PATH="$env_dir/bin:$PATH"
"$py" -m pip install --quiet --disable-pip-version-check 'maturin>=1.5,<2' numpy pytest networkx scipy ruff
# The package itself, built from this checkout (the Rust half compiled in release mode).
"$py" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python
[ -x target/release/glp ] || cargo build --release --bin glp
# The Python sources' lint and format (ruff, configured in python/pyproject.toml).
"$env_dir/bin/ruff" check --config python/pyproject.toml python/glp python/tests examples/python
"$env_dir/bin/ruff" format --check --config python/pyproject.toml python/glp python/tests examples/python
export GLP_BIN="$PWD/target/release/glp" GLP_REQUIRE_CLI=1
exec "$py" -m pytest python/tests -p no:cacheprovider -q -rs "$@"
