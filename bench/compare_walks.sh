#!/usr/bin/env bash
# Side-by-side CPU random walks: glp's CPU engine and the fastest CPU walk tools (PecanPy,
# fastnode2vec) on the same graphs, thread count and machine, beside glp's CPU probe.
#
#   bench/compare_walks.sh [THREADS]      (default 2; needs Python 3 with pip)
#
# The graphs: com-DBLP from the repository's data/ (GLP_DATA names another folder), and
# R-MAT 20 generated into a temporary folder. Rates are walk steps (sampled vertices) per
# second for one 100-step walk from every vertex, the walk call alone.
set -euo pipefail
cd "$(dirname "$0")/.."
threads="${1:-2}"
data="${GLP_DATA:-data}"
source bench/lib.sh
tools_dir=$(bench_tools walk-tools "pecanpy, fastnode2vec" pecanpy fastnode2vec)
cargo build --release --quiet
glp=target/release/glp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$glp" convert "$data/com-dblp.edges.gz" "$work/com-dblp.glpg" --quiet
"$glp" gen rmat --scale 20 --out "$work/rmat20.glpg" --quiet
for graph in "$work/com-dblp.glpg" "$work/rmat20.glpg"; do
  echo "== $(basename "$graph") ($threads threads)"
  "$glp" --threads "$threads" bench sample "$graph" --backend cpu --apps deepwalk,node2vec,ppr,khop --repeat 5
  skip=()
  [[ "$graph" == *rmat* ]] && skip=(--skip-pecanpy-node2vec)
  PYTHONPATH="$tools_dir" python3 bench/walk_tools.py "$graph" --threads "$threads" "${skip[@]}"
  echo
done
