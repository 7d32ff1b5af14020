#!/usr/bin/env bash
# GPU checks in two halves, for a GPU machine that has CUDA but no Rust toolchain.
#
#   scripts/gpu-check.sh build   (here) builds glp and the test binaries in release mode,
#                                strips them and copies them into the git-ignored folder
#                                .gpu/ (the test graphs travel with the repository: data/)
#   scripts/gpu-check.sh run     (on the GPU machine, from the repository root, with .gpu/
#                                carried over) runs the GPU tests with GLP_REQUIRE_GPU=1,
#                                compute-sanitizer memcheck and racecheck on real graphs,
#                                and the GPU benchmark; logs go to $OUT (default .gpu/out)
#   scripts/gpu-check.sh run PART...  runs only the named parts (tests, sanitizers, python,
#                                bench, cli), for a machine that gives each command less time
#                                than the whole run takes
#
# A device call carries at most 64 MiB, the working tree included, so `build` spreads the
# binaries over folders that each travel alone, each with its own copy of `glp`:
#   .gpu/bin   glp, the runtime's unit tests and the sampling tests (SAMPLE_TESTS)
#   .gpu/lp    the label propagation and edge program tests (LP_TESTS)
#   .gpu/cli   the command-line tests (CLI_TESTS)
# `run` takes each binary from whichever of them travelled (.gpu/bin first) and skips, with
# a line in the summary, the steps whose test binary did not; the steps that run `glp` (most
# sanitizer runs, the benchmarks) run with any of them. So one call carrying .gpu/bin runs
# the sampling tests, every sanitizer run but the edge programs' and the benchmarks, and one
# carrying .gpu/lp the LP and edge program tests and sanitizer runs.
#
# The cli part runs the command-line tests (CLI_TESTS) on the GPU machine against the `glp`
# that travelled (GLP_BIN, which the tests' `common::glp_binary` reads): there the `auto`
# backend takes the GPU, so `glp run`'s LDBC Graphalytics validations, `glp sample` and the
# benchmarks' GPU rows run on it.
#
# The python part installs the package's wheel (built here by `build` into .gpu/wheel) into a
# folder of its own and runs its pytest suite on the GPU (GLP_TEST_BACKEND=gpu: the GraphSAGE
# check samples its mini-batches there), against the `glp` command that travelled; the GPU
# machine's Python already has NumPy, PyTorch and torch-geometric; pytest, NetworkX and SciPy
# come from wheels in .whl/ where it lacks them.
#
# $OUT/summary.txt lists every step with its exit code; the steps' logs are gathered into
# tests.log, sanitizers.log and bench.log, and kept one by one in logs.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"
SAMPLE_TESTS=(gpu_sample_hooks gpu_sample_engines gpu_sample_placement sampler_stream gpu_device_subgraphs)
LP_TESTS=(gpu_lp gpu_lp_async gpu_sketch lp_observer gpu_edge_programs gpu_edge_subgraphs)
SAMPLERS=(deepwalk weighted-deepwalk ppr node2vec khop layer fastgcn ladies mvs cluster-gcn multi-root-walk)
MFL_STRATEGIES=(glp smem global sort hash mg8 bm)
CLI_TESTS=(cli cli_run cli_sample cli_bench_run cli_sample_stream cli_outputs cli_inputs)

test_executable() { # test_executable JSON NAME [KIND]: the test binary cargo's JSON names (of a target of KIND)
  printf '%s\n' "$1" | grep "\"name\":\"$2\"" | grep "${3:-}" | grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | tail -1
}

strip_tests() { # strip_tests DIR JSON TEST...: each test binary cargo's JSON names, stripped into DIR
  local dir=$1 json=$2 t exe
  shift 2
  for t in "$@"; do
    exe=$(test_executable "$json" "$t")
    [ -n "$exe" ] || { echo "no test binary $t" >&2; exit 1; }
    strip -o "$dir/$t" "$exe"
  done
}

