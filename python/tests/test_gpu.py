"""Samples left on the GPU (``output_type="torch"`` after a GPU run): walks and subgraphs are
CUDA tensors over glp's own device buffers (DLPack, never copied through the host), equal to
the CPU's arrays for the same seed; the loader cuts them into mini-batches on the device.
Skipped without a GPU (``GLP_REQUIRE_GPU=1`` makes that a failure)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from conftest import data

import glp

SUBGRAPH_RUNS = [
    ("khop", {"fanouts": [10, 5]}),
    ("khop", {"fanouts": [10, 5], "replace": False}),
    ("khop", {"fanouts": [4, 3, 2], "batch_size": 7}),  # several roots per sample, three hops
    ("layer", {"layers": 2, "layer_size": 32}),
    ("fastgcn", {"layers": 2, "layer_size": 32}),
    ("cluster-gcn", {"clusters": 20}),
]


@pytest.fixture(scope="module")
def torch(gpu):
    return pytest.importorskip("torch")


@pytest.fixture(scope="module")
def email() -> glp.Graph:
    return glp.Graph.load(data("email-Eu-core.txt"))


@pytest.fixture(scope="module")
def spread(email: glp.Graph, tmp_path_factory) -> glp.Graph:
    """email-Eu-core with sparse input ids (7v + 3): a table of ids on the device."""
    offsets, targets, _ = email.csr()
    path = tmp_path_factory.mktemp("graphs") / "sparse.txt"
    path.write_text(
        "".join(
            f"{7 * v + 3} {7 * int(t) + 3}\n"
            for v in range(email.num_vertices)
            for t in targets[offsets[v] : offsets[v + 1]]
            if v < t
        )
    )
    return glp.Graph.load(path)


def memory_type(pointer: int) -> int:
    """The CUDA driver's memory type of ``pointer`` (2: device memory, 1: host memory)."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        pytest.skip("no libcuda.so.1 to ask where a pointer is")
    value = ctypes.c_uint(0)
    # CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2
    status = driver.cuPointerGetAttribute(ctypes.byref(value), 2, ctypes.c_uint64(pointer))
    assert status == 0, f"cuPointerGetAttribute failed ({status})"
    return value.value


def assert_on_the_device(torch, tensor, what: str) -> None:
    assert tensor.device.type == "cuda" and tensor.is_cuda, what
    assert tensor.dtype == torch.int64, what
    if tensor.numel() > 0:
        assert memory_type(tensor.data_ptr()) == 2, f"{what}: not device memory"


@pytest.mark.parametrize("graph_name", ["email", "spread"])
@pytest.mark.parametrize("sampler,options", SUBGRAPH_RUNS)
def test_subgraphs_stay_on_the_gpu_and_equal_the_cpus(torch, request, graph_name, sampler, options) -> None:
    graph = request.getfixturevalue(graph_name)
    context = f"{sampler} {options} on {graph_name}"
    cpu = graph.sample(sampler, roots=300, seed=5, backend="cpu", **options)
    # Several batches (the last smaller): local ids are numbered over all of them.
    for batch_samples in (None, 7):
        torch.cuda.synchronize()
        allocated = torch.cuda.memory_allocated()
        on_gpu = graph.sample(
            sampler, roots=300, seed=5, backend="gpu", output_type="torch", batch_samples=batch_samples, **options
        )
        # glp's own buffers: torch allocated nothing for them (no copy through the host).
        assert torch.cuda.memory_allocated() == allocated, context
        assert on_gpu.on_device and on_gpu.backend == "gpu", context
        for name in ("node", "batch", "row", "col"):
            tensor = getattr(on_gpu, name)
            assert_on_the_device(torch, tensor, f"{context}: {name}")
            assert np.array_equal(tensor.cpu().numpy(), getattr(cpu, name)), f"{context}: {name}"
        assert on_gpu.num_sampled_nodes == cpu.num_sampled_nodes.tolist(), context
        assert on_gpu.num_sampled_edges == cpu.num_sampled_edges.tolist(), context
        assert on_gpu.roots is None and on_gpu.vertices is None, context
        assert (on_gpu.samples, on_gpu.sampled_vertices) == (cpu.samples, cpu.sampled_vertices), context
        assert on_gpu.time_ms > 0, context
        edge_index = on_gpu.edge_index()
        assert edge_index.is_cuda and tuple(edge_index.shape) == (2, len(cpu.row)), context
        del on_gpu, tensor, edge_index
        torch.cuda.synchronize()  # the buffers freed through DLPack's deleter
    # Numbered on the host from the GPU's records: every array the CPU's.
    on_host = graph.sample(sampler, roots=300, seed=5, backend="gpu", **options)
    for name in ("node", "batch", "row", "col", "roots", "root_offsets", "vertices", "sources", "steps", "offsets"):
        assert np.array_equal(getattr(on_host, name), getattr(cpu, name)), f"{context}: {name}"


def test_walks_stay_on_the_gpu_and_report_their_counts(torch, email: glp.Graph) -> None:
    cpu = email.sample("deepwalk", roots=400, walk_length=15, seed=3, backend="cpu")
    torch.cuda.synchronize()
    allocated = torch.cuda.memory_allocated()
    on_gpu = email.sample("deepwalk", roots=400, walk_length=15, seed=3, backend="gpu", output_type="torch")
    assert torch.cuda.memory_allocated() == allocated
    assert on_gpu.on_device
    assert_on_the_device(torch, on_gpu.walks, "walks")
    assert np.array_equal(on_gpu.walks.cpu().numpy(), cpu.walks)
    assert on_gpu.sampled_vertices == cpu.sampled_vertices > 0
    assert on_gpu.time_ms > 0


