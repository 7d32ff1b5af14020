#!/usr/bin/env bash
# Side-by-side CPU label propagation: glp (asynchronous schedule) and NetworKit's PLP on the
# same graphs and thread count, with GVE-LPA's published figures for reference.
#
#   bench/compare_lp.sh [THREADS]      (default 2; needs Python 3 with pip)
#
# The graphs are the repository's data/ (GLP_DATA names another folder).
#
# Times exclude loading: from initialised labels to convergence, median of 5 runs.
set -euo pipefail
cd "$(dirname "$0")/.."
threads="${1:-2}"
data="${GLP_DATA:-data}"
source bench/lib.sh
nk_dir=$(bench_tools networkit "networkit" networkit)
cargo build --release --quiet
glp=target/release/glp

# graph | ground truth | GVE-LPA published (2 threads): time, iterations, modularity
graphs=(
  "$data/com-dblp.edges.gz|$data/com-dblp.all.cmty.txt.gz|71 ms, 3 iterations, modularity 0.740"
  "$data/lfr/LFR_N100000_ad5_mc50_mu0.3.edges.gz|$data/lfr/LFR_N100000_ad5_mc50_mu0.3.cmty.txt.gz|16.5 ms, modularity 0.427"
)
for entry in "${graphs[@]}"; do
  IFS='|' read -r graph truth gve <<<"$entry"
  echo "== $(basename "$graph") ($threads threads)"
  "$glp" --threads "$threads" bench lp "$graph" --ground-truth "$truth" --repeat 5 | sed 's/^/glp           /'
  PYTHONPATH="$nk_dir" python3 bench/networkit_plp.py "$graph" --threads "$threads" --repeat 5 | sed 's/^/              /'
  echo "GVE-LPA       published: $gve"
  echo
done
