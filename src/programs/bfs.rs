//! Breadth-first search.

use crate::edge::{EdgeProgram, EdgeView, MIN};
use crate::graph::VertexId;

/// Breadth-first search from the run's source, as LDBC Graphalytics defines it: a vertex's
/// value is its depth, the number of edges on a shortest path from the source along the
/// edges' direction; a vertex the source does not reach has `i64::MAX`
/// (9223372036854775807).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bfs;

#[glp::edge_program]
impl EdgeProgram for Bfs {
    type Value = i64;
    type Message = i64;

    fn combine(&self) -> u32 {
        MIN
    }

    fn frontier(&self) -> bool {
        true
    }

    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> i64 {
        if v == view.source() {
            0
        } else {
            i64::MAX
        }
    }

    /// One edge further than the sender, once the sender is reached.
    fn edge(&self, _view: &EdgeView<'_>, _from: VertexId, _to: VertexId, value: i64, _weight: f64) -> (bool, i64) {
        (value != i64::MAX, value + 1)
    }

    fn apply(&self, _view: &EdgeView<'_>, _v: VertexId, old: i64, combined: i64) -> i64 {
        old.min(combined)
    }

    /// A reached vertex keeps its depth, and every message of an iteration carries the same
    /// depth: the frontier engine's pull stops at a receiver's first message (Beamer's
    /// bottom-up step).
    fn settled(&self, value: i64) -> bool {
        value != i64::MAX
    }
}
