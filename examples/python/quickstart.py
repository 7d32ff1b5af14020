"""glp from Python, step by step (run from the repository root after `pip install ./python`):

    python examples/python/quickstart.py

Each `# %%` cell runs on its own in a notebook (Jupyter, VS Code) as well.
"""

# %% A graph: from a file (any format the `glp` command reads), or from arrays.
import numpy as np

import glp

g = glp.Graph.load("data/email-Eu-core.txt")
print(g, "| degrees: max", g.degrees.max(), "mean", round(g.degrees.mean(), 1))

ring = glp.Graph.from_edges(np.arange(10), (np.arange(10) + 1) % 10)  # also torch tensors
print(ring)

# %% Communities with label propagation, and how good they are.
classic = g.label_propagation(schedule="sync")
llp = g.label_propagation("llp", params={"gamma": 2}, schedule="sync")
for name, result in [("classic", classic), ("llp gamma=2", llp)]:
    print(
        f"{name:12} {result.communities:4} communities, modularity {result.modularity:.3f}, "
        f"{result.iterations} iterations, {result.time_ms:.1f} ms on {result.backend}"
    )

# The departments of the institution are the ground truth.
truth = dict(np.loadtxt("data/email-Eu-core-department-labels.txt", dtype=np.int64))
departments = np.array([truth[int(v)] for v in g.ids])
print("NMI against the departments:", round(glp.nmi(llp.labels, departments), 3))
print("largest community:", len(llp.communities_list()[0]), "people")

# %% Random walks for embeddings (DeepWalk, node2vec), as arrays padded with -1.
walks = glp.sample(g, "node2vec", walk_length=20, p=2.0, q=0.5, roots=5, seed=1).walks
print(walks.shape)
print(walks[0])

# %% Neighbourhood samples for graph neural networks, in PyG's shapes.
hops = glp.sample(g, "khop", roots=[0, 1, 2], batch_size=3, fanouts=[10, 5], seed=1)
print("nodes per hop", hops.num_sampled_nodes, "edges per hop", hops.num_sampled_edges)
print("edge_index (local ids):", hops.edge_index()[:, :6], "...")

# %% Mini-batches for a training loop: the seeds come first in every batch's `node`.
loader = glp.NeighborLoader(g, [10, 10], input_nodes=np.arange(200), batch_size=64, seed=3)
for batch in loader:
    print(f"batch of {batch.batch_size} seeds: {len(batch.node)} vertices, {batch.edge_index.shape[1]} edges")
    # logits = model(x[batch.node], batch.edge_index)[: batch.batch_size]