build() {
  set -e
  rm -rf .gpu/bin .gpu/lp .gpu/cli && mkdir -p .gpu/bin .gpu/lp .gpu/cli
  cargo build --release --bin glp
  local json
  # Only the binaries that travel (the whole workspace's tests take many minutes on 2 cores).
  local tests=()
  for t in "${SAMPLE_TESTS[@]}" "${LP_TESTS[@]}" "${CLI_TESTS[@]}"; do tests+=(--test "$t"); done
  json=$({
    cargo test --release --no-run --message-format=json "${tests[@]}"
    cargo test --release --no-run --message-format=json -p glp-runtime --lib
  } 2>/dev/null)
  strip_tests .gpu/bin "$json" "${SAMPLE_TESTS[@]}"
  strip_tests .gpu/lp "$json" "${LP_TESTS[@]}"
  strip_tests .gpu/cli "$json" "${CLI_TESTS[@]}"
  # The runtime's unit tests (device probe, planner) as well.
  local lib
  lib=$(test_executable "$json" glp_runtime '"lib"')
  [ -n "$lib" ] && strip -o .gpu/bin/glp_runtime_unit "$lib"
  strip -o .gpu/bin/glp target/release/glp
  cp .gpu/bin/glp .gpu/lp/glp
  cp .gpu/bin/glp .gpu/cli/glp
  # The Python package as an abi3 wheel, with maturin from the tests' environment.
  local env_dir="${GLP_PY_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/glp-ci/py}"
  [ -x "$env_dir/bin/maturin" ] || { python3 -m venv "$env_dir" && "$env_dir/bin/python" -m pip install --quiet 'maturin>=1.5,<2'; }
  rm -rf .gpu/wheel
  "$env_dir/bin/maturin" build --quiet --release --strip -m python/Cargo.toml -o .gpu/wheel
  du -sh .gpu/bin .gpu/lp .gpu/cli .gpu/wheel
}

carried() { # carried NAME: binary NAME in the first carried folder that holds it (nothing if none)
  local dir
  for dir in .gpu/bin .gpu/lp .gpu/cli; do
    if [ -x "$dir/$1" ]; then
      echo "$dir/$1"
      return
    fi
  done
}

skip() { # skip NAME BINARY: a step left out because BINARY did not travel
  echo "$1 skipped ($2 not carried)" | tee -a "$OUT/summary.txt"
}

test_step() { # test_step NAME LIMIT TEST [TOOL]: test binary TEST, under compute-sanitizer TOOL if named
  local exe
  exe=$(carried "$3")
  if [ -z "$exe" ]; then
    skip "$1" "$3"
  elif [ -n "${4:-}" ]; then
    step "$1" "$2" compute-sanitizer --tool "$4" --error-exitcode 9 "$exe" --test-threads=1
  else
    step "$1" "$2" "$exe" --test-threads=1
  fi
}

step() { # step NAME TIMEOUT COMMAND...
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $((SECONDS - start))s" | tee -a "$OUT/summary.txt"
}

run() { # run [PART...]: every part when none is named
  local parts=("$@")
  [ ${#parts[@]} -gt 0 ] || parts=(tests sanitizers python bench cli)
  OUT="${OUT:-.gpu/out}"; mkdir -p "$OUT"; : >"$OUT/summary.txt"
  # The binaries look for data/ where they were built; here it is the repository's copy.
  export GLP_REQUIRE_GPU=1 GLP_REQUIRE_DATA=1 GLP_DATA_DIR="$PWD/data" GLP_CACHE_DIR=/dev/shm/glp-cache
  glp=$(carried glp)
  [ -n "$glp" ] || { echo "no glp in .gpu/bin, .gpu/lp or .gpu/cli: carry one of them (scripts/gpu-check.sh build)" >&2; exit 2; }
  step nvidia-smi 30 nvidia-smi
  local part
  for part in "${parts[@]}"; do
    case "$part" in
      tests) run_tests ;;
      sanitizers) run_sanitizers ;;
      python) run_python ;;
      bench) run_bench ;;
      cli) run_cli ;;
      *) echo "unknown part $part (expected tests, sanitizers, python, bench or cli)" >&2; exit 2 ;;
    esac
  done
  collect
  cat "$OUT/summary.txt"
}

run_tests() {
  local unit t
  unit=$(carried glp_runtime_unit)
  if [ -n "$unit" ]; then step unit 120 "$unit" device; else skip unit glp_runtime_unit; fi
  for t in "${SAMPLE_TESTS[@]}" "${LP_TESTS[@]}"; do
    test_step "test-$t" 400 "$t"
  done
}

run_cli() {
  local dir=.gpu/cli t
  for t in "${CLI_TESTS[@]}"; do
    step "test-cli-$t" 300 env GLP_BIN="$PWD/$dir/glp" "$dir/$t" --test-threads=4
  done
}

