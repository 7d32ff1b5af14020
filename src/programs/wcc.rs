//! Weakly connected components.

use crate::edge::{EdgeProgram, EdgeView, BOTH, MIN};
use crate::graph::VertexId;

/// Weakly connected components, as LDBC Graphalytics defines them: two vertices are in one
/// component when a path joins them ignoring the edges' direction. Edges carry values both
/// ways, so a directed graph needs no symmetrised copy. A vertex's value is the smallest
/// (dense) vertex id of its component.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wcc;

#[glp::edge_program]
impl EdgeProgram for Wcc {
    type Value = u32;
    type Message = u32;

    fn combine(&self) -> u32 {
        MIN
    }

    fn direction(&self) -> u32 {
        BOTH
    }

    fn frontier(&self) -> bool {
        true
    }

    fn init(&self, _view: &EdgeView<'_>, v: VertexId) -> u32 {
        v
    }

    fn edge(&self, _view: &EdgeView<'_>, _from: VertexId, _to: VertexId, value: u32, _weight: f64) -> (bool, u32) {
        (true, value)
    }

    fn apply(&self, _view: &EdgeView<'_>, _v: VertexId, old: u32, combined: u32) -> u32 {
        old.min(combined)
    }
}
