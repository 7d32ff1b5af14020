"""Type stubs of the native module ``glp._glp`` (the Rust half of the package)."""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class CompileError(ValueError):
    """A variant or sampler file that does not compile."""

    file: str
    line: int
    column: int

class GpuOutOfMemory(MemoryError):
    """The GPU has too little free memory for the call (bytes)."""

    needed: int
    free: int
    total: int
    held: int

class GpuError(RuntimeError):
    """No usable GPU, or a failure on it."""

class Graph:
    @staticmethod
    def load(
        path: str,
        *,
        format: Optional[str] = None,
        directed: bool = False,
        keep_self_loops: bool = False,
        duplicates: str = "collapse",
        columns: Optional[str] = None,
    ) -> "Graph": ...
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
    ) -> "Graph": ...
    def save(self, path: str) -> None: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def name(self) -> str: ...
    def ids(self) -> npt.NDArray[np.int64]: ...
    def degrees(self) -> npt.NDArray[np.int64]: ...
    def csr(
        self,
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Optional[npt.NDArray[np.float32]]]: ...

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
) -> Dict[str, Any]: ...
def modularity(graph: Graph, labels: npt.NDArray[np.int64]) -> float: ...
def nmi(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> float: ...
def ari(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> float: ...
def overlapping_nmi(a: List[List[int]], b: List[List[int]], universe: int) -> float: ...
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
) -> Dict[str, Any]: ...

class DeviceArray:
    """An int64 array on the GPU, exported once through DLPack (``torch.from_dlpack``)."""

    def __dlpack__(
        self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Optional[bool] = None
    ) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    @property
    def shape(self) -> Tuple[int, int]: ...

def set_quiet(quiet: bool) -> None: ...
