//! Layered label propagation.

use crate::graph::VertexId;
use crate::lp::{Label, LpVariant, View};

/// Layered label propagation (LLP, Boldi et al. 2011; GLP Fig. 4): the score of label `l`
/// for a vertex is `freq - gamma * (count(l) - freq)`, where `freq` is the number of
/// neighbours showing `l` and `count(l)` the number of vertices showing `l` in the whole
/// graph this iteration (the global histogram, filled by `pick_label`). Large labels are
/// penalised, which gives smaller, denser communities as `gamma` grows; the GLP paper sweeps
/// `gamma = 2^i, i = 0..9`. With `gamma = 0` the score is exactly `freq`: classic LP.
///
/// The score is non-decreasing in `freq` for `gamma >= 0` (its slope is `1 + gamma`), as
/// sketch-based MFL engines need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Llp {
    /// Density parameter (>= 0).
    pub gamma: f64,
}

impl Default for Llp {
    /// `gamma = 1`, the first value of the paper's sweep.
    fn default() -> Self {
        Llp { gamma: 1.0 }
    }
}

#[glp::lp_variant]
impl LpVariant for Llp {
    /// Shows the label of the previous iteration and counts it in the global histogram.
    #[inline]
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        let l = view.next_label(v);
        view.count_label(l);
        l
    }

    /// `freq - gamma * (global count - freq)`.
    #[inline]
    fn label_score(&self, view: &View<'_>, _v: VertexId, label: Label, freq: f64) -> f64 {
        freq - self.gamma * (view.global_count(label) as f64 - freq)
    }
}
