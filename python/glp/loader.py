"""Mini-batches of sampled neighbourhoods for a training loop (PyG's ``NeighborLoader``
shape): each batch is the k-hop neighbourhood glp samples around a batch of seed vertices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Optional, Sequence

import numpy as np

from ._arrays import is_torch, to_numpy
from ._graph import Graph
from ._sample import sample


@dataclass
class MiniBatch:
    """One mini-batch: the sampled subgraph around ``batch_size`` seed vertices.

    ``node`` holds the graph's vertex ids of the subgraph's local vertices, the seeds first
    (in order), so a model's output rows ``[:batch_size]`` are the seeds'. ``edge_index`` is
    the subgraph's ``2 x E`` edges in local ids (``[drawn vertex, transit]``: messages flow
    towards the seeds). ``num_sampled_nodes`` and ``num_sampled_edges`` count them per hop,
    as PyG's trim helpers take them.
    """

    node: Any
    edge_index: Any
    batch_size: int
    num_sampled_nodes: Sequence[int]
    num_sampled_edges: Sequence[int]


class NeighborLoader:
    """Iterates over ``input_nodes`` in mini-batches of ``batch_size`` seeds, sampling each
    batch's neighbourhood with glp's k-hop sampler (``fanouts`` neighbours per vertex and hop,
    with or without ``replace``).

    The draws follow ``seed``: epoch ``e`` uses the seed ``seed + e`` for its shuffle and its
    samples, so a run is reproducible. Tensors are torch tensors when ``output_type="torch"``
    (the default when ``input_nodes`` is a tensor), NumPy arrays otherwise.
    """

    def __init__(
        self,
        graph: Graph,
        fanouts: Sequence[int],
        input_nodes: Any = None,
        batch_size: int = 512,
        *,
        shuffle: bool = True,
        replace: bool = True,
        seed: int = 0,
        backend: str = "cpu",
        output_type: Optional[str] = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size = {batch_size}: at least 1")
        if not fanouts or any(int(f) < 1 for f in fanouts):
            raise ValueError(f"fanouts = {list(fanouts)}: one fan-out of at least 1 per hop")
        if output_type is None:
            output_type = "torch" if is_torch(input_nodes) else "numpy"
        if input_nodes is None:
            nodes = np.arange(graph.num_vertices, dtype=np.int64)
        else:
            nodes = to_numpy(input_nodes, np.int64, "input_nodes")
            if nodes.dtype == bool or (is_torch(input_nodes) and str(input_nodes.dtype) == "torch.bool"):
                nodes = np.flatnonzero(nodes).astype(np.int64)
        if nodes.size == 0:
            raise ValueError("input_nodes: no seed vertex")
        self.graph = graph
        self.fanouts = [int(f) for f in fanouts]
        self.input_nodes = nodes
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.replace = replace
        self.seed = seed
        self.backend = backend
        self.output_type = output_type
        self._epoch = 0

    def __len__(self) -> int:
        return -(-len(self.input_nodes) // self.batch_size)

    def __iter__(self) -> Iterator[MiniBatch]:
        epoch_seed = self.seed + self._epoch
        self._epoch += 1
        nodes = self.input_nodes
        if self.shuffle:
            nodes = np.random.default_rng(epoch_seed).permutation(nodes)
        for start in range(0, len(nodes), self.batch_size):
            seeds = nodes[start : start + self.batch_size]
            yield self._batch(seeds, epoch_seed * 1_000_003 + start)

    def _batch(self, seeds: np.ndarray, seed: int) -> MiniBatch:
        # One sample whose roots are the whole batch: its local ids number the roots first.
        result = sample(
            self.graph,
            "khop",
            roots=seeds,
            batch_size=len(seeds),
            fanouts=self.fanouts,
            replace=self.replace,
            seed=seed,
            backend=self.backend,
            output_type=self.output_type,
        )
        sampled_nodes = [int(n) for n in np.asarray(result.num_sampled_nodes.tolist())]
        sampled_edges = [int(n) for n in np.asarray(result.num_sampled_edges.tolist())]
        return MiniBatch(
            node=result.node,
            edge_index=result.edge_index(),
            batch_size=sampled_nodes[0],
            num_sampled_nodes=sampled_nodes,
            num_sampled_edges=sampled_edges,
        )
