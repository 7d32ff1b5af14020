//! Weighted label propagation.

use crate::graph::VertexId;
use crate::lp::{EdgeId, Label, LpVariant, View};

/// Weighted label propagation: the label with the largest total edge weight (GVE-LPA,
/// nu-LPA); the same as [`super::Classic`] on unweighted graphs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Weighted;

#[glp::lp_variant]
impl LpVariant for Weighted {
    #[inline]
    fn load_neighbor(&self, view: &View<'_>, _v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
        (view.label(u), view.edge_weight(edge))
    }
}