run_sanitizers() {
  local g=data/email-Eu-core.txt
  step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" lp "$g" --backend gpu --schedule sync --iterations 5 --variant slp
  step racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$glp" lp "$g" --backend gpu --schedule sync --iterations 3
  test_step memcheck-sample-hooks 300 gpu_sample_hooks memcheck
  # Subgraph samples numbered on the device (every built-in sampler, both engines, both id kinds).
  test_step memcheck-device-subgraphs 400 gpu_device_subgraphs memcheck
  for app in "${SAMPLERS[@]}"; do
    step "memcheck-sample-$app" 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" sample "$app" "$g" --backend gpu --roots-random 300 --walk-length 10 --fanouts 10,10 --layer-size 32
  done
  step memcheck-sample-khop-distinct 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" sample khop "$g" --backend gpu --roots-random 300 --fanouts 25,10 --without-replacement
  step racecheck-sample-khop 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$glp" sample khop "$g" --backend gpu --roots-random 300 --fanouts 10,5
  # The transit-parallel engine (shared memory: the scan, the cached rows of block transits).
  for app in khop deepwalk node2vec; do
    step "memcheck-sample-tp-$app" 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" sample "$app" "$g" --backend gpu --engine tp --roots-random 300 --walk-length 10 --fanouts 10,10
  done
  step memcheck-sample-tp-khop-distinct 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" sample khop "$g" --backend gpu --engine tp --roots-random 300 --fanouts 25,10 --without-replacement
  step racecheck-sample-tp-khop 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$glp" sample khop "$g" --backend gpu --engine tp --roots-random 300 --fanouts 10,5
  # Streamed outputs: the GPU's files, written batch by batch, equal the CPU's byte for byte.
  for app in deepwalk khop; do
    step "stream-$app" 300 bash -c "'$glp' sample $app '$g' --backend gpu --batch-samples 100 --roots-random 1000 --seed 4 --out /dev/shm/gpu-$app.npz --quiet && '$glp' sample $app '$g' --backend cpu --roots-random 1000 --seed 4 --out /dev/shm/cpu-$app.npz --quiet && cmp /dev/shm/gpu-$app.npz /dev/shm/cpu-$app.npz"
  done
  # Edges in host memory: partitions copied in turn (walks: the partition table, the ring of
  # rows, the waiting counts in shared memory) and read over the bus (every other sampler).
  local small="--device-memory 96K --roots-random 1000 --walk-length 20"
  for app in deepwalk node2vec; do
    step "memcheck-sample-partitions-$app" 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" sample "$app" "$g" --backend gpu --placement partitions $small
  done
  # Too few walks for copies to pay: partitions visited over the bus.
  step memcheck-sample-partitions-sparse 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" sample deepwalk "$g" --backend gpu --placement partitions --device-memory 96K --roots-random 40 --walk-length 20
  step racecheck-sample-partitions-deepwalk 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$glp" sample deepwalk "$g" --backend gpu --placement partitions $small
  step memcheck-sample-zero-copy-khop 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" sample khop "$g" --backend gpu --placement zero-copy --device-memory 64K --roots-random 300 --fanouts 10,5
  for app in deepwalk node2vec; do
    step "stream-partitions-$app" 300 bash -c "'$glp' sample $app '$g' --backend gpu --placement partitions $small --seed 4 --out /dev/shm/gpu-p-$app.npy --quiet && '$glp' sample $app '$g' --backend cpu --roots-random 1000 --walk-length 20 --seed 4 --out /dev/shm/cpu-p-$app.npy --quiet && cmp /dev/shm/gpu-p-$app.npy /dev/shm/cpu-p-$app.npy"
  done
  # Edge programs: the edge blocks' shared-memory slots, their flush and the frontier.
  test_step memcheck-edge-programs 300 gpu_edge_programs memcheck
  test_step racecheck-edge-programs 300 gpu_edge_programs racecheck
  step racecheck-sample-deepwalk 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$glp" sample deepwalk "$g" --backend gpu --roots-random 300 --walk-length 10
  step memcheck-llp 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" lp data/com-dblp.edges.gz --backend gpu --schedule sync --iterations 3 --variant llp
  step memcheck-async 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" lp data/com-dblp.edges.gz --backend gpu --schedule async --variant llp
  step racecheck-async 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$glp" lp "$g" --backend gpu --schedule async
  # A skewed graph: every degree class, and hubs whose labels overflow the shared table.
  step gen-rmat 120 "$glp" gen rmat --scale 14 --out /dev/shm/rmat14.glpg
  for mfl in "${MFL_STRATEGIES[@]}"; do
    step "memcheck-rmat-$mfl" 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" lp /dev/shm/rmat14.glpg --backend gpu --schedule sync --iterations 3 --mfl "$mfl"
    step "racecheck-rmat-$mfl" 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$glp" lp /dev/shm/rmat14.glpg --backend gpu --schedule sync --iterations 2 --mfl "$mfl"
    [ "$mfl" = sort ] && continue # synchronous only
    step "memcheck-rmat-async-$mfl" 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$glp" lp /dev/shm/rmat14.glpg --backend gpu --schedule async --mfl "$mfl"
  done
}

