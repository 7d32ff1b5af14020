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
