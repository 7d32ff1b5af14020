"""Graphs: every input type gives the graph the loader gives, and bad input is refused with
a clear exception."""

from __future__ import annotations

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import data

import glp


def edges_of(graph: glp.Graph) -> set:
    """The stored edges as (input id, input id) pairs, from the CSR."""
    offsets, targets, _ = graph.csr()
    ids = np.asarray(graph.ids)
    return {(int(ids[v]), int(ids[t])) for v in range(graph.num_vertices) for t in targets[offsets[v] : offsets[v + 1]]}


def test_load_reads_the_file_as_networkx_does(dolphins: glp.Graph) -> None:
    reference = nx.read_edgelist(data("dolphins.edges"), nodetype=int)
    assert dolphins.num_vertices == reference.number_of_nodes()
    assert dolphins.num_edges == 2 * reference.number_of_edges()
    expected = {(u, v) for u, v in reference.edges()} | {(v, u) for u, v in reference.edges()}
    assert edges_of(dolphins) == expected
    degrees = dict(reference.degree())
    assert dict(zip(dolphins.ids.tolist(), dolphins.degrees.tolist())) == degrees
    assert not dolphins.directed and not dolphins.weighted


def test_every_input_type_builds_the_same_graph(dolphins: glp.Graph) -> None:
    reference = nx.read_edgelist(data("dolphins.edges"), nodetype=int)
    src = np.array([u for u, _ in reference.edges()])
    dst = np.array([v for _, v in reference.edges()])
    n = dolphins.num_vertices
    built = {
        "numpy": glp.Graph.from_edges(src, dst, num_vertices=n),
        "lists": glp.Graph.from_edges(src.tolist(), dst.tolist(), num_vertices=n),
        "int32": glp.Graph.from_edges(src.astype(np.int32), dst.astype(np.uint16), num_vertices=n),
        "edge_index": glp.Graph.from_edge_index(np.stack([src, dst]), num_nodes=n),
        "scipy": glp.Graph.from_scipy(sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)), weighted=False),
        "networkx": glp.Graph.from_networkx(nx.convert_node_labels_to_integers(reference, ordering="sorted")),
    }
    for name, graph in built.items():
        assert graph.num_vertices == n, name
        assert edges_of(graph) == edges_of(dolphins), name


def test_torch_tensors_are_inputs() -> None:
    torch = pytest.importorskip("torch")
    graph = glp.Graph.from_edge_index(torch.tensor([[0, 1, 2], [1, 2, 0]]), num_nodes=4)
    assert graph.num_vertices == 4 and graph.num_edges == 6


def test_weights_directions_and_duplicates() -> None:
    src, dst, w = [0, 0, 1, 2], [1, 1, 2, 2], [1.0, 3.0, 2.5, 9.0]
    directed = glp.Graph.from_edges(src, dst, w, directed=True, duplicates="sum")
    offsets, targets, weights = directed.csr()
    # 0->1 twice (summed to 4), 1->2 (2.5); the self loop 2->2 dropped.
    assert offsets.tolist() == [0, 1, 2, 2]
    assert targets.tolist() == [1, 2]
    assert weights.tolist() == [4.0, 2.5]
    assert directed.directed and directed.weighted
    kept = glp.Graph.from_edges(src, dst, w, keep_self_loops=True, duplicates="keep")
    assert kept.num_edges == 2 * 3 + 1  # both directions of three edges, and the loop once
    largest = glp.Graph.from_edges(src, dst, w)
    assert largest.csr()[2].tolist() == [3.0, 3.0, 2.5, 2.5]


def test_networkx_nodes_of_any_kind_come_back() -> None:
    # Two triangles: synchronous LP with the smallest-label rule settles each on its first
    # node (vertex 0 and vertex 3, whose labels name the nodes "a" and "x").
    graph = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("x", "y"), ("y", "z"), ("z", "x")])
    g = glp.Graph.from_networkx(graph)
    assert g.ids == ["a", "b", "c", "x", "y", "z"]
    labels = g.label_propagation(schedule="sync", backend="cpu").to_dict()
    assert labels == {"a": "a", "b": "a", "c": "a", "x": "x", "y": "x", "z": "x"}


def test_save_and_load_round_trip(tmp_path, email: glp.Graph) -> None:
    path = tmp_path / "email.glpg"
    email.save(path)
    again = glp.Graph.load(path)
    assert again.num_vertices == email.num_vertices and again.num_edges == email.num_edges
    for a, b in zip(again.csr()[:2], email.csr()[:2]):
        assert np.array_equal(a, b)
    assert np.array_equal(again.ids, email.ids)


def test_compressed_and_csv_files_load() -> None:
    lastfm = glp.Graph.load(data("lastfm.edges.csv.xz"))
    assert lastfm.num_vertices == 7624 and lastfm.num_edges == 2 * 27806


