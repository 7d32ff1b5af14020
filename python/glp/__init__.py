"""glp: label propagation and graph sampling on GPUs and CPUs.

The package is a thin layer over glp's Rust engines (the same ones the ``glp`` command
runs), so a call here and the command with the same arguments give the same labels and the
same samples for a seed::

    import glp

    g = glp.Graph.load("graph.txt")                 # or Graph.from_edges(src, dst), ...
    lp = g.label_propagation("llp", params={"gamma": 4})
    print(lp.communities, lp.modularity)

    walks = glp.sample(g, "deepwalk", walk_length=80, seed=7).walks   # (vertices, 81)

Long calls release the GIL; label propagation and sampling, on the CPU or the GPU, stop on
Ctrl-C (``KeyboardInterrupt``) at their next iteration or batch. Errors are
``ValueError`` (bad arguments of any kind, malformed files, with file, line and column),
``FileNotFoundError`` (a missing graph, roots, seeds, variant or sampler file),
:class:`CompileError` (a variant or sampler file that does not compile, with ``file``,
``line``, ``column``; ``None`` for an error of the whole file), ``RuntimeError`` (a variant's
or sampler's code failing while it runs), :class:`GpuOutOfMemory` (``needed``, ``free``,
``total``, ``held`` bytes) and :class:`GpuError` (no usable GPU, or a failure on it).

Progress follows the ``glp`` command's rules: loading, label propagation and sampling draw
bars on standard error when it is a terminal, and nothing otherwise; :func:`set_quiet`
silences bars and notices.
"""

from ._glp import CompileError, GpuError, GpuOutOfMemory, __version__, set_quiet
from ._graph import Graph
from ._lp import LpResult, ari, label_propagation, modularity, nmi, overlapping_nmi
from ._sample import SampleResult, sample
from .loader import MiniBatch, NeighborLoader

__all__ = [
    "CompileError",
    "GpuError",
    "GpuOutOfMemory",
    "Graph",
    "LpResult",
    "MiniBatch",
    "NeighborLoader",
    "SampleResult",
    "__version__",
    "ari",
    "label_propagation",
    "modularity",
    "nmi",
    "overlapping_nmi",
    "sample",
    "set_quiet",
]
