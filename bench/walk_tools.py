#!/usr/bin/env python3
"""Time the fastest CPU random-walk tools on a graph glp benchmarks: PecanPy and fastnode2vec.

Usage: walk_tools.py GRAPH.glpg [--threads N] [--steps S] [--repeat R] [--skip-pecanpy-node2vec]

GRAPH is a `.glpg` file (`glp convert`, `glp gen rmat`), read here directly (header, offsets,
targets), so every tool walks exactly the CSR glp walks. One walk of S steps from every vertex
with neighbours; the time is the walk call alone (PecanPy's `_random_walks`, fastnode2vec's
numba `_random_walk` in a parallel loop over the start vertices), best of R runs after a
warm-up; rates are walk steps per second, as `glp bench sample` reports sampled vertices.
DeepWalk is PecanPy's FirstOrderUnweighted mode and fastnode2vec with p = q = 1; node2vec is
p = 2, q = 0.5 (PecanPy's SparseOTF, fastnode2vec's rejection sampling).
"""
import argparse
import os
import sys
import time

import numpy as np


def load_glpg(path):
    raw = np.fromfile(path, dtype=np.uint8)
    if raw[:8].tobytes() != b"\x89GLPG\r\n\x1a":
        sys.exit(f"{path}: not a .glpg file")
    n = int(raw[16:24].view(np.uint64)[0])
    m = int(raw[24:32].view(np.uint64)[0])
    offsets = raw[64:64 + (n + 1) * 8].view(np.uint64)
    start = 64 + (n + 1) * 8
    targets = raw[start:start + m * 4].view(np.uint32)
    return offsets, targets


def best_of(repeat, run):
    run()  # warm-up: numba compiles on the first call
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best


def report(tool, app, walks, steps, seconds):
    print(f"{tool:<14} {app:<10} {walks} walks x {steps} steps  {seconds * 1e3:9.1f} ms  "
          f"{walks * steps / seconds / 1e6:7.1f} M steps/s", flush=True)


def pecanpy(offsets, targets, starts, steps, repeat, node2vec):
    from numba_progress import ProgressBar
    from pecanpy import pecanpy as pp

    path = "/dev/shm/walk_tools.npz" if os.path.isdir("/dev/shm") else "walk_tools.npz"
    np.savez(path, indptr=offsets.astype(np.uint32), indices=targets, data=np.ones(len(targets), np.float32))
    modes = [("deepwalk", "FirstOrderUnweighted", 1.0, 1.0)]
    if node2vec:
        modes.append(("node2vec", "SparseOTF", 2.0, 0.5))
    for app, mode, p, q in modes:
        g = getattr(pp, mode)(p=p, q=q, workers=1, verbose=False, random_state=1)
        g.read_npz(path, weighted=False, implicit_ids=True)
        g._preprocess_transition_probs()
        move_forward, has_nbrs = g.get_move_forward(), g.get_has_nbrs()

        def run():
            with ProgressBar(total=len(starts), disable=True) as progress:
                g._random_walks(len(starts), steps + 1, 1, starts, has_nbrs, move_forward, progress)

        report("PecanPy", app, len(starts), steps, best_of(repeat, run))
    os.remove(path)


def fastnode2vec(offsets, targets, starts, steps, repeat):
    from fastnode2vec.graph import _random_walk
    from numba import njit, prange

    @njit(parallel=True, nogil=True)
    def walks(indptr, indices, starts, length, p, q):
        total = 0
        for i in prange(len(starts)):
            total += len(_random_walk(indptr, indices, length, p, q, starts[i]))
        return total

    indptr, indices = offsets.astype(np.int64), targets.astype(np.int32)
    first = starts.astype(np.int32)
    for app, p, q in [("deepwalk", 1.0, 1.0), ("node2vec", 2.0, 0.5)]:
        seconds = best_of(repeat, lambda: walks(indptr, indices, first, steps + 1, p, q))
        report("fastnode2vec", app, len(starts), steps, seconds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("graph")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-pecanpy-node2vec", action="store_true",
                        help="PecanPy's node2vec takes minutes on R-MAT graphs")
    args = parser.parse_args()
    import numba

    numba.set_num_threads(args.threads)
    offsets, targets = load_glpg(args.graph)
    starts = np.nonzero(np.diff(offsets))[0].astype(np.uint32)
    np.random.default_rng(1).shuffle(starts)  # balanced work, as PecanPy does
    pecanpy(offsets, targets, starts, args.steps, args.repeat, not args.skip_pecanpy_node2vec)
    fastnode2vec(offsets, targets, starts, args.steps, args.repeat)


if __name__ == "__main__":
    main()
