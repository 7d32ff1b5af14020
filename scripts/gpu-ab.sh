#!/usr/bin/env bash
# Builds of glp compared on one GPU machine, their runs alternated so that they share its
# state (clocks, temperature, neighbours): the only timings of two builds worth comparing.
#
#   scripts/gpu-ab.sh pack NAME=PATH...   (here) strips each `glp` binary PATH and packs them,
#                                         as glp-NAME, into .gpu/ab/builds.tgz (git-ignored;
#                                         carry .gpu/ab: about 4 MB a build)
#   scripts/gpu-ab.sh run ROUNDS GRAPH BENCH_ARGS...
#                                         (on the GPU machine, from the repository root) runs
#                                         `glp-NAME bench sample GRAPH BENCH_ARGS` (e.g.
#                                         `--backend gpu --apps node2vec --repeat 9`) for every
#                                         build in turn, ROUNDS times, and prints each run's
#                                         table rows under the build's name (GRAPH: any file
#                                         glp reads; generate R-MAT graphs with `glp gen`)
#
# With GLP_AB_SAMPLE set (`glp sample` arguments after the graph, e.g. `node2vec --p 2 --q 0.5
# --seed 5`), `run` first writes every build's samples of GRAPH on the GPU and the first
# build's (builds run in the order of their names) on the CPU and prints their md5: builds
# meant to change speed alone must agree.
# Logs go to $OUT (default .gpu/ab/out): ab.log, every run's whole output.
set -uo pipefail
cd "$(dirname "$0")/.."
WORK=/dev/shm/glp-ab # the builds and the runs' outputs, on the GPU machine

pack() {
  set -e
  [ $# -gt 0 ] || { echo "usage: $0 pack NAME=PATH..." >&2; exit 2; }
  rm -rf .gpu/ab && mkdir -p .gpu/ab/builds
  local spec
  for spec in "$@"; do
    [[ "$spec" == *=* ]] || { echo "expected NAME=PATH, got $spec" >&2; exit 2; }
    strip -o ".gpu/ab/builds/glp-${spec%%=*}" "${spec#*=}"
  done
  tar czf .gpu/ab/builds.tgz -C .gpu/ab/builds . && rm -rf .gpu/ab/builds
  du -h .gpu/ab/builds.tgz
}

samples() { # samples LABEL COMMAND...: the md5 of the samples COMMAND writes (its --out)
  local label=$1 out=$WORK/samples
  shift
  rm -f "$out"
  if "$@" --out "$out" --quiet >>"$OUT/ab.log" 2>&1; then
    echo "$label samples $(md5sum <"$out" | cut -d' ' -f1)"
  else
    echo "$label samples: failed (ab.log says why)"
  fi
}

run() {
  [ $# -ge 2 ] || { echo "usage: $0 run ROUNDS GRAPH BENCH_ARGS..." >&2; exit 2; }
  local rounds=$1 file=$2 builds=() b app rest
  shift 2
  OUT="${OUT:-.gpu/ab/out}"; mkdir -p "$OUT" "$WORK"
  export GLP_CACHE_DIR=$WORK/cache GLP_DATA_DIR="$PWD/data"
  # The builds of this pack alone.
  rm -rf "$WORK/builds" && mkdir -p "$WORK/builds" && tar xzf .gpu/ab/builds.tgz -C "$WORK/builds" || exit 2
  for b in "$WORK"/builds/glp-*; do builds+=("${b##*/glp-}"); done
  if [ -n "${GLP_AB_SAMPLE:-}" ]; then
    read -r app rest <<<"$GLP_AB_SAMPLE"
    for b in "${builds[@]}"; do
      # shellcheck disable=SC2086
      samples "$b gpu" "$WORK/builds/glp-$b" sample "$app" "$file" --backend gpu $rest
    done
    # shellcheck disable=SC2086
    samples "${builds[0]} cpu" "$WORK/builds/glp-${builds[0]}" sample "$app" "$file" --backend cpu $rest
  fi
  local r
  for r in $(seq "$rounds"); do
    for b in "${builds[@]}"; do
      echo "== round $r, $b" | tee -a "$OUT/ab.log"
      "$WORK/builds/glp-$b" bench sample "$file" "$@" >"$WORK/run.log" 2>&1
      cat "$WORK/run.log" >>"$OUT/ab.log"
      # The ceiling line and the table's rows (up to the blank line after them).
      awk '/^ceiling:/ { print } /^sampler +engine/ { rows = 1; next } rows && /^$/ { rows = 0 } rows' "$WORK/run.log"
    done
  done
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 pack NAME=PATH... | run ROUNDS GRAPH BENCH_ARGS..." >&2; exit 2 ;;
esac
