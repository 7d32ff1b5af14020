//! PageRank.

use crate::edge::{EdgeProgram, EdgeView, SUM};
use crate::graph::VertexId;

/// PageRank as LDBC Graphalytics defines it: every vertex starts with `1 / n`; an iteration
/// gives `v` the rank `(1 - d) / n + d * (sum over in-neighbours u of rank(u) / outdeg(u)) +
/// d / n * (sum of the ranks of the vertices without out-edges)`, `d` the damping factor,
/// for a fixed number of iterations (fewer only when the ranks stop changing, which gives
/// the same ranks), in double precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageRank {
    /// The damping factor `d`, in [0, 1].
    pub damping: f64,
    /// The number of iterations.
    pub iterations: u32,
}

impl Default for PageRank {
    /// LDBC Graphalytics's usual parameters: damping 0.85, 10 iterations.
    fn default() -> Self {
        PageRank { damping: 0.85, iterations: 10 }
    }
}

#[glp::edge_program]
impl EdgeProgram for PageRank {
    type Value = f64;
    type Message = f64;

    fn combine(&self) -> u32 {
        SUM
    }

    fn iterations(&self) -> u32 {
        self.iterations
    }

    fn init(&self, view: &EdgeView<'_>, _v: VertexId) -> f64 {
        1.0 / view.num_vertices() as f64
    }

    /// The sender's rank shared among its out-edges.
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, _to: VertexId, value: f64, _weight: f64) -> (bool, f64) {
        (true, value / view.out_degree(from) as f64)
    }

    /// The rank of a vertex without out-edges, which LDBC spreads over every vertex.
    fn aggregate(&self, view: &EdgeView<'_>, v: VertexId, value: f64) -> f64 {
        if view.out_degree(v) == 0 {
            value
        } else {
            0.0
        }
    }

    fn apply(&self, view: &EdgeView<'_>, _v: VertexId, _old: f64, combined: f64) -> f64 {
        let n = view.num_vertices() as f64;
        (1.0 - self.damping) / n + self.damping * combined + self.damping * view.aggregated() / n
    }
}
