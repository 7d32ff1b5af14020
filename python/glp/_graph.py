"""``glp.Graph``: loading, building from arrays and from other libraries' graphs."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _glp
from ._arrays import is_torch, to_numpy, whole

if TYPE_CHECKING:  # the result classes import Graph
    from ._lp import LpResult
    from ._sample import SampleResult

PathLike = Union[str, "os.PathLike[str]"]


class Graph:
    """A graph held by glp's Rust engines.

    Vertices are numbered ``0..num_vertices`` in increasing order of their input ids;
    ``ids`` maps each back to its input id (for graphs built from arrays, the ids are the
    array values themselves). An undirected graph stores each edge in both directions, so
    ``num_edges`` counts it twice.

    Build one with :meth:`load` (every format the ``glp`` command reads), :meth:`from_edges`
    (NumPy arrays, torch tensors on any device, lists), :meth:`from_edge_index` (PyG),
    :meth:`from_scipy` or :meth:`from_networkx`.
    """

    def __init__(self, native: "_glp.Graph", nodes: Optional[List[Any]] = None) -> None:
        """Wraps a native graph (``nodes``: a NetworkX graph's node of each vertex); build
        graphs with the static methods instead."""
        self._native = native
        # NetworkX graphs: the node object of each vertex (vertex i is nodes[i]).
        self._nodes = nodes

    # -- construction -------------------------------------------------------------------

    @staticmethod
    def load(
        path: PathLike,
        *,
        format: Optional[str] = None,
        directed: bool = False,
        keep_self_loops: bool = False,
        duplicates: str = "collapse",
        columns: Optional[str] = None,
    ) -> "Graph":
        """Loads a graph file: Matrix Market, SNAP edge list, CSV, LDBC adjacency or
        ``.v``/``.e``, or glp's ``.glpg``; plain, gzip, bzip2, xz or zstd compressed.

        ``format`` forces one of ``mtx``, ``edges``, ``csv``, ``adj``, ``ldbc``, ``glpg``
        (detected by default). ``directed=True`` keeps edge directions (else every edge gets
        its reverse); ``duplicates`` is ``keep``, ``collapse`` (the largest weight) or
        ``sum``; ``columns`` chooses an edge list's ``SRC,DST[,WEIGHT]`` columns.

        Raises ``FileNotFoundError`` for a missing file and ``ValueError`` (with file, line
        and column) for a malformed one.
        """
        native = _glp.Graph.load(
            os.fspath(path),
            format=format,
            directed=directed,
            keep_self_loops=keep_self_loops,
            duplicates=duplicates,
            columns=columns,
        )
        return Graph(native)

    @staticmethod
    def from_edges(
        src: Any,
        dst: Any,
        weights: Any = None,
        num_vertices: Optional[int] = None,
        directed: bool = False,
        *,
        keep_self_loops: bool = False,
        duplicates: str = "collapse",
    ) -> "Graph":
        """The graph of the edges ``src[i] -> dst[i]`` over the vertices
        ``0..num_vertices`` (by default one more than the largest id).

        ``src``, ``dst`` and ``weights`` are NumPy arrays, torch tensors (CPU or CUDA) or
        sequences; ids are non-negative integers, weights finite numbers. Without
        ``directed=True`` every edge also gets its reverse; self loops are dropped unless
        ``keep_self_loops``; repeated edges follow ``duplicates``.

        Anything else is a ``ValueError`` naming the argument: strings, objects, booleans (a
        boolean array is a mask, not ids), fractions, negative ids, arrays of other shapes.
        """
        sources = to_numpy(src, np.int64, "src")
        targets = to_numpy(dst, np.int64, "dst")
        w = None if weights is None else to_numpy(weights, np.float32, "weights")
        n = None if num_vertices is None else whole("num_vertices", num_vertices, high=2**63 - 1)
        native = _glp.Graph.from_arrays(
            sources,
            targets,
            w,
            num_vertices=n,
            directed=directed,
            keep_self_loops=keep_self_loops,
            duplicates=duplicates,
        )
        return Graph(native)

    @staticmethod
    def from_edge_index(
        edge_index: Any, num_nodes: Optional[int] = None, edge_weight: Any = None, directed: bool = False
    ) -> "Graph":
        """The graph of a PyG ``edge_index`` (a ``2 x E`` tensor or array), with
        ``num_nodes`` vertices (isolated ones included) and optional ``edge_weight``."""
        if is_torch(edge_index):
            edge_index = edge_index.detach().cpu().numpy()
        edge_index = np.asarray(edge_index)
        if edge_index.ndim != 2 or edge_index.shape[0] != 2:
            raise ValueError(f"edge_index: expected shape (2, E), got {edge_index.shape}")
        return Graph.from_edges(edge_index[0], edge_index[1], edge_weight, num_nodes, directed)

    @staticmethod
    def from_scipy(matrix: Any, directed: bool = False, weighted: bool = True) -> "Graph":
        """The graph of a SciPy sparse adjacency matrix (any format; square): entry
        ``(i, j)`` is the edge ``i -> j``, its value the weight (ignored with
        ``weighted=False``).

        Anything but a SciPy sparse matrix or array (a dense NumPy array, a list) is a
        ``ValueError``, as every bad argument of the package is: build the graph of a dense
        adjacency matrix ``a`` with ``from_scipy(scipy.sparse.csr_array(a))`` or of its edge
        arrays with :meth:`from_edges`."""
        try:
            from scipy import sparse
        except ImportError:  # pragma: no cover - a SciPy matrix comes with SciPy
            sparse = None
        if sparse is None or not sparse.issparse(matrix):
            kind = f"{type(matrix).__module__}.{type(matrix).__qualname__}"
            raise ValueError(
                f"from_scipy: expected a SciPy sparse matrix or array, got {kind} "
                "(a dense matrix a: from_scipy(scipy.sparse.csr_array(a)); edge arrays: Graph.from_edges)"
            )
        shape = matrix.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"expected a square sparse matrix, got shape {shape}")
        # Through CSR: repeated entries are summed, as SciPy means them.
        coo = matrix.tocsr().tocoo()
        weights = coo.data if weighted else None
        return Graph.from_edges(coo.row, coo.col, weights, shape[0], directed)

    @staticmethod
    def from_networkx(graph: Any, weight: Optional[str] = "weight") -> "Graph":
        """The graph of a NetworkX graph: vertex ``i`` is its ``i``-th node, directed when it
        is, weighted by the edge attribute ``weight`` when every edge has it.

        Nodes may be any hashables: arguments that name vertices (``roots``, ``seeds``,
        ``input_nodes``) take nodes, and ``ids``, ``LpResult.to_dict`` and
        ``communities_list`` give nodes back. Sampled arrays hold vertex numbers (node
        ``g.ids[i]`` for ``i``), as tensors need integers."""
        nodes = list(graph.nodes())
        index: Dict[Any, int] = {node: i for i, node in enumerate(nodes)}
        edges = list(graph.edges(data=True))
        src = np.fromiter((index[u] for u, _, _ in edges), dtype=np.int64, count=len(edges))
        dst = np.fromiter((index[v] for _, v, _ in edges), dtype=np.int64, count=len(edges))
        weights = None
        if weight is not None and edges and all(weight in data for _, _, data in edges):
            weights = np.fromiter((data[weight] for _, _, data in edges), dtype=np.float64, count=len(edges))
        native = _glp.Graph.from_arrays(
            src,
            dst,
            None if weights is None else weights.astype(np.float32),
            num_vertices=len(nodes),
            directed=graph.is_directed(),
            keep_self_loops=False,
            duplicates="collapse",
        )
        identity = all(isinstance(node, (int, np.integer)) and node == i for i, node in enumerate(nodes))
        return Graph(native, None if identity else nodes)

    # -- properties ---------------------------------------------------------------------

    @property
    def num_vertices(self) -> int:
        """Number of vertices."""
        return self._native.num_vertices

    @property
    def num_edges(self) -> int:
        """Number of stored edges (an undirected edge counts twice)."""
        return self._native.num_edges

    @property
    def directed(self) -> bool:
        """Whether edges keep their directions."""
        return self._native.directed

    @property
    def weighted(self) -> bool:
        """Whether edges carry weights."""
        return self._native.weighted

    @property
    def ids(self) -> Any:
        """The input id of every vertex: an int64 array, or a list of node objects for a
        NetworkX graph whose nodes are not ``0..n``."""
        return list(self._nodes) if self._nodes is not None else self._native.ids()

    @property
    def degrees(self) -> np.ndarray:
        """Stored edges of every vertex (int64)."""
        return self._native.degrees()

    def csr(self) -> "tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]":
        """``(offsets, targets, weights or None)``: vertex ``v``'s edges are
        ``targets[offsets[v]:offsets[v + 1]]`` (vertex numbers, not input ids)."""
        return self._native.csr()

    def save(self, path: PathLike) -> None:
        """Writes the graph as a ``.glpg`` file (loads back exactly as written)."""
        self._native.save(os.fspath(path))

    # -- algorithms (see glp.label_propagation and glp.sample) ---------------------------

    def label_propagation(self, variant: str = "classic", **options: Any) -> "LpResult":
        """``glp.label_propagation(self, variant, **options)``: communities with label
        propagation (see :func:`glp.label_propagation` for the options)."""
        from ._lp import label_propagation

        return label_propagation(self, variant, **options)

    def sample(self, sampler: str, **options: Any) -> "SampleResult":
        """``glp.sample(self, sampler, **options)``: samples of the graph (see
        :func:`glp.sample` for the samplers and options)."""
        from ._sample import sample

        return sample(self, sampler, **options)

    def _vertices(self, values: Any, name: str) -> Any:
        """Vertices as the user names them (input ids; node objects for a NetworkX graph
        whose nodes are not ``0..n``) as the input ids the native calls take."""
        if self._nodes is None:
            return values
        index = {node: i for i, node in enumerate(self._nodes)}
        if is_torch(values):
            values = values.detach().cpu().tolist()
        try:
            return np.array(
                [index[v] for v in (np.asarray(values).tolist() if isinstance(values, np.ndarray) else values)],
                dtype=np.int64,
            )
        except KeyError as error:
            raise ValueError(f"{name}: {error.args[0]!r} is not a node of the graph") from None
        except TypeError as error:
            raise ValueError(f"{name}: expected nodes of the graph ({error})") from None

    def _names(self, values: np.ndarray) -> Sequence[Any]:
        """Input ids (``values``, int64, -1 for none) as the user's names: the values, or
        the NetworkX node objects (``None`` for -1)."""
        if self._nodes is None:
            return values
        return [None if v < 0 else self._nodes[v] for v in values.tolist()]

    def __repr__(self) -> str:
        """Where the graph came from and its size: ``glp.Graph(path: n vertices, m stored edges)``."""
        return repr(self._native)
