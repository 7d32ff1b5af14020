"""Mini-batches of sampled neighbourhoods for a training loop (PyG's ``NeighborLoader``
shape): each batch is the k-hop neighbourhood glp samples around a batch of seed vertices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, List, Optional, Sequence

import numpy as np

from ._arrays import is_torch, to_numpy
from ._graph import Graph
from ._sample import SampleResult, _InputIds, sample


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

    Batches are sampled ``batches_per_call`` at a time, as the samples of one call (a sample
    per batch, so the engine runs them in parallel and a GPU gets the graph once per call),
    and split into mini-batches here. The draws follow ``seed``: epoch ``e`` uses the seed
    ``seed + e`` for its shuffle and its samples, so a run is reproducible. ``input_nodes``
    are vertex ids (input ids, or nodes of a NetworkX graph; a repeated one is taken once) or
    a boolean mask over the vertices; ``node`` holds input ids (vertex numbers for a NetworkX
    graph). Tensors are torch
    tensors when ``output_type="torch"`` (the default when ``input_nodes`` is a tensor), NumPy
    arrays otherwise. With ``backend="gpu"`` and torch outputs the subgraphs stay on the GPU:
    glp numbers them there and the mini-batches are cut apart there, CUDA tensors that never
    cross to the host (the counts per hop are lists).
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
        batches_per_call: int = 64,
    ) -> None:
        """Checks the arguments and maps ``input_nodes`` to input ids once (the seeds of
        every epoch, each taken once, in their first order); nothing is sampled yet.

        Raises ``ValueError`` for a ``batch_size`` or ``batches_per_call`` below 1, no
        ``fanouts`` or one below 1, a mask of the wrong shape, ids that are not integers or
        nodes of the graph, or no seed at all. An integer id that is no vertex is refused
        when its batch is sampled.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size = {batch_size}: at least 1")
        if batches_per_call < 1:
            raise ValueError(f"batches_per_call = {batches_per_call}: at least 1")
        if not fanouts or any(int(f) < 1 for f in fanouts):
            raise ValueError(f"fanouts = {list(fanouts)}: one fan-out of at least 1 per hop")
        if output_type is None:
            output_type = "torch" if is_torch(input_nodes) else "numpy"
        if is_torch(input_nodes):
            input_nodes = input_nodes.detach().cpu().numpy()
        ids = graph._native.ids()
        if input_nodes is None:
            nodes = ids
        elif np.asarray(input_nodes).dtype == bool:
            mask = np.asarray(input_nodes)
            if mask.shape != (graph.num_vertices,):
                raise ValueError(f"input_nodes: a mask of shape {mask.shape} for {graph.num_vertices} vertices")
            nodes = ids[mask]
        else:
            nodes = to_numpy(graph._vertices(input_nodes, "input_nodes"), np.int64, "input_nodes")
            # A seed once per epoch: a batch's seeds are its first local vertices, one each.
            _, first = np.unique(nodes, return_index=True)
            nodes = nodes[np.sort(first)]
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
        self.batches_per_call = int(batches_per_call)
        self._epoch = 0

    def __len__(self) -> int:
        """The number of mini-batches of an epoch: the seeds over ``batch_size``, rounded
        up (the last batch may be smaller)."""
        return -(-len(self.input_nodes) // self.batch_size)

    def __iter__(self) -> Iterator[MiniBatch]:
        """One epoch's mini-batches, ``len(self)`` of them, sampled lazily
        ``batches_per_call`` at a time. Each call starts the next epoch: its seeds are
        shuffled (when ``shuffle``) and sampled with ``seed + epoch``, so a second pass draws
        other neighbourhoods and a new loader with the same ``seed`` repeats them."""
        epoch_seed = self.seed + self._epoch
        self._epoch += 1
        nodes = self.input_nodes
        if self.shuffle:
            nodes = np.random.default_rng(epoch_seed).permutation(nodes)
        per_call = self.batch_size * self.batches_per_call
        # On a GPU with torch outputs, the subgraphs stay on the device and are cut there.
        on_device = self.backend == "gpu" and self.output_type == "torch"
        for start in range(0, len(nodes), per_call):
            seeds = nodes[start : start + per_call]
            # Consecutive groups of batch_size roots are the samples: one per mini-batch.
            result = sample(
                self.graph,
                "khop",
                # Seeds are input ids already (mapped once from input_nodes).
                roots=_InputIds(seeds),
                batch_size=self.batch_size,
                fanouts=self.fanouts,
                replace=self.replace,
                seed=(epoch_seed * 1_000_003 + start // per_call) % 2**64,
                backend=self.backend,
                output_type="torch" if on_device else "numpy",
            )
            yield from self._split(result, _TorchOps(result.node.device) if on_device else _NumpyOps())

    def _split(self, result: SampleResult, ops: _NumpyOps) -> Iterator[MiniBatch]:
        """The mini-batches of a call: each sample's part of the disjoint subgraphs, its
        local ids renumbered from 0 (the order kept: hop by hop, the seeds first). ``ops``
        does the array work where the arrays are (NumPy, or torch on their device)."""
        node, batch, row, col = result.node, result.batch, result.row, result.col
        nodes_per_hop = [int(n) for n in result.num_sampled_nodes]
        edges_per_step = [int(n) for n in result.num_sampled_edges]
        samples = result.samples
        hop_of_node = ops.repeat(nodes_per_hop)
        step_of_edge = ops.repeat(edges_per_step)
        by_sample = ops.stable_argsort(batch)
        node_bounds = ops.searchsorted(batch[by_sample], samples + 1)
        edge_sample = batch[col]
        edges_by_sample = ops.stable_argsort(edge_sample)
        edge_bounds = ops.searchsorted(edge_sample[edges_by_sample], samples + 1)
        # A vertex's local id: its place among its sample's vertices (they keep their order).
        local = ops.empty_like(node)
        local[by_sample] = ops.arange(len(node)) - node_bounds[batch[by_sample]]
        # Each sample's vertices per hop and edges per step, computed at once.
        hops, steps = len(nodes_per_hop), len(edges_per_step)
        node_counts = ops.counts(batch * hops + hop_of_node, samples * hops).reshape(samples, hops).tolist()
        edge_counts = ops.counts(edge_sample * steps + step_of_edge, samples * steps).reshape(samples, steps).tolist()
        node_bounds, edge_bounds = node_bounds.tolist(), edge_bounds.tolist()
        for s in range(samples):
            members = by_sample[node_bounds[s] : node_bounds[s + 1]]
            edges = edges_by_sample[edge_bounds[s] : edge_bounds[s + 1]]
            sampled_nodes: List[int] = [int(n) for n in node_counts[s]]
            sampled_edges: List[int] = [int(n) for n in edge_counts[s]]
            yield MiniBatch(
                node=self._out(node[members]),
                edge_index=self._out(ops.stack([local[row[edges]], local[col[edges]]])),
                batch_size=sampled_nodes[0],
                num_sampled_nodes=sampled_nodes,
                num_sampled_edges=sampled_edges,
            )

    def _out(self, array: Any) -> Any:
        if self.output_type != "torch" or is_torch(array):
            return array
        import torch

        return torch.from_numpy(np.ascontiguousarray(array))


class _NumpyOps:
    """The array operations :meth:`NeighborLoader._split` needs, on NumPy arrays."""

    def repeat(self, counts: List[int]) -> Any:
        """``i`` repeated ``counts[i]`` times, for each ``i`` in order."""
        return np.repeat(np.arange(len(counts)), counts)

    def stable_argsort(self, values: Any) -> Any:
        return np.argsort(values, kind="stable")

    def searchsorted(self, ordered: Any, count: int) -> Any:
        """Where each of ``0..count`` starts in ``ordered``."""
        return np.searchsorted(ordered, np.arange(count))

    def arange(self, count: int) -> Any:
        return np.arange(count)

    def empty_like(self, values: Any) -> Any:
        return np.empty(len(values), dtype=np.int64)

    def counts(self, values: Any, length: int) -> Any:
        """How many times each of ``0..length`` occurs in ``values``."""
        return np.bincount(values, minlength=length)

    def stack(self, arrays: List[Any]) -> Any:
        return np.stack(arrays)


class _TorchOps(_NumpyOps):
    """The same on torch tensors on ``device``."""

    def __init__(self, device: Any) -> None:
        import torch

        self.torch = torch
        self.device = device

    def repeat(self, counts: List[int]) -> Any:
        torch = self.torch
        return torch.repeat_interleave(
            torch.arange(len(counts), device=self.device), torch.tensor(counts, dtype=torch.int64, device=self.device)
        )

    def stable_argsort(self, values: Any) -> Any:
        return self.torch.sort(values, stable=True).indices

    def searchsorted(self, ordered: Any, count: int) -> Any:
        return self.torch.searchsorted(ordered, self.arange(count))

    def arange(self, count: int) -> Any:
        return self.torch.arange(count, device=self.device)

    def empty_like(self, values: Any) -> Any:
        return self.torch.empty(len(values), dtype=self.torch.int64, device=self.device)

    def counts(self, values: Any, length: int) -> Any:
        return self.torch.bincount(values, minlength=length)

    def stack(self, arrays: List[Any]) -> Any:
        return self.torch.stack(arrays)
