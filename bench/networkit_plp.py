#!/usr/bin/env python3
"""Run NetworKit's PLP (parallel label propagation) on the graphs glp benchmarks.

Usage: networkit_plp.py GRAPH [--threads N] [--repeat R] [--json]

GRAPH is a SNAP-style edge list (`u v [...]`, `#`/`%` comments), plain or gzip. The graph is
symmetrised with self loops and duplicate edges removed, as glp loads it. Time covers
PLP.run() only (initialised labels to convergence), the same span glp's benchmark reports.
"""
import argparse
import gzip
import json
import statistics
import sys
import time

import networkit as nk


def read_edges(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    ids = {}
    edges = set()
    with opener(path, "rt") as f:
        for line in f:
            if not line.strip() or line[0] in "#%":
                continue
            a, b = line.split()[:2]
            u = ids.setdefault(int(a), len(ids))
            v = ids.setdefault(int(b), len(ids))
            if u != v:
                edges.add((min(u, v), max(u, v)))
    graph = nk.Graph(len(ids), weighted=False, directed=False)
    for u, v in edges:
        graph.addEdge(u, v)
    return graph


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("graph")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    nk.setNumberOfThreads(args.threads)
    graph = read_edges(args.graph)
    times, modularities, iterations = [], [], []
    for _ in range(args.repeat):
        plp = nk.community.PLP(graph)
        start = time.perf_counter()
        plp.run()
        times.append((time.perf_counter() - start) * 1e3)
        partition = plp.getPartition()
        modularities.append(nk.community.Modularity().getQuality(partition, graph))
        iterations.append(plp.numberOfIterations())
    result = {
        "tool": "networkit-plp",
        "version": nk.__version__,
        "graph": args.graph,
        "vertices": graph.numberOfNodes(),
        "undirected_edges": graph.numberOfEdges(),
        "threads": args.threads,
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "iterations": statistics.median(iterations),
        "modularity": statistics.median(modularities),
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print(
            f"networkit PLP {result['version']}: {result['median_ms']:.2f} ms median, "
            f"{result['iterations']} iterations, modularity {result['modularity']:.4f}"
        )


if __name__ == "__main__":
    main()
