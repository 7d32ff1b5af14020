"""Graph sampling: walks and subgraph samples, as NumPy arrays, torch tensors or PyG's
``SamplerOutput``."""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _glp
from ._arrays import is_torch, output, to_numpy, whole
from ._graph import Graph


def _per_sample_array(name: str, doc: str) -> Any:
    """The read-only attribute of :class:`SampleResult`'s per-sample array ``name``."""
    return property(lambda result: result._array(name), doc=doc)


@dataclass
class SampleResult:
    """The samples of :func:`sample`, in sample order.

    Every sample has roots (``roots[root_offsets[i]:root_offsets[i+1]]``) and the vertices it
    added (``vertices[offsets[i]:offsets[i+1]]``), each drawn from ``sources[j]`` at step
    ``steps[j]``. Ids are input ids.

    Walk samplers (DeepWalk, node2vec, PPR, ...) also give ``walks``: one row per walk, its
    root first, padded with -1 to the longest walk (``walk_length + 1`` columns unless every
    walk stopped early; the ``.npy`` file of ``glp sample`` holds the same array). After a GPU
    run with ``output_type="torch"`` they give ``walks`` alone, a tensor on the device.

    Subgraph samplers (k-hop, layer, ...) give the arrays of PyG's ``SamplerOutput`` (disjoint
    subgraphs): ``node`` (input id of each local vertex), ``batch`` (its sample),
    ``row``/``col`` (each sampled edge's drawn vertex and transit, in local ids, step by step),
    ``num_sampled_nodes`` per hop and ``num_sampled_edges`` per step. After a GPU run with
    ``output_type="torch"`` they give these alone: ``node``, ``batch``, ``row`` and ``col``
    are int64 tensors on the device, numbered there, and the counts are lists of ints.

    The per-sample arrays (``roots``, ``vertices``, ...) are made when one of them is first read,
    from the engines' records kept until then (which keep the graph alive too), so that a call
    that only wants ``walks`` or PyG's arrays does not pay for arrays three or four times their
    size.

    Results left on the device (``on_device``) still give ``samples``, ``sampled_vertices``
    and ``time_ms`` (the sampling and the conversion on the device).
    """

    sampler: str
    is_walk: bool
    walks: Any = None
    node: Any = None
    batch: Any = None
    row: Any = None
    col: Any = None
    num_sampled_nodes: Any = None
    num_sampled_edges: Any = None
    backend: str = "cpu"
    device: Optional[str] = None
    engine: Optional[str] = None
    kernel_ms: Optional[float] = None
    time_ms: float = 0.0
    samples: int = 0
    sampled_vertices: int = 0
    on_device: bool = False
    # The per-sample arrays (roots, root_offsets, vertices, sources, steps, offsets) once made,
    # and what makes them from the engines' records when one is first read (None for samples
    # left on the device): a call that wants `walks`, or PyG's arrays, makes none of them.
    _per_sample: Dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _make_per_sample: Optional[Callable[[], Dict[str, Any]]] = field(
        default=None, init=False, repr=False, compare=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    roots = _per_sample_array(
        "roots",
        "Every sample's roots, ``roots[root_offsets[i]:root_offsets[i+1]]`` for sample ``i`` (a walk's: "
        "the first entries of its row).",
    )
    root_offsets = _per_sample_array(
        "root_offsets", "Where each sample's roots start in ``roots`` (``samples + 1`` entries)."
    )
    vertices = _per_sample_array(
        "vertices",
        "The vertices the samples added, sample after sample (a walk's: its row after its roots, without the padding).",
    )
    sources = _per_sample_array(
        "sources", "The transit each of ``vertices`` was drawn from (a one-root walk's: the vertex before it)."
    )
    steps = _per_sample_array(
        "steps", "The step that drew each of ``vertices`` (a one-root walk's: its place in the row, less one)."
    )
    offsets = _per_sample_array(
        "offsets", "Where each sample's added vertices start in ``vertices`` (``samples + 1`` entries)."
    )

    def _array(self, name: str) -> Any:
        """The per-sample array ``name``, the arrays made on the first read (``None`` for
        results left on the device). Made once whatever the threads that read them."""
        with self._lock:
            if self._make_per_sample is not None:
                self._per_sample = self._make_per_sample()
                self._make_per_sample = None  # the records it held are let go
        return self._per_sample.get(name)

    def __getstate__(self) -> Dict[str, Any]:
        """Pickled with its per-sample arrays made (the engines' records stay in this process)."""
        self._array("roots")
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def edge_index(self) -> Any:
        """Subgraph samples' edges as a ``2 x E`` array of local ids (``[row, col]``: messages
        flow from the drawn vertex to its transit, PyG's convention)."""
        if self.row is None:
            raise ValueError(f"{self.sampler} samples walks: use .walks")
        if is_torch(self.row):
            import torch

            return torch.stack([self.row, self.col])
        return np.stack([self.row, self.col])

    def to_pyg(self) -> Any:
        """The subgraph samples as ``torch_geometric.sampler.SamplerOutput``."""
        if self.row is None:
            raise ValueError(f"{self.sampler} samples walks: PyG's SamplerOutput holds subgraphs")
        import torch
        from torch_geometric.sampler import SamplerOutput

        tensor = lambda a: a if is_torch(a) else torch.from_numpy(np.asarray(a))  # noqa: E731
        return SamplerOutput(
            node=tensor(self.node),
            row=tensor(self.row),
            col=tensor(self.col),
            edge=None,
            batch=tensor(self.batch),
            num_sampled_nodes=_ints(self.num_sampled_nodes),
            num_sampled_edges=_ints(self.num_sampled_edges),
        )


def _records_arrays(records: "_glp.SampleRecords", as_torch: bool, device: Optional[str]) -> Dict[str, Any]:
    """The per-sample arrays of a run's records, as the run's other arrays are given."""
    return {name: output(array, as_torch, device) for name, array in records.arrays().items()}


def _ints(counts: Any) -> List[int]:
    """Counts (a list, a NumPy array or a tensor on any device) as a list of ints."""
    return [int(n) for n in (counts.tolist() if hasattr(counts, "tolist") else counts)]


class _InputIds:
    """Roots already given as input ids (vertex numbers for a NetworkX graph), which
    :func:`sample` passes on as they are instead of reading them as the user's vertex names.
    Private: :class:`~glp.NeighborLoader` maps its ``input_nodes`` once, when it is made, and
    samples its batches with these."""

    __slots__ = ("ids",)

    def __init__(self, ids: np.ndarray) -> None:
        self.ids = ids


RootsLike = Union[None, int, str, "os.PathLike[str]", Sequence[int], np.ndarray, Any]

# The arrays of one kind of sampler or the other.
_ARRAYS = (
    "walks",
    "node",
    "batch",
    "row",
    "col",
    "num_sampled_nodes",
    "num_sampled_edges",
)


def sample(
    graph: Graph,
    sampler: str,
    *,
    roots: RootsLike = None,
    walk_length: int = 80,
    fanouts: Sequence[int] = (25, 10),
    replace: bool = True,
    p: float = 1.0,
    q: float = 1.0,
    termination: float = 0.15,
    layers: int = 2,
    layer_size: int = 64,
    batch_size: Optional[int] = None,
    clusters: Union[None, int, str, "os.PathLike[str]"] = None,
    params: Optional[Mapping[str, Any]] = None,
    seed: int = 0,
    backend: str = "auto",
    engine: str = "auto",
    placement: str = "auto",
    device_memory: Optional[int] = None,
    batch_samples: Optional[int] = None,
    output_type: str = "numpy",
) -> SampleResult:
    """Samples ``graph`` with ``sampler`` (``glp sample``): ``deepwalk``,
    ``weighted-deepwalk``, ``ppr``, ``node2vec``, ``khop``, ``layer``, ``fastgcn``,
    ``ladies``, ``mvs``, ``cluster-gcn``, ``multi-root-walk``, or the path of a sampler
    written in Rust (``.rs``, its parameters in ``params``).

    ``roots``: ``None`` (one sample per vertex), an int (that many samples of random roots),
    an array of vertex ids (one sample each, or ``batch_size`` per sample), or a file of ids.
    ``seed`` fixes every draw: the same seed gives the same samples on the CPU and the GPU,
    and as the ``glp sample`` command. ``backend`` is ``auto``, ``cpu`` or ``gpu``; ``engine``
    (``sp``, ``tp``, ``auto``), ``placement`` and ``device_memory`` choose how the GPU runs.
    ``output_type="torch"`` returns torch tensors. After a GPU run the samples stay on the
    GPU that ran them, as CUDA tensors over glp's own buffers (DLPack, no copy through the
    host): a walk sampler's ``walks``, a subgraph sampler's ``node``, ``batch``, ``row`` and
    ``col`` (numbered on the GPU, equal to the CPU's arrays for the same seed; the counts per
    hop and step are lists); the per-sample arrays (``roots``, ``vertices``, ...) are then not
    given. Subgraphs kept on the GPU hold every sample until the call ends: when they do not
    fit, ``output_type="numpy"`` numbers them on the host batch by batch. Walks the GPU's
    walk engine does not take (a graph streamed in partitions) and walks whose declared length
    would not fit the GPU as rows (``walk_length`` far beyond where PPR's walks end) are
    copied to the GPU from the host's rows, as long as the longest walk.
    """
    if output_type not in ("numpy", "torch"):
        raise ValueError(f"output_type=`{output_type}`: expected numpy or torch")
    if isinstance(roots, bool):
        raise ValueError("roots: expected None, a count, vertex ids or a file")
    if isinstance(roots, (int, np.integer)):
        if roots < 1:
            raise ValueError(f"roots = {roots}: at least 1 sample of random roots")
        roots_arg: Any = int(roots)
    elif isinstance(roots, (str, os.PathLike)):
        roots_arg = os.fspath(roots)
    elif roots is None:
        roots_arg = None
    elif isinstance(roots, _InputIds):
        roots_arg = to_numpy(roots.ids, np.int64, "roots")
    else:
        roots_arg = to_numpy(graph._vertices(roots, "roots"), np.int64, "roots")
    u64 = 2**64 - 1
    walk_length = whole("walk_length", walk_length)
    fanouts = [whole("fanouts", f) for f in fanouts]
    layers, layer_size = whole("layers", layers), whole("layer_size", layer_size)
    batch_size = None if batch_size is None else whole("batch_size", batch_size)
    seed = whole("seed", seed, high=u64)
    device_memory = None if device_memory is None else whole("device_memory", device_memory, high=u64)
    batch_samples = None if batch_samples is None else whole("batch_samples", batch_samples, high=u64)
    raw: Dict[str, Any] = _glp.sample(
        graph._native,
        os.fspath(sampler),
        roots=roots_arg,
        walk_length=walk_length,
        fanouts=fanouts,
        replace=replace,
        p=p,
        q=q,
        termination=termination,
        layers=layers,
        layer_size=layer_size,
        batch_size=batch_size,
        clusters=None if clusters is None else str(os.fspath(clusters) if not isinstance(clusters, int) else clusters),
        params=[f"{name}={value}" for name, value in (params or {}).items()],
        seed=seed,
        backend=backend,
        engine=engine,
        placement=placement,
        device_memory=device_memory,
        batch_samples=batch_samples,
        device_output=output_type == "torch",
    )
    as_torch = output_type == "torch"
    on_device = bool(raw.get("on_device"))
    if on_device:
        # Samples left on the GPU: torch tensors over glp's buffers (DLPack), no host copy.
        import torch

        arrays: Dict[str, Any] = {
            name: torch.from_dlpack(raw[name]) for name in ("walks", "node", "batch", "row", "col") if name in raw
        }
        for name in ("num_sampled_nodes", "num_sampled_edges"):
            if name in raw:
                arrays[name] = [int(n) for n in raw[name]]
    else:
        # Host arrays of a GPU run go to the GPU that ran it.
        device = f"cuda:{raw['ordinal']}" if as_torch and raw.get("ordinal") is not None else None
        arrays = {name: output(raw.get(name), as_torch, device) for name in _ARRAYS}
    result = SampleResult(
        sampler=raw["sampler"],
        is_walk=raw["is_walk"],
        backend=raw["backend"],
        device=raw["device"],
        engine=raw["engine"],
        kernel_ms=raw["kernel_ms"],
        time_ms=raw.get("time_ms", 0.0),
        samples=raw["samples"],
        sampled_vertices=raw.get("sampled_vertices", 0),
        on_device=on_device,
        **arrays,
    )
    if not on_device:
        result._make_per_sample = functools.partial(_records_arrays, raw["records"], as_torch, device)
    return result
