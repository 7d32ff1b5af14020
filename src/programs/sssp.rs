//! Single-source shortest paths.

use crate::edge::{EdgeProgram, EdgeView, MIN};
use crate::graph::VertexId;

/// Single-source shortest paths from the run's source, as LDBC Graphalytics defines it: a
/// vertex's value is the smallest sum of edge weights along a path from the source; a vertex
/// the source does not reach has infinity. Weights are read from the graph (it must have
/// them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sssp;

#[glp::edge_program]
impl EdgeProgram for Sssp {
    type Value = f64;
    type Message = f64;

    fn combine(&self) -> u32 {
        MIN
    }

    fn frontier(&self) -> bool {
        true
    }

    fn weighted(&self) -> bool {
        true
    }

    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> f64 {
        if v == view.source() {
            0.0
        } else {
            f64::INFINITY
        }
    }

    /// The sender's distance plus the edge's weight, once the sender is reached.
    fn edge(&self, _view: &EdgeView<'_>, _from: VertexId, _to: VertexId, value: f64, weight: f64) -> (bool, f64) {
        (value < f64::INFINITY, value + weight)
    }

    fn apply(&self, _view: &EdgeView<'_>, _v: VertexId, old: f64, combined: f64) -> f64 {
        old.min(combined)
    }
}