run_python() {
  local site=/tmp/glp-python
  rm -rf "$site"
  step python-install 120 python3 -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir --target "$site" .gpu/wheel/*.whl
  # The package's Python half as it is in this tree (the wheel's native half is the build's).
  cp python/glp/*.py python/glp/*.pyi "$site/glp/"
  # What the tests import besides torch, from carried wheels where the machine lacks it.
  if ! python3 -c 'import pytest, networkx, scipy' 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
    step python-test-tools 120 python3 -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir --target "$site/tools" .whl/*.whl
  fi
  step test-python 500 env PYTHONPATH="$site:$site/tools" PYTHONUNBUFFERED=1 GLP_TEST_BACKEND=gpu \
    GLP_BIN="$PWD/$glp" GLP_REQUIRE_CLI=1 python3 -m pytest python/tests -p no:cacheprovider -q -rs
}

bench_graph() { # bench_graph GRAPH: a file as it is; rmatN generated into /dev/shm once
  if [[ "$1" =~ ^rmat([0-9]+)$ ]]; then
    [ -f "/dev/shm/$1.glpg" ] || step "gen-$1" 300 "$glp" gen rmat --scale "${BASH_REMATCH[1]}" --out "/dev/shm/$1.glpg" >&2
    echo "/dev/shm/$1.glpg"
  else
    echo "$1"
  fi
}

run_bench() {
  # Benchmarks: GLP_BENCH_ARGS, several runs separated by `;` (each names its --schedule).
  local i=0
  IFS=';' read -ra benches <<<"${GLP_BENCH_ARGS:-}"
  for b in "${benches[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    step "bench-$i" 500 "$glp" bench lp --backend gpu $b
  done
  # Sampling benchmarks (`glp bench sample`) on GLP_SAMPLE_BENCH_ARGS and edge program
  # benchmarks (`glp bench run`) on GLP_RUN_BENCH_ARGS: runs separated by `;`, each
  # `GRAPH ARGS...` where GRAPH is a file or rmatN (generated here into /dev/shm).
  graph_benches sample "${GLP_SAMPLE_BENCH_ARGS:-}"
  graph_benches run "${GLP_RUN_BENCH_ARGS:-}"
}

graph_benches() { # graph_benches BENCH LIST: `glp bench BENCH GRAPH --backend gpu ARGS` per run
  local b graph rest benches
  IFS=';' read -ra benches <<<"$2"
  for b in "${benches[@]}"; do
    i=$((i + 1))
    read -r graph rest <<<"$b"
    graph=$(bench_graph "$graph")
    # shellcheck disable=SC2086
    step "bench-$i" 500 "$glp" bench "$1" "$graph" --backend gpu $rest
  done
}

# Few files come back from the GPU machine: gather the logs into tests.log, sanitizers.log
# (each run's summary lines, the whole log of a failing one) and bench.log, keep every log in
# logs.tgz, and remove the single ones.
collect() {
  (cd "$OUT" && shopt -s nullglob && {
    for f in test-*.log; do echo "== $f"; cat "$f"; done >tests.log
    for f in memcheck*.log racecheck*.log; do
      echo "== $f"
      if grep -q "SUMMARY: 0 \(errors\|hazards\)" "$f"; then grep "SUMMARY" "$f"; else tail -60 "$f"; fi
    done >sanitizers.log
    for f in bench-*.log; do echo "== $f"; cat "$f"; done >bench.log 2>/dev/null
    tar czf logs.tgz --exclude=tests.log --exclude=sanitizers.log --exclude=bench.log ./*.log
    find . -maxdepth 1 -name '*.log' ! -name tests.log ! -name sanitizers.log ! -name bench.log -delete
  })
}

case "$mode" in
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 build | run [tests] [sanitizers] [python] [bench] [cli]" >&2; exit 2 ;;
esac