def test_walks_the_walk_engine_does_not_take_are_copied_to_the_gpu_that_ran_them(torch, email: glp.Graph) -> None:
    # Several roots per walk: the per-sample engine, its walks numbered on the host.
    cpu = email.sample("multi-root-walk", roots=100, walk_length=5, seed=4, backend="cpu")
    on_gpu = email.sample("multi-root-walk", roots=100, walk_length=5, seed=4, backend="gpu", output_type="torch")
    assert not on_gpu.on_device
    assert on_gpu.walks.is_cuda
    assert np.array_equal(on_gpu.walks.cpu().numpy(), cpu.walks)
    # Its per-sample arrays, made from the GPU run's records, on that GPU too.
    for name in ("roots", "root_offsets", "vertices", "sources", "steps", "offsets"):
        tensor = getattr(on_gpu, name)
        assert tensor.is_cuda, name
        assert np.array_equal(tensor.cpu().numpy(), getattr(cpu, name)), name


def test_walks_declared_far_longer_than_they_run_come_back_on_the_gpu_as_on_the_cpu(torch, email: glp.Graph) -> None:
    # 2^24 declared steps: rows of that length on the device would take 128 MB a walk; PPR's
    # walks end after a few hundred steps, and the host's rows are as long as the longest.
    options = dict(roots=2000, walk_length=1 << 24, termination=0.01, seed=6)
    cpu = email.sample("ppr", backend="cpu", **options)
    on_gpu = email.sample("ppr", backend="gpu", output_type="torch", **options)
    assert not on_gpu.on_device
    assert on_gpu.walks.is_cuda
    assert cpu.walks.shape[1] < 5000
    assert np.array_equal(on_gpu.walks.cpu().numpy(), cpu.walks)
    # However few the walks (50 rows of 2^24 entries fit a large GPU's memory: 6.7 GB).
    few = dict(options, roots=50)
    on_gpu = email.sample("ppr", backend="gpu", output_type="torch", **few)
    assert not on_gpu.on_device
    assert np.array_equal(on_gpu.walks.cpu().numpy(), email.sample("ppr", backend="cpu", **few).walks)
    # Walks that fit as rows stay on the device.
    short = email.sample("ppr", backend="gpu", output_type="torch", roots=2000, walk_length=100, seed=6)
    assert short.on_device
    assert np.array_equal(
        short.walks.cpu().numpy(), email.sample("ppr", backend="cpu", roots=2000, walk_length=100, seed=6).walks
    )


def test_subgraphs_on_the_gpu_make_pyg_sampler_outputs(torch, email: glp.Graph) -> None:
    pytest.importorskip("torch_geometric")
    cpu = email.sample("khop", roots=50, fanouts=[5, 3], seed=2, backend="cpu").to_pyg()
    on_gpu = email.sample("khop", roots=50, fanouts=[5, 3], seed=2, backend="gpu", output_type="torch").to_pyg()
    assert on_gpu.node.is_cuda and on_gpu.row.is_cuda
    for name in ("node", "row", "col", "batch"):
        assert torch.equal(getattr(on_gpu, name).cpu(), getattr(cpu, name)), name
    assert on_gpu.num_sampled_nodes == cpu.num_sampled_nodes
    assert on_gpu.num_sampled_edges == cpu.num_sampled_edges


def test_the_loader_cuts_gpu_subgraphs_on_the_device_as_the_cpus(torch, email: glp.Graph) -> None:
    seeds = torch.arange(0, 900, 3)
    options = {"batch_size": 40, "shuffle": True, "seed": 6, "batches_per_call": 3}
    on_cpu = list(glp.NeighborLoader(email, [5, 3], input_nodes=seeds, backend="cpu", **options))
    on_gpu = list(glp.NeighborLoader(email, [5, 3], input_nodes=seeds, backend="gpu", **options))
    assert len(on_cpu) == len(on_gpu) > 1
    for k, (cpu, gpu) in enumerate(zip(on_cpu, on_gpu)):
        assert gpu.node.is_cuda and gpu.edge_index.is_cuda, k
        assert torch.equal(gpu.node.cpu(), cpu.node), k
        assert torch.equal(gpu.edge_index.cpu(), cpu.edge_index), k
        assert gpu.batch_size == cpu.batch_size, k
        assert gpu.num_sampled_nodes == cpu.num_sampled_nodes, k
        assert gpu.num_sampled_edges == cpu.num_sampled_edges, k


def test_the_loader_takes_named_nodes_on_the_gpu_as_on_the_cpu(torch) -> None:
    nx = pytest.importorskip("networkx")

    graph = glp.Graph.from_networkx(nx.relabel_nodes(nx.karate_club_graph(), lambda v: f"m{v}"))
    options = {"input_nodes": ["m0", "m33", "m5", "m16", "m2"], "batch_size": 2, "seed": 3, "output_type": "torch"}
    on_cpu = list(glp.NeighborLoader(graph, [4, 3], backend="cpu", **options))
    on_gpu = list(glp.NeighborLoader(graph, [4, 3], backend="gpu", **options))
    assert len(on_cpu) == len(on_gpu) == 3
    for k, (cpu, gpu) in enumerate(zip(on_cpu, on_gpu)):
        assert gpu.node.is_cuda, k
        assert torch.equal(gpu.node.cpu(), cpu.node), k
        assert torch.equal(gpu.edge_index.cpu(), cpu.edge_index), k
