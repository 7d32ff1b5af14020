//! Layered label propagation.

use crate::graph::VertexId;
use crate::lp::{Label, LpVariant, View};

/// Layered label propagation (LLP, Boldi et al. 2011; GLP Fig. 4): the score of label `l`
/// for vertex `v` is `freq - gamma * (others(l) - freq)`, where `freq` is the number of
/// neighbours showing `l` and `others(l)` the number of vertices other than `v` showing `l`
/// in the whole graph. Large labels are penalised, which gives smaller, denser communities
/// as `gamma` grows; the GLP paper sweeps `gamma = 2^i, i = 0..9`. With `gamma = 0` the
/// score is exactly `freq`: classic LP.
///
/// `others(l)` comes from the global histogram (`View::global_count`): `pick_label` counts
/// the label every vertex shows at the start of an iteration, and the asynchronous schedule
/// keeps the counts in step with the vertices that move during the sweep, so a label that
/// grows is penalised as it grows. `v` itself is taken out of its own label's count, as the
/// reference implementation of Boldi et al. does (it removes the vertex from its label's
/// volume before scoring): otherwise the label `v` holds looks one vertex larger than the
/// label it would join, and in place `v` moves away and back forever (on com-DBLP the
/// asynchronous schedule then never settles for gamma >= 4; with `v` taken out it settles in
/// 4 iterations for every gamma of the sweep).
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

    /// `freq - gamma * (others - freq)`, `others` the vertices other than `v` showing `label`.
    #[inline]
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        let mut others = view.global_count(label) as f64;
        if label == view.label(v) {
            others -= 1.0;
        }
        freq - self.gamma * (others - freq)
    }
}