def test_a_missing_file_is_file_not_found(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        glp.Graph.load(tmp_path / "nope.txt")


def test_a_malformed_file_names_file_line_and_column(tmp_path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("0 1\n1 2\n2 x\n")
    with pytest.raises(ValueError, match=r"bad.txt:3:3"):
        glp.Graph.load(path)
    gz = tmp_path / "bad.txt.gz"
    gz.write_bytes(gzip.compress(b"0 1\n1 -2\n"))
    with pytest.raises(ValueError, match=r"bad.txt.gz:2"):
        glp.Graph.load(gz)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: glp.Graph.from_edges([0, 1], [1]), "2 sources and 1 targets"),
        (lambda: glp.Graph.from_edges([0, -1], [1, 2]), r"sources\[1\] = -1 is not a vertex id"),
        (lambda: glp.Graph.from_edges([0, 5], [1, 2], num_vertices=3), r"sources\[1\] = 5"),
        (lambda: glp.Graph.from_edges([0], [1], [np.nan]), r"weights\[0\] = NaN is not finite"),
        (lambda: glp.Graph.from_edges([0], [1], [1.0, 2.0]), "2 weights for 1 edges"),
        (lambda: glp.Graph.from_edges([0.5], [1]), "not integers"),
        (lambda: glp.Graph.from_edges([[0, 1]], [1]), "expected a 1-D array"),
        (lambda: glp.Graph.from_edges([0], [1], num_vertices=-3), "num_vertices = -3"),
        (lambda: glp.Graph.from_edges([0], [1], num_vertices=2**70), "num_vertices"),
        (lambda: glp.Graph.from_edges([0], [2**33]), "32 bits"),
        (lambda: glp.Graph.from_edges([0], [1], duplicates="merge"), "expected keep, collapse or sum"),
        (lambda: glp.Graph.from_edge_index(np.zeros((3, 2), dtype=np.int64)), r"shape \(2, E\)"),
        (lambda: glp.Graph.from_scipy(sp.coo_matrix((2, 3))), "square"),
        (lambda: glp.Graph.load(data("karate.mtx"), format="xml"), "unknown graph format"),
        # Values that are not ids: strings, objects, booleans (a mask is not a list of ids).
        (lambda: glp.Graph.from_edges(["0", "1"], [1, 2]), "src: expected integer ids, got an array of <U1"),
        (lambda: glp.Graph.from_edges([0, 1], np.array([1, "x"], dtype=object)), "dst: .*type int, str"),
        (lambda: glp.Graph.from_edges([0, 1], [1, None]), "dst: .*NoneType"),
        (lambda: glp.Graph.from_edges(np.array([True, False]), [1, 0]), "src: expected integer ids, got booleans"),
        (lambda: glp.Graph.from_edges([0, 1], [1, 2], ["a", "b"]), "weights: expected numbers"),
        (lambda: glp.Graph.from_edges([0, 1], [1, 2], [True, False]), "weights: expected numbers, got booleans"),
        (lambda: glp.Graph.from_edges([2**70], [0]), "src: ids outside int64"),
        (lambda: glp.Graph.from_edges([1e30], [0]), "src: ids outside int64"),
        (lambda: glp.Graph.from_edge_index(np.array([[True], [False]])), "src: .*booleans"),
        (lambda: glp.Graph.from_scipy(np.eye(3)), "expected a SciPy sparse matrix or array, got numpy.ndarray"),
        (lambda: glp.Graph.from_scipy([[0, 1], [1, 0]]), "expected a SciPy sparse matrix"),
    ],
)
def test_bad_input_is_a_value_error(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_a_huge_vertex_count_is_refused_before_allocating() -> None:
    with pytest.raises(ValueError, match="32 bits"):
        glp.Graph.from_edges([0], [1], num_vertices=2**40)


def test_review_cases_of_ids_and_duplicates() -> None:
    with pytest.raises(ValueError, match="is not a vertex id"):
        glp.Graph.from_edges([-1], [-1])
    # SciPy sums repeated entries: so does the graph built from it.
    matrix = sp.coo_matrix(([1.0, 2.0, 5.0], ([0, 0, 1], [1, 1, 2])), shape=(3, 3))
    weights = glp.Graph.from_scipy(matrix, directed=True).csr()[2]
    assert weights.tolist() == [3.0, 5.0]


def test_networkx_nodes_name_roots_seeds_and_labels() -> None:
    graph = nx.relabel_nodes(nx.karate_club_graph(), {v: v + 1 for v in range(34)})  # nodes 1..34
    g = glp.Graph.from_networkx(graph)
    assert g.ids[0] == 1
    walks = g.sample("deepwalk", roots=[1, 34], walk_length=3, backend="cpu").walks
    assert walks[:, 0].tolist() == [0, 33]  # vertex numbers of nodes 1 and 34
    with pytest.raises(ValueError, match="99"):
        g.sample("deepwalk", roots=[99], backend="cpu")
    seeded = g.label_propagation("seeded", seeds={1: 7, 34: 9}, schedule="sync", backend="cpu")
    labels = seeded.to_dict()
    assert labels[1] == 7 and labels[34] == 9 and set(labels.values()) <= {7, 9, None}


def test_object_arrays_of_whole_numbers_are_ids() -> None:
    graph = glp.Graph.from_edges(np.array([0, 1], dtype=object), [1, np.int32(2)])
    assert graph.num_vertices == 3 and graph.num_edges == 4


@pytest.mark.parametrize(
    "roots, message",
    [
        (["a", "b"], "roots: expected integer ids"),
        (np.array([True, False]), "roots: expected integer ids, got booleans"),
        ([1.5], "roots: expected integer ids"),
    ],
)
def test_roots_that_are_not_ids_are_value_errors(karate: glp.Graph, roots, message) -> None:
    with pytest.raises(ValueError, match=message):
        karate.sample("deepwalk", roots=roots, walk_length=2, backend="cpu")


def test_ldbc_adjacency_lists_load() -> None:
    # `v n1 n2 ...`: edges v -> ni, detected by the validation sets' `-input` name.
    path = data("ldbc-validation/cdlp/undir-input")
    expected = set()
    for line in path.read_text().splitlines():
        v, *neighbours = map(int, line.split())
        expected |= {(v, n) for n in neighbours} | {(n, v) for n in neighbours}
    graph = glp.Graph.load(path)
    assert edges_of(graph) == expected
    assert graph.ids.tolist() == sorted({v for edge in expected for v in edge})
    directed = glp.Graph.load(data("ldbc-validation/cdlp/dir-input"), directed=True)
    lines = [list(map(int, line.split())) for line in data("ldbc-validation/cdlp/dir-input").read_text().splitlines()]
    assert edges_of(directed) == {(v, n) for v, *ns in lines for n in ns} and directed.directed


def test_ldbc_adjacency_format_is_chosen_by_name(tmp_path) -> None:
    lists = tmp_path / "lists.txt"
    lists.write_text("1 2 3\n2 3\n4\n")  # vertex 4 alone: declared by its line
    graph = glp.Graph.load(lists, format="adj")
    assert graph.ids.tolist() == [1, 2, 3, 4]
    assert edges_of(graph) == {(1, 2), (2, 1), (1, 3), (3, 1), (2, 3), (3, 2)}


def test_ldbc_vertex_and_edge_files_load() -> None:
    folder = data("ldbc-validation/sssp")
    vertices = [int(v) for v in (folder / "undir-input.v").read_text().split()]
    weights = {}
    for line in (folder / "undir-input.e").read_text().splitlines():
        u, v, w = line.split()
        weights[(int(u), int(v))] = weights[(int(v), int(u))] = float(w)
    # By either file, by their stem, or with format="ldbc".
    for graph in (
        glp.Graph.load(folder / "undir-input.v"),
        glp.Graph.load(folder / "undir-input.e"),
        glp.Graph.load(folder / "undir-input"),
        glp.Graph.load(folder / "undir-input", format="ldbc"),
    ):
        assert graph.ids.tolist() == vertices  # isolated vertices kept: the .v file declares them
        assert graph.weighted
        offsets, targets, w = graph.csr()
        ids = graph.ids
        got = {
            (int(ids[v]), int(ids[t])): float(x)
            for v in range(graph.num_vertices)
            for t, x in zip(targets[offsets[v] : offsets[v + 1]], w[offsets[v] : offsets[v + 1]])
        }
        assert got == pytest.approx(weights)


# -- Without a GPU, and on one ------------------------------------------------------------


def test_backend_gpu_without_a_gpu_is_a_gpu_error(no_gpu, karate: glp.Graph) -> None:
    with pytest.raises(glp.GpuError) as raised:
        karate.label_propagation(backend="gpu")
    assert isinstance(raised.value, RuntimeError)
    with pytest.raises(glp.GpuError):
        karate.sample("deepwalk", walk_length=3, backend="gpu")
    # auto falls back to the CPU.
    assert karate.label_propagation(backend="auto").backend == "cpu"


def test_cuda_tensors_are_inputs(gpu) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    src = torch.tensor([0, 1, 2, 3], device="cuda")
    dst = torch.tensor([1, 2, 3, 0], device="cuda")
    weights = torch.tensor([1.0, 2.0, 3.0, 4.0], device="cuda")
    graph = glp.Graph.from_edges(src, dst, weights, directed=True)
    reference = glp.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], [1.0, 2.0, 3.0, 4.0], directed=True)
    for a, b in zip(graph.csr(), reference.csr()):
        assert np.array_equal(a, b)
    edge_index = glp.Graph.from_edge_index(torch.stack([src, dst]), num_nodes=5)
    assert edge_index.num_vertices == 5 and edge_index.num_edges == 8


