//! Single-source widest paths.

use crate::edge::{EdgeProgram, EdgeView, MAX};
use crate::graph::VertexId;

/// Single-source widest paths from the run's source: a path's width is its smallest edge
/// weight, and a vertex's value is the largest width of a path from the source to it
/// (infinity for the source itself, negative infinity for a vertex the source does not
/// reach). Weights are read from the graph (it must have them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sswp;

#[glp::edge_program]
impl EdgeProgram for Sswp {
    type Value = f64;
    type Message = f64;

    fn combine(&self) -> u32 {
        MAX
    }

    fn frontier(&self) -> bool {
        true
    }

    fn weighted(&self) -> bool {
        true
    }

    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> f64 {
        if v == view.source() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }
    }

    /// The sender's width narrowed to the edge's weight, once the sender is reached.
    fn edge(&self, _view: &EdgeView<'_>, _from: VertexId, _to: VertexId, value: f64, weight: f64) -> (bool, f64) {
        (value > f64::NEG_INFINITY, value.min(weight))
    }

    fn apply(&self, _view: &EdgeView<'_>, _v: VertexId, old: f64, combined: f64) -> f64 {
        old.max(combined)
    }
}
