"""Label propagation and the quality metrics."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _glp
from ._arrays import is_torch, to_numpy, whole
from ._graph import Graph


@dataclass
class LpResult:
    """What :func:`label_propagation` found.

    ``labels[i]`` is the label of vertex ``i`` (aligned with ``graph.ids``): the input id of
    the vertex the label started at (its vertex number for a NetworkX graph, whose
    ``to_dict`` gives the node), the seed value for seeded runs, ``-1`` for a vertex no label
    reached. Quality functions take ``-1`` as unlabelled too. ``memberships``
    (speaker-listener LP) lists every community of each vertex.
    """

    graph: Graph
    labels: np.ndarray
    memberships: Optional[List[np.ndarray]]
    iterations: int
    converged: bool
    time_ms: float
    changed_per_iteration: List[int]
    modularity: float
    communities: int
    backend: str
    # Whether labels are seed values (a run with seeds) rather than the vertices they started at.
    seed_values: bool = False
    extra: Dict[str, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> Dict[Any, Any]:
        """``{vertex: label}`` by input id (NetworkX node objects for NetworkX graphs;
        ``None`` for an unlabelled vertex)."""
        ids = self.graph.ids
        # Node objects stay as they are (a tuple node is a key as it is, not a list).
        keys = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
        if self.seed_values or self.graph._nodes is None:
            # Seed values, or input ids: numbers as they are.
            values: Sequence[Any] = [None if v < 0 else v for v in self.labels.tolist()]
        else:
            values = self.graph._names(self.labels)
        return dict(zip(keys, values))

    def communities_list(self) -> List[List[Any]]:
        """The communities as lists of input ids (or node objects), largest first; a vertex
        of several communities (speaker-listener LP) is in each of them."""
        ids = self.graph.ids
        groups: Dict[int, List[Any]] = {}
        per_vertex = self.memberships if self.memberships is not None else [[label] for label in self.labels.tolist()]
        for v, labels in enumerate(per_vertex):
            for label in np.asarray(labels).tolist() or [self.labels[v]]:
                if label >= 0:
                    groups.setdefault(label, []).append(ids[v])
        return sorted(groups.values(), key=len, reverse=True)


SeedsLike = Union[str, "os.PathLike[str]", Mapping[Any, int], Sequence[Sequence[Any]], np.ndarray]


def _seeds_argument(graph: Graph, seeds: Optional[SeedsLike]) -> Any:
    """``seeds`` as the native call takes them: a path, or ``vertex label`` lines."""
    if seeds is None:
        return None
    if isinstance(seeds, (str, os.PathLike)):
        return os.fspath(seeds)
    if is_torch(seeds):
        seeds = seeds.detach().cpu().numpy()
    if isinstance(seeds, np.ndarray):
        if seeds.ndim != 2 or seeds.shape[1] != 2:
            raise ValueError(
                "seeds: expected a {vertex: label} mapping, (vertex, label) pairs (an array of shape "
                f"(k, 2)) or a file, got an array of shape {seeds.shape}"
            )
        seeds = seeds.tolist()
    items = list(seeds.items() if isinstance(seeds, Mapping) else seeds)
    for item in items:
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
            raise ValueError(
                f"seeds: {item!r} is not a (vertex, label) pair: seeds are a {{vertex: label}} mapping, "
                "(vertex, label) pairs or a file (to seed vertices with labels of their own, pass "
                "{v: v for v in vertices})"
            )
    vertices = graph._vertices([vertex for vertex, _ in items], "seeds")
    lines = []
    for vertex, (_, label) in zip(vertices, items):
        lines.append(f"{int(vertex)} {whole('seeds label', label, high=2**63 - 1)}\n")
    if not lines:
        raise ValueError("seeds: no seed given")
    # Lines travel as bytes (a str is a path).
    return "".join(lines).encode()


def label_propagation(
    graph: Graph,
    variant: str = "classic",
    *,
    schedule: str = "async",
    iterations: int = 20,
    ties: Optional[str] = None,
    params: Optional[Mapping[str, Any]] = None,
    seeds: Optional[SeedsLike] = None,
    seed: int = 0,
    backend: str = "auto",
    mfl: str = "glp",
    pick_less_every: Optional[int] = None,
    tolerance: Optional[float] = None,
) -> LpResult:
    """Detects communities with label propagation (``glp lp``).

    ``variant`` is ``classic``, ``weighted``, ``capped``, ``llp``, ``slp``, ``seeded`` or
    the path of a variant written in Rust (``.rs``), with its parameters in ``params``
    (``{"gamma": 4}``). ``schedule`` is ``async`` (nu-LPA / GVE-LPA) or ``sync`` (GLP,
    LDBC CDLP); ``ties`` ``smallest``, ``first`` (CPU) or ``hashed``. ``seeds`` gives the
    seed labels of ``seeded``: a ``{vertex: label}`` mapping, ``(vertex, label)`` pairs (a
    list, or an array of shape ``(k, 2)``) or a file of ``vertex label`` lines; labels are
    whole numbers. A plain list of vertices is refused (``ValueError``): a seed needs its
    label (``{v: v for v in vertices}`` seeds each with its own id). ``backend`` is
    ``auto`` (a GPU when one opens), ``cpu`` or ``gpu``; ``mfl`` chooses how the most
    frequent label is found (``glp``, ``mg8``, ... as ``glp lp --help`` lists).

    Raises ``ValueError`` for bad arguments, ``FileNotFoundError`` for a missing variant or
    seeds file, ``glp.CompileError`` for a variant file that does not compile (with its
    ``file``, ``line`` and ``column``), ``RuntimeError`` when a variant file's code fails while
    it runs (a division by zero: the message points into the file), ``glp.GpuError`` for
    ``backend="gpu"`` without a usable GPU and ``glp.GpuOutOfMemory`` when the device is too
    small. A progress bar follows the iterations when standard error is a terminal.
    """
    seeds_arg = _seeds_argument(graph, seeds)
    iterations = whole("iterations", iterations)
    seed = whole("seed", seed, high=2**64 - 1)
    options: Dict[str, Any] = {}
    if pick_less_every is not None:
        options["pick_less_every"] = whole("pick_less_every", pick_less_every)
    if tolerance is not None:
        options["tolerance"] = tolerance
    raw = _glp.label_propagation(
        graph._native,
        os.fspath(variant),
        schedule=schedule,
        iterations=iterations,
        ties=ties,
        params=[f"{name}={value}" for name, value in (params or {}).items()],
        seeds=seeds_arg,
        seed=seed,
        backend=backend,
        mfl=mfl,
        **options,
    )
    return LpResult(
        graph=graph,
        labels=raw["labels"],
        memberships=raw["memberships"],
        iterations=raw["iterations"],
        converged=raw["converged"],
        time_ms=raw["time_ms"],
        changed_per_iteration=list(raw["changed_per_iteration"]),
        modularity=raw["modularity"],
        communities=raw["communities"],
        backend=raw["backend"],
        seed_values=seeds is not None,
    )


def _labels(labels: Any, name: str) -> np.ndarray:
    """Labels of any hashable values as int64 codes (equal values, equal codes)."""
    if isinstance(labels, Mapping):
        raise ValueError(f"{name}: expected one label per vertex (an array), got a mapping")
    try:
        return to_numpy(labels, np.int64, name)
    except (ValueError, TypeError):
        _, codes = np.unique(np.asarray(labels, dtype=object).astype(str), return_inverse=True)
        return codes.astype(np.int64)


def modularity(graph: Graph, labels: Any) -> float:
    """Newman's modularity of the partition ``labels`` (one label per vertex, in vertex
    order) of ``graph``, weighted when the graph is."""
    return _glp.modularity(graph._native, _labels(labels, "labels"))


def nmi(a: Any, b: Any) -> float:
    """Normalised mutual information of two partitions of the same items (arithmetic
    normalisation, as scikit-learn's default)."""
    return _glp.nmi(_labels(a, "a"), _labels(b, "b"))


def ari(a: Any, b: Any) -> float:
    """Adjusted Rand index of two partitions of the same items."""
    return _glp.ari(_labels(a, "a"), _labels(b, "b"))


def overlapping_nmi(a: Sequence[Sequence[int]], b: Sequence[Sequence[int]], universe: int) -> float:
    """Overlapping NMI (McDaid, Greene and Hurley's NMI_max) of two covers of the items
    ``0..universe``, each a list of communities (lists of items)."""
    cover = lambda c: [[int(v) for v in community] for community in c]  # noqa: E731
    return _glp.overlapping_nmi(cover(a), cover(b), universe)