# -- Results in other libraries' shapes, and the loader's inputs -----------------------------


def test_khop_to_pyg_holds_the_results_arrays(karate: glp.Graph) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("torch_geometric.sampler")
    hops = karate.sample("khop", roots=[1, 2, 3], batch_size=3, fanouts=[4, 2], seed=5, backend="cpu")
    out = hops.to_pyg()
    for name in ("node", "row", "col", "batch"):
        assert np.array_equal(getattr(out, name).numpy(), getattr(hops, name)), name
    assert out.num_sampled_nodes == hops.num_sampled_nodes.tolist()
    assert out.num_sampled_edges == hops.num_sampled_edges.tolist()
    assert np.array_equal(np.stack([out.row.numpy(), out.col.numpy()]), hops.edge_index())


def test_walks_have_no_edge_index_or_pyg_output(karate: glp.Graph) -> None:
    walks = karate.sample("deepwalk", roots=[1, 2], walk_length=3, backend="cpu")
    with pytest.raises(ValueError, match="deepwalk samples walks: use .walks"):
        walks.edge_index()
    with pytest.raises(ValueError, match="SamplerOutput holds subgraphs"):
        walks.to_pyg()


def test_the_loaders_input_nodes_are_checked(email: glp.Graph) -> None:
    n = email.num_vertices
    mask = np.zeros(n, dtype=bool)
    mask[[3, 5, 8]] = True
    by_mask = glp.NeighborLoader(email, [3], input_nodes=mask, batch_size=2)
    assert by_mask.input_nodes.tolist() == email.ids[[3, 5, 8]].tolist()
    cases = [
        (np.ones(n - 1, dtype=bool), "a mask of shape"),
        (np.zeros(n, dtype=bool), "no seed vertex"),
        ([], "no seed vertex"),
        (["a"], "input_nodes: expected integer ids"),
        ([0.5], "input_nodes: expected integer ids"),
        (np.zeros((2, 2), dtype=np.int64), "expected a 1-D array"),
    ]
    for input_nodes, message in cases:
        with pytest.raises(ValueError, match=message):
            glp.NeighborLoader(email, [3], input_nodes=input_nodes)
    # An id that is no vertex: refused when the batch is sampled.
    with pytest.raises(ValueError, match=r"roots\[0\] = 10000000 is not a vertex"):
        list(glp.NeighborLoader(email, [3], input_nodes=[10**7]))
    karate = glp.Graph.from_networkx(nx.relabel_nodes(nx.karate_club_graph(), lambda v: f"m{v}"))
    with pytest.raises(ValueError, match="'nobody' is not a node of the graph"):
        glp.NeighborLoader(karate, [3], input_nodes=["m0", "nobody"])


