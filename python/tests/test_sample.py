"""Sampling: the same samples as the `glp sample` command for a seed, samples that are walks
and neighbourhoods of the graph, PyG's shapes, every error path, GPU results on the device."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from conftest import data, run_glp

import glp


def cli_samples(tmp_path, sampler: str, path, *flags: str, suffix: str = ".npz"):
    out = tmp_path / f"cli{suffix}"
    run_glp("sample", sampler, str(path), "--backend", "cpu", "--out", str(out), *flags)
    return np.load(out)


@pytest.mark.parametrize(
    "sampler, options, flags",
    [
        ("deepwalk", {"walk_length": 12}, ["--walk-length", "12"]),
        ("node2vec", {"walk_length": 10, "p": 2.0, "q": 0.5}, ["--walk-length", "10", "--p", "2", "--q", "0.5"]),
        ("ppr", {"walk_length": 30, "termination": 0.2}, ["--walk-length", "30", "--termination", "0.2"]),
    ],
)
def test_walks_equal_the_commands(tmp_path, sampler, options, flags) -> None:
    path = data("email-Eu-core.txt")
    expected = cli_samples(tmp_path, sampler, path, "--seed", "7", "--roots-random", "300", *flags, suffix=".npy")
    result = glp.sample(glp.Graph.load(path), sampler, roots=300, seed=7, backend="cpu", **options)
    assert result.is_walk and result.samples == 300
    assert np.array_equal(result.walks, expected)


@pytest.mark.parametrize(
    "sampler, options, flags",
    [
        ("khop", {"fanouts": [10, 5]}, ["--fanouts", "10,5"]),
        (
            "khop",
            {"fanouts": [4, 4], "replace": False, "batch_size": 8},
            ["--fanouts", "4,4", "--without-replacement", "--batch-size", "8"],
        ),
        (
            "layer",
            {"layers": 2, "layer_size": 16, "batch_size": 16},
            ["--layers", "2", "--layer-size", "16", "--batch-size", "16"],
        ),
    ],
)
def test_subgraphs_equal_the_commands(tmp_path, sampler, options, flags) -> None:
    path = data("email-Eu-core.txt")
    expected = cli_samples(tmp_path, sampler, path, "--seed", "3", "--roots-random", "40", *flags)
    result = glp.sample(glp.Graph.load(path), sampler, roots=40, seed=3, backend="cpu", **options)
    assert not result.is_walk
    for name in ("node", "batch", "row", "col", "num_sampled_nodes", "num_sampled_edges"):
        assert np.array_equal(getattr(result, name), expected[name]), name


def test_roots_from_an_array_or_a_file_equal_the_commands(tmp_path, email: glp.Graph) -> None:
    roots = np.array([5, 17, 5, 300, 1000])
    root_file = tmp_path / "roots.txt"
    root_file.write_text("".join(f"{r}\n" for r in roots))
    expected = cli_samples(
        tmp_path, "deepwalk", data("email-Eu-core.txt"), "--roots", str(root_file), "--walk-length", "6", suffix=".npy"
    )
    for given in (roots, roots.tolist(), root_file):
        result = email.sample("deepwalk", roots=given, walk_length=6, backend="cpu")
        assert np.array_equal(result.walks, expected)
        assert result.walks[:, 0].tolist() == roots.tolist()


def test_walks_follow_edges_and_ids_are_input_ids() -> None:
    # Input ids 10, 20, ... : the walks must name them, and every step must be an edge.
    src = np.array([10, 20, 30, 40, 10, 30])
    dst = np.array([20, 30, 40, 50, 50, 50])
    path_edges = {(int(u), int(v)) for u, v in zip(src, dst)} | {(int(v), int(u)) for u, v in zip(src, dst)}
    g = glp.Graph.from_edges(src, dst)
    result = g.sample("deepwalk", roots=[10, 50], walk_length=20, seed=1, backend="cpu")
    for row in result.walks:
        steps = [int(v) for v in row if v >= 0]
        assert all((u, v) in path_edges for u, v in zip(steps, steps[1:]))
    assert result.walks.shape == (2, 21)


def test_a_walk_stops_at_a_vertex_without_edges_and_is_padded() -> None:
    g = glp.Graph.from_edges([0], [1], num_vertices=3, directed=True)
    result = g.sample("deepwalk", roots=[0, 2], walk_length=4, backend="cpu")
    # Rows as wide as the longest walk (as `glp sample --out walks.npy` writes them).
    assert result.walks.tolist() == [[0, 1], [2, -1]]


def walk_records(rows: np.ndarray, roots_per_walk: int = 1) -> dict:
    """The roots, vertices and offsets that walk rows show, one walk at a time: each row its
    roots, then the vertices its steps added, then -1 padding."""
    records: dict = {"roots": [], "vertices": [], "offsets": [0]}
    for row in rows.tolist():
        walk = row[: row.index(-1)] if -1 in row else row
        records["roots"] += walk[:roots_per_walk]
        records["vertices"] += walk[roots_per_walk:]
        records["offsets"].append(len(records["vertices"]))
    return records


def test_a_walk_results_per_sample_arrays_are_its_rows(email: glp.Graph) -> None:
    # PPR's walks stop early (rows of every length, padded), DeepWalk's on sinks of a directed
    # graph, node2vec's never; sparse input ids; walks of several roots each.
    sinks = glp.Graph.from_edges([10, 20, 20, 30], [20, 30, 40, 10], directed=True)
    runs = [
        (email, "ppr", {"walk_length": 40, "termination": 0.2}),
        (email, "node2vec", {"walk_length": 7, "p": 2.0, "q": 0.5}),
        (sinks, "deepwalk", {"walk_length": 5, "roots": [10, 40, 20, 30, 10]}),
        (sinks, "deepwalk", {"walk_length": 5, "roots": [40, 40]}),  # rows of the root alone
        (email, "deepwalk", {"walk_length": 1}),
        (email, "multi-root-walk", {"walk_length": 6, "batch_size": 4}),
    ]
    for graph, sampler, options in runs:
        options = {"roots": 200, **options}
        result = graph.sample(sampler, seed=4, backend="cpu", **options)
        assert result.is_walk
        assert result._per_sample == {}, "the rows alone until a per-sample array is read"
        roots_per_walk = options.get("batch_size", 1)
        expected = walk_records(result.walks, roots_per_walk)
        for name, values in expected.items():
            array = getattr(result, name)
            assert array.dtype == np.int64 and array.tolist() == values, f"{sampler}: {name}"
        samples = len(result.walks)
        assert result.root_offsets.tolist() == list(range(0, roots_per_walk * samples + 1, roots_per_walk))
        assert len(result.vertices) == result.sampled_vertices
        # Each vertex drawn from its transit, at a step no earlier than the one before it.
        offsets, targets, _ = graph.csr()
        dense = {int(i): v for v, i in enumerate(graph.ids.tolist())}
        for s in range(samples):
            seen = set(result.roots[s * roots_per_walk : (s + 1) * roots_per_walk].tolist())
            span = range(result.offsets[s], result.offsets[s + 1])
            steps = result.steps[span.start : span.stop].tolist()
            assert steps == sorted(steps), f"{sampler}: sample {s}"
            for j in span:
                source, vertex = int(result.sources[j]), int(result.vertices[j])
                assert source in seen, f"{sampler}: sample {s}"
                u = dense[source]
                assert dense[vertex] in targets[offsets[u] : offsets[u + 1]].tolist(), f"{sampler}: sample {s}"
                seen.add(vertex)
            if roots_per_walk == 1:
                # A walk's transit is the vertex before it, its step its place in the row.
                row = result.walks[s].tolist()
                assert result.sources[span.start : span.stop].tolist() == row[: len(span)], f"{sampler}: {s}"
                assert steps == list(range(len(span))), f"{sampler}: sample {s}"


@pytest.mark.parametrize(
    "sampler, options, flags",
    [
        ("khop", {"fanouts": [4, 3], "replace": False}, ["--fanouts", "4,3", "--without-replacement"]),
        ("layer", {"layers": 2, "layer_size": 8, "batch_size": 4}, ["--layers", "2", "--layer-size", "8"]),
    ],
)
def test_a_subgraph_results_per_sample_arrays_are_the_commands_records(
    tmp_path, email: glp.Graph, sampler, options, flags
) -> None:
    # The command's text output: a line `sample step transit vertex` per added vertex.
    roots = np.array([3, 17, 3, 400, 999, 0, 5, 6])
    root_file = tmp_path / "roots.txt"
    root_file.write_text("".join(f"{r}\n" for r in roots))
    out = tmp_path / "records.txt"
    batch = options.get("batch_size", 1)
    path = str(data("email-Eu-core.txt"))
    flags = [*flags, "--batch-size", str(batch), "--seed", "5"]
    run_glp("sample", sampler, path, "--backend", "cpu", "--roots", str(root_file), "--out", str(out), *flags)
    lines = [[int(field) for field in line.split("\t")] for line in out.read_text().splitlines()]
    result = email.sample(sampler, roots=roots, seed=5, backend="cpu", **options)
    assert not result.is_walk
    assert result._per_sample == {}, "PyG's arrays alone until a per-sample array is read"
    samples = len(roots) // batch
    assert result.roots.tolist() == roots.tolist()
    assert result.root_offsets.tolist() == list(range(0, len(roots) + 1, batch))
    assert result.steps.tolist() == [line[1] for line in lines]
    assert result.sources.tolist() == [line[2] for line in lines]
    assert result.vertices.tolist() == [line[3] for line in lines]
    per_sample = np.bincount([line[0] for line in lines], minlength=samples)
    assert result.offsets.tolist() == [0, *np.cumsum(per_sample).tolist()]
    assert result._make_per_sample is None, "the records are let go once converted"


def test_per_sample_arrays_are_made_once_and_pickled_made(email: glp.Graph) -> None:
    import pickle
    from concurrent.futures import ThreadPoolExecutor

    result = email.sample("khop", roots=300, fanouts=[5, 5], seed=1, backend="cpu")
    with ThreadPoolExecutor(8) as pool:
        arrays = list(pool.map(lambda _: result.vertices, range(8)))
    assert all(array is arrays[0] for array in arrays), "one conversion for every thread"
    for unread in (email.sample("khop", roots=50, seed=2, backend="cpu"), email.sample("ppr", roots=50, backend="cpu")):
        copy = pickle.loads(pickle.dumps(unread))
        for name in ("roots", "root_offsets", "vertices", "sources", "steps", "offsets", "walks", "node", "row"):
            a, b = getattr(unread, name), getattr(copy, name)
            assert (a is None and b is None) or np.array_equal(a, b), name
        assert copy.vertices is not None and len(copy.vertices) == copy.sampled_vertices


def test_per_sample_arrays_as_torch_tensors(email: glp.Graph) -> None:
    torch = pytest.importorskip("torch")
    for sampler in ("deepwalk", "khop"):
        numpy_result = email.sample(sampler, roots=100, walk_length=5, seed=3, backend="cpu")
        as_torch = email.sample(sampler, roots=100, walk_length=5, seed=3, backend="cpu", output_type="torch")
        for name in ("roots", "root_offsets", "vertices", "sources", "steps", "offsets"):
            tensor = getattr(as_torch, name)
            assert isinstance(tensor, torch.Tensor) and tensor.dtype == torch.int64, f"{sampler}: {name}"
            assert tensor.tolist() == getattr(numpy_result, name).tolist(), f"{sampler}: {name}"


def test_khop_samples_are_neighbourhoods(email: glp.Graph) -> None:
    result = email.sample("khop", roots=[0, 1, 2], fanouts=[5, 3], seed=2, backend="cpu")
    offsets, targets, _ = email.csr()
    ids = email.ids
    dense = {int(i): v for v, i in enumerate(ids.tolist())}
    neighbours = lambda v: set(targets[offsets[v] : offsets[v + 1]].tolist())  # noqa: E731
    edge_index = result.edge_index()
    assert edge_index.shape == (2, int(result.num_sampled_edges.sum()))
    for drawn, transit in edge_index.T:
        u, v = dense[int(result.node[transit])], dense[int(result.node[drawn])]
        assert v in neighbours(u)
    with_edges = sum(1 for r in (0, 1, 2) if email.degrees[dense[r]] > 0)
    assert result.num_sampled_edges[0] == 5 * with_edges  # with replacement: the full fan-out
    assert result.num_sampled_nodes[0] == 3 and result.batch[:3].tolist() == [0, 1, 2]


def test_the_same_seed_gives_the_same_samples_and_another_differs(email: glp.Graph) -> None:
    a = email.sample("node2vec", roots=200, walk_length=10, p=2, q=0.5, seed=4, backend="cpu")
    b = email.sample("node2vec", roots=200, walk_length=10, p=2, q=0.5, seed=4, backend="cpu", batch_samples=7)
    c = email.sample("node2vec", roots=200, walk_length=10, p=2, q=0.5, seed=5, backend="cpu")
    assert np.array_equal(a.walks, b.walks)
    assert not np.array_equal(a.walks, c.walks)


def test_torch_output() -> None:
    torch = pytest.importorskip("torch")
    g = glp.Graph.load(data("karate.mtx"))
    result = g.sample("khop", roots=[1, 2], fanouts=[3], output_type="torch", backend="cpu")
    assert isinstance(result.node, torch.Tensor) and result.node.dtype == torch.int64
    assert result.edge_index().shape[0] == 2


def test_a_sampler_file_runs_and_bad_ones_fail_clearly(tmp_path, karate: glp.Graph) -> None:
    source = tmp_path / "walk.rs"
    source.write_text(
        textwrap.dedent(
            """\
            struct Walk { length: u32 }
            impl Sampler for Walk {
                fn steps(&self) -> u32 { self.length }
                fn sample_size(&self, _step: u32) -> u32 { 1 }
                fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
                    let d = view.degree(t);
                    if d == 0 { return NONE; }
                    view.edge(t, view.random_below(d))
                }
            }
            """
        )
    )
    walked = karate.sample(str(source), params={"length": 5}, roots=[1, 2], seed=9, backend="cpu")
    deepwalk = karate.sample("deepwalk", walk_length=5, roots=[1, 2], seed=9, backend="cpu")
    assert np.array_equal(walked.walks, deepwalk.walks)
    with pytest.raises(ValueError, match="length"):
        karate.sample(str(source), roots=[1], backend="cpu")
    source.write_text("struct Walk;\nimpl Sampler for Walk {\n    fn steps(&self) -> u32 { 1 +  }\n}\n")
    with pytest.raises(glp.CompileError) as raised:
        karate.sample(str(source), backend="cpu")
    assert raised.value.line == 3


@pytest.mark.parametrize(
    "sampler, options, message",
    [
        ("louvain", {}, "unknown sampler `louvain`"),
        ("deepwalk", {"walk_length": 0}, "walk_length must be at least 1"),
        ("khop", {"fanouts": [5, 0]}, "fan-out of hop 2 is 0"),
        ("khop", {"fanouts": [1, 1, 1, 1, 1]}, "1 to 4 fan-outs"),
        ("node2vec", {"p": -1.0}, "p"),
        ("ppr", {"termination": 1.5}, "termination"),
        ("deepwalk", {"roots": [1, 99999]}, r"roots\[1\] = 99999 is not a vertex"),
        ("deepwalk", {"roots": 0}, "at least 1"),
        ("deepwalk", {"batch_size": 4}, "batch_size must be 1"),
        ("deepwalk", {"engine": "warp"}, "engine=`warp`"),
        ("deepwalk", {"params": {"x": 1}}, "params x=1"),
        ("deepwalk", {"output_type": "pandas"}, "output_type"),
        ("deepwalk", {"engine": "tp"}, "engine chooses how the GPU samples"),
        ("deepwalk", {"batch_samples": 0}, "batch_samples must be at least 1"),
        ("deepwalk", {"walk_length": -1}, "walk_length = -1: expected a whole number from 0"),
        ("khop", {"fanouts": [5, -2]}, "fanouts = -2"),
        ("khop", {"fanouts": [2.5]}, "expected a whole number"),
        ("deepwalk", {"seed": -1}, "seed = -1"),
        ("layer", {"layer_size": 2**40}, "layer_size"),
    ],
)
def test_bad_arguments_are_value_errors(karate: glp.Graph, sampler, options, message) -> None:
    options = {"backend": "cpu", **options}
    with pytest.raises(ValueError, match=message):
        glp.sample(karate, sampler, **options)


def test_a_missing_roots_file_is_file_not_found(tmp_path, karate: glp.Graph) -> None:
    with pytest.raises(FileNotFoundError):
        karate.sample("deepwalk", roots=tmp_path / "none.txt", backend="cpu")


def test_gpu_samples_equal_the_cpus_and_stay_on_the_device(gpu, tmp_path) -> None:
    torch = pytest.importorskip("torch")
    email = glp.Graph.load(data("email-Eu-core.txt"))
    # Sparse input ids (a table on the device, not a range).
    sparse = tmp_path / "sparse.txt"
    offsets, targets, _ = email.csr()
    sparse.write_text(
        "".join(
            f"{7 * v + 3} {7 * int(t) + 3}\n"
            for v in range(email.num_vertices)
            for t in targets[offsets[v] : offsets[v + 1]]
            if v < t
        )
    )
    spread = glp.Graph.load(sparse)
    runs = [
        (email, "deepwalk", {"walk_length": 20}),
        (email, "deepwalk", {"walk_length": 20, "batch_samples": 150}),  # batches, the last smaller
        (email, "ppr", {"walk_length": 80, "termination": 0.3}),  # every walk ends early: rows narrower than 81
        (spread, "node2vec", {"walk_length": 15, "p": 2.0, "q": 0.5}),
        (email, "khop", {"fanouts": [10, 5]}),
    ]
    for graph, sampler, options in runs:
        cpu = graph.sample(sampler, roots=500, seed=8, backend="cpu", **options)
        on_gpu = graph.sample(sampler, roots=500, seed=8, backend="gpu", output_type="torch", **options)
        assert on_gpu.backend == "gpu" and on_gpu.device, sampler
        name = "walks" if cpu.is_walk else "node"
        tensor = getattr(on_gpu, name)
        assert tensor.is_cuda and tensor.dtype == torch.int64, sampler
        assert np.array_equal(tensor.cpu().numpy(), getattr(cpu, name)), sampler
        if cpu.is_walk:
            # Left on the device: the per-vertex host arrays were never built.
            assert on_gpu.roots is None and on_gpu.vertices is None, sampler
        del tensor, on_gpu
        torch.cuda.synchronize()  # the buffer freed through DLPack's deleter


def test_the_loader_splits_each_call_into_its_samples_subgraphs(email: glp.Graph) -> None:
    seeds = np.arange(0, 1000, 3)
    loader = glp.NeighborLoader(
        email, [5, 3], input_nodes=seeds, batch_size=40, shuffle=False, seed=2, batches_per_call=4
    )
    batches = list(loader)
    assert len(batches) == len(loader) == -(-len(seeds) // 40)
    # The reference: the same calls' disjoint subgraphs, cut sample by sample with dicts.
    reference = []
    for start in range(0, len(seeds), 160):
        whole = glp.sample(
            email,
            "khop",
            roots=seeds[start : start + 160],
            batch_size=40,
            fanouts=[5, 3],
            seed=2 * 1_000_003 + start // 160,
            backend="cpu",
        )
        for s in range(whole.samples):
            members = [i for i in range(len(whole.node)) if whole.batch[i] == s]
            local = {i: k for k, i in enumerate(members)}
            edges = [(local[r], local[c]) for r, c in zip(whole.row, whole.col) if whole.batch[c] == s]
            reference.append(([int(whole.node[i]) for i in members], edges))
    offsets, targets, _ = email.csr()
    for k, (batch, (nodes, edges)) in enumerate(zip(batches, reference)):
        assert batch.node.tolist() == nodes, k
        assert [tuple(e) for e in batch.edge_index.T.tolist()] == edges, k
        assert batch.node[: batch.batch_size].tolist() == seeds[40 * k : 40 * k + 40].tolist()
        assert sum(batch.num_sampled_nodes) == len(nodes) and sum(batch.num_sampled_edges) == len(edges)
        for drawn, transit in batch.edge_index.T:
            u, v = batch.node[transit], batch.node[drawn]
            assert v in targets[offsets[u] : offsets[u + 1]]
    with pytest.raises(ValueError, match="batch_size"):
        glp.NeighborLoader(email, [5], batch_size=0)
    with pytest.raises(ValueError, match="fanouts"):
        glp.NeighborLoader(email, [])
