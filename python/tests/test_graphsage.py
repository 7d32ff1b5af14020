"""A real graph-ML client on glp's samples: GraphSAGE (torch-geometric's SAGEConv) trained on
LastFM Asia with mini-batches whose neighbourhoods glp samples reaches the accuracy of the
same model trained full-batch: at most 2 points below it (sampled training may do better).
Needs torch and torch-geometric (skipped without them; the GPU machine has both)."""

from __future__ import annotations

import csv
import os

import numpy as np
import pytest
from conftest import data

import glp

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

EPOCHS_FULL = 400
EPOCHS_MINI = 30
HIDDEN = 64


class Sage(torch.nn.Module):
    """Two SAGEConv layers over a learnable embedding of every vertex."""

    def __init__(self, vertices: int, classes: int) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(vertices, HIDDEN)
        self.conv1 = pyg_nn.SAGEConv(HIDDEN, HIDDEN)
        self.conv2 = pyg_nn.SAGEConv(HIDDEN, classes)

    def forward(self, node: "torch.Tensor", edge_index: "torch.Tensor") -> "torch.Tensor":
        x = self.embedding(node)
        x = torch.nn.functional.dropout(torch.relu(self.conv1(x, edge_index)), p=0.5, training=self.training)
        return self.conv2(x, edge_index)


def lastfm():
    """The graph, every vertex's class (``y[v]`` for vertex number ``v``) and the train and
    test splits (vertex numbers)."""
    graph = glp.Graph.load(data("lastfm.edges.csv.xz"))
    with open(data("lastfm.target.csv")) as f:
        targets = {int(row["id"]): int(row["target"]) for row in csv.DictReader(f)}
    ids = graph.ids
    y = torch.tensor([targets[int(i)] for i in ids])
    rng = np.random.default_rng(0)
    order = rng.permutation(graph.num_vertices)
    train, test = order[: int(0.6 * len(order))], order[int(0.8 * len(order)) :]
    return graph, y, torch.from_numpy(train), torch.from_numpy(test)


def vertex_numbers(ids: "torch.Tensor", input_ids: "torch.Tensor") -> "torch.Tensor":
    """The vertex numbers of ``input_ids`` (a loader's ``batch.node``): vertices are numbered
    in increasing order of their input ids, so ``ids`` (``graph.ids``) is sorted."""
    ids = ids.to(input_ids.device)
    vertices = torch.searchsorted(ids, input_ids)
    assert torch.equal(ids[vertices], input_ids), "every sampled id is a vertex's"
    return vertices


def accuracy(model, everything, edge_index, y, test) -> float:
    model.eval()
    with torch.no_grad():
        predicted = model(everything, edge_index).argmax(dim=1)
    return float((predicted[test] == y[test]).float().mean())


def test_graphsage_on_glp_minibatches_matches_full_batch(record_property) -> None:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    graph, y, train, test = lastfm()
    offsets, targets, _ = graph.csr()
    sources = np.repeat(np.arange(graph.num_vertices), np.diff(offsets))
    edge_index = torch.from_numpy(np.stack([targets, sources])).to(device)
    everything = torch.arange(graph.num_vertices, device=device)
    y = y.to(device)
    classes = int(y.max()) + 1

    torch.manual_seed(0)
    full = Sage(graph.num_vertices, classes).to(device)
    optimiser = torch.optim.Adam(full.parameters(), lr=0.01, weight_decay=5e-4)
    for _ in range(EPOCHS_FULL):
        full.train()
        optimiser.zero_grad()
        loss = torch.nn.functional.cross_entropy(full(everything, edge_index)[train], y[train])
        loss.backward()
        optimiser.step()
    full_accuracy = accuracy(full, everything, edge_index, y, test)

    torch.manual_seed(0)
    mini = Sage(graph.num_vertices, classes).to(device)
    optimiser = torch.optim.Adam(mini.parameters(), lr=0.01, weight_decay=5e-4)
    backend = os.environ.get("GLP_TEST_BACKEND", "cpu")
    # The model indexes by vertex number (its embedding rows, y); the loader takes and gives
    # input ids: the train vertices' ids in, each batch's ids mapped back to vertex numbers.
    ids = torch.from_numpy(np.asarray(graph.ids))
    loader = glp.NeighborLoader(graph, [10, 10], input_nodes=ids[train], batch_size=256, seed=1, backend=backend)
    for _ in range(EPOCHS_MINI):
        mini.train()
        for batch in loader:
            optimiser.zero_grad()
            node = vertex_numbers(ids, batch.node).to(device)
            local_edges = batch.edge_index.to(device)
            out = mini(node, local_edges)[: batch.batch_size]
            loss = torch.nn.functional.cross_entropy(out, y[node[: batch.batch_size]])
            loss.backward()
            optimiser.step()
    mini_accuracy = accuracy(mini, everything, edge_index, y, test)

    record_property("full_batch_accuracy", full_accuracy)
    record_property("glp_minibatch_accuracy", mini_accuracy)
    print(f"GraphSAGE on LastFM Asia: full-batch {full_accuracy:.4f}, glp mini-batches {mini_accuracy:.4f}")
    assert full_accuracy > 0.5, "the full-batch model learns"
    assert mini_accuracy >= full_accuracy - 0.02