@pytest.mark.parametrize("name", [lambda v: f"m{v}", lambda v: (v * 7 + 3) % 34], ids=["strings", "permuted-ints"])
def test_the_loader_samples_a_networkx_graph_of_named_nodes(name) -> None:
    # Nodes that are not 0..n: strings, and integers in another order (mapped twice, these
    # were silently other vertices).
    named = nx.relabel_nodes(nx.karate_club_graph(), name)
    graph = glp.Graph.from_networkx(named)
    order = list(named.nodes())  # vertex i is the i-th node
    wanted = [name(v) for v in (0, 33, 5, 16, 2, 30, 8)]
    loader = glp.NeighborLoader(graph, [4, 3], input_nodes=wanted, batch_size=3, shuffle=False, batches_per_call=2)
    batches = list(loader)
    assert len(batches) == len(loader) == 3
    for k, batch in enumerate(batches):
        nodes = [order[i] for i in batch.node.tolist()]
        assert nodes[: batch.batch_size] == wanted[3 * k : 3 * k + 3], k
        assert len(set(nodes)) == len(nodes), k
        assert batch.edge_index.shape[1] == sum(batch.num_sampled_edges) > 0, k
        for drawn, transit in batch.edge_index.T.tolist():
            assert named.has_edge(nodes[transit], nodes[drawn]), (k, nodes[transit], nodes[drawn])


def test_a_torch_mask_chooses_the_loaders_seeds(email: glp.Graph) -> None:
    torch = pytest.importorskip("torch")
    mask = torch.zeros(email.num_vertices, dtype=torch.bool)
    mask[:10] = True
    loader = glp.NeighborLoader(email, [3], input_nodes=mask, batch_size=4)
    assert loader.input_nodes.tolist() == email.ids[:10].tolist()
    batch = next(iter(loader))
    assert isinstance(batch.node, torch.Tensor)
