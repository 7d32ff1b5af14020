//! Graphs: the compressed sparse row (CSR) structure every engine reads, the builder that
//! turns edge lists into it, and the mapping back to the input's vertex ids.
//!
//! Conventions (DESIGN section 5): u32 vertex ids, u64 offsets, adjacency sorted by target,
//! optional f32 weights. Vertex ids of the input (any u64) are relabelled densely, in
//! increasing order of the original id, and [`VertexIds`] maps them back for output.

mod build;
mod csr;
mod ids;
mod isolated;
mod order;

pub use build::{build_csr, directed_neighbourhoods, transpose, BuildOptions, DuplicateEdges, EdgeList};
pub(crate) use build::{build_trusted, EdgeSlices};
pub use csr::{Csr, VertexId};
pub use ids::{relabel, Relabelled, VertexIds};
pub use order::DegreeOrder;

/// A loaded graph: its CSR and the original id of every vertex.
#[derive(Debug, Clone)]
pub struct Graph {
    /// The adjacency structure engines run on.
    pub csr: Csr,
    /// Original (input) id of each dense vertex id.
    pub ids: VertexIds,
    /// True when every edge u->v has its reverse v->u (an undirected graph, or a directed one
    /// loaded with symmetrisation).
    pub symmetric: bool,
}

impl Graph {
    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.csr.num_vertices()
    }

    /// Number of stored (directed) edges: an undirected edge counts twice.
    pub fn num_edges(&self) -> u64 {
        self.csr.num_edges()
    }
}
