"""Type stubs of the native module ``glp._glp`` (the Rust half of the package)."""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class CompileError(ValueError):
    """A variant or sampler file that does not compile: the file, and the line and column
    (from 1) its first error points at (``None`` for an error of the whole file)."""

    file: Optional[str]
    line: Optional[int]
    column: Optional[int]

class GpuOutOfMemory(MemoryError):
    """The GPU has too little free memory for the call (bytes)."""

    needed: int
    free: int
    total: int
    held: int

class GpuError(RuntimeError):
    """No usable GPU, or a failure on it."""

class Graph:
    """A graph held by glp's engines (``glp.Graph`` wraps it)."""

    @staticmethod
    def load(
        path: str,
        *,
        format: Optional[str] = None,
        directed: bool = False,
        keep_self_loops: bool = False,
        duplicates: str = "collapse",
        columns: Optional[str] = None,
    ) -> "Graph":
        """Loads a graph file, as the ``glp`` command does."""
    @staticmethod
    def from_arrays(
        sources: npt.NDArray[np.int64],
        targets: npt.NDArray[np.int64],
        weights: Optional[npt.NDArray[np.float32]] = None,
        *,
        num_vertices: Optional[int] = None,
        directed: bool = False,
        keep_self_loops: bool = False,
        duplicates: str = "collapse",
    ) -> "Graph":
        """The graph of the edges ``sources[i] -> targets[i]`` (checked ids)."""
    def save(self, path: str) -> None:
        """Writes the graph as a ``.glpg`` file."""
    @property
    def num_vertices(self) -> int:
        """Number of vertices."""
    @property
    def num_edges(self) -> int:
        """Number of stored edges (an undirected edge counts twice)."""
    @property
    def directed(self) -> bool:
        """Whether the edges keep their directions."""
    @property
    def weighted(self) -> bool:
        """Whether the edges carry weights."""
    @property
    def name(self) -> str:
        """Where the graph came from."""
    def ids(self) -> npt.NDArray[np.int64]:
        """The input id of every vertex."""
    def degrees(self) -> npt.NDArray[np.int64]:
        """The number of stored edges of every vertex."""
    def csr(
        self,
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Optional[npt.NDArray[np.float32]]]:
        """``(offsets, targets, weights or None)`` of the stored edges (vertex numbers)."""

def label_propagation(
    graph: Graph,
    variant: str = "classic",
    *,
    schedule: str = "async",
    iterations: int = 20,
    ties: Optional[str] = None,
    params: List[str] = ...,
    seeds: Union[None, str, bytes] = None,
    seed: int = 0,
    backend: str = "auto",
    mfl: str = "glp",
    pick_less_every: int = ...,
    tolerance: float = ...,
) -> Dict[str, Any]:
    """Runs label propagation (``glp lp``): the labels and the run's statistics."""

def modularity(graph: Graph, labels: npt.NDArray[np.int64]) -> float:
    """Modularity of a partition of ``graph`` (-1: unlabelled)."""

def nmi(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> float:
    """Normalised mutual information of two partitions (arithmetic normalisation)."""

def ari(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> float:
    """Adjusted Rand index of two partitions."""

def overlapping_nmi(a: List[List[int]], b: List[List[int]], universe: int) -> float:
    """McDaid, Greene and Hurley's NMI_max of two covers of ``0..universe``."""

def sample(
    graph: Graph,
    sampler: str,
    *,
    roots: Union[None, int, str, npt.NDArray[np.int64]] = None,
    walk_length: int = 80,
    fanouts: List[int] = ...,
    replace: bool = True,
    p: float = 1.0,
    q: float = 1.0,
    termination: float = 0.15,
    layers: int = 2,
    layer_size: int = 64,
    batch_size: Optional[int] = None,
    clusters: Optional[str] = None,
    params: List[str] = ...,
    seed: int = 0,
    backend: str = "auto",
    engine: str = "auto",
    placement: str = "auto",
    device_memory: Optional[int] = None,
    batch_samples: Optional[int] = None,
    device_output: bool = False,
) -> Dict[str, Any]:
    """Samples (``glp sample``): the samples' arrays (a walk sampler's rows, ``walks``, or a
    subgraph sampler's PyG arrays, and the run's ``records``) and the run's statistics. With
    ``device_output`` a GPU run's samples stay on its device (``on_device``, the GPU's
    ``ordinal``): ``walks``, or ``node``, ``batch``, ``row`` and ``col``, as ``DeviceArray``s
    (the counts per hop and step as lists)."""

class SampleRecords:
    """A run's samples as the engines gave them (``sample``'s ``records``), kept until their
    per-sample arrays are first asked for."""

    def arrays(self) -> Dict[str, npt.NDArray[np.int64]]:
        """``roots``, ``root_offsets``, ``vertices``, ``sources``, ``steps`` and ``offsets``
        (vertices as input ids)."""

class DeviceArray:
    """An int64 array on the GPU (1-D, or 2-D rows), exported once through DLPack
    (``torch.from_dlpack``): walks or subgraph arrays that ``sample`` left on the device."""

    def __dlpack__(
        self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Optional[bool] = None
    ) -> Any:
        """The array as a DLPack capsule (an unversioned ``DLManagedTensor`` named
        ``dltensor``, int64, on CUDA): the consumer's tensor then owns the device memory and
        frees it with its deleter. Once only: a second call raises ``BufferError``, as does
        ``copy=True`` (no copy is made). The data is complete when it is returned (glp
        synchronised its stream), so ``stream``, ``max_version`` and ``dl_device`` are
        ignored."""
    def __dlpack_device__(self) -> Tuple[int, int]:
        """``(2, ordinal)``: DLPack's ``kDLCUDA`` and the GPU that holds the array."""
    @property
    def shape(self) -> Tuple[int, ...]:
        """``(length,)``, or ``(rows, columns)`` for walks (rows may lie further apart than
        ``columns`` entries; DLPack's strides say so)."""

def set_quiet(quiet: bool) -> None:
    """Silences notices and progress bars (``glp --quiet``); warnings stay."""
