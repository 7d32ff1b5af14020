//! What an edge program's hooks read besides their arguments ([`EdgeView`]): the graph's
//! size and degrees, the run's source and iteration, and the sum of `aggregate`.

use super::{EdgeGraph, NO_SOURCE};
use crate::graph::VertexId;

/// The view an edge program's hooks receive. Its methods take and return scalars, so hooks
/// stay in the subset the compiler lowers to CUDA; none fails (ids that are not vertices
/// have degree 0).
#[derive(Debug, Clone, Copy)]
pub struct EdgeView<'a> {
    graph: &'a EdgeGraph<'a>,
    source: VertexId,
    iteration: u32,
    aggregated: f64,
}

impl<'a> EdgeView<'a> {
    /// The view of `graph` for a run from `source` ([`NO_SOURCE`] for none) before its first
    /// iteration.
    pub fn new(graph: &'a EdgeGraph<'a>, source: Option<VertexId>) -> Self {
        EdgeView { graph, source: source.unwrap_or(NO_SOURCE), iteration: 0, aggregated: 0.0 }
    }

    /// The view of iteration `iteration`, in which [`EdgeView::aggregated`] is `aggregated`.
    pub fn at(self, iteration: u32, aggregated: f64) -> Self {
        EdgeView { iteration, aggregated, ..self }
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> u32 {
        self.graph.num_vertices() as u32
    }

    /// The out-degree of `v` (0 for an id that is not a vertex).
    pub fn out_degree(&self, v: VertexId) -> u64 {
        self.graph.out_degree(v)
    }

    /// The in-degree of `v` (0 for an id that is not a vertex).
    pub fn in_degree(&self, v: VertexId) -> u64 {
        self.graph.in_degree(v)
    }

    /// The run's source vertex, [`NO_SOURCE`] without one.
    pub fn source(&self) -> VertexId {
        self.source
    }

    /// The iteration being run, from 0 (0 in `init`).
    pub fn iteration(&self) -> u32 {
        self.iteration
    }

    /// The sum of `aggregate` over every vertex's value before this iteration.
    pub fn aggregated(&self) -> f64 {
        self.aggregated
    }
}
