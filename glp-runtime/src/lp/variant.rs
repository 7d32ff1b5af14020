//! The hook trait of label propagation variants (GLP's API, section 3, Table 2 and Fig. 4 of
//! the GLP paper).
//!
//! Per iteration, an engine:
//!
//! 1. **pick** (only when the run's [`LpFeatures::custom_pick_label`] is set): every vertex
//!    `v` chooses the label it shows its neighbours this iteration, `pick_label(v)` (GLP's
//!    PickLabel, which writes `L` from `Lnext`). Without a custom pick a vertex shows
//!    [`View::next_label`], the label it ended the previous iteration with, and the engine
//!    skips the phase;
//! 2. **propagate**: for every vertex `v` it processes and every edge `v -> u` (edge id `e`),
//!    `load_neighbor(v, u, e)` gives the label and weight that neighbour contributes (label
//!    [`UNLABELLED`] contributes nothing); for every distinct label `l` gathered with summed
//!    weight `freq`, `label_score(v, l, freq)`; the best label has the highest score, equal
//!    scores resolved by the run's [`super::TieBreak`];
//! 3. **update**: `update_vertex(v, best, score)` returns the label `v` ends the iteration
//!    with (its next [`View::next_label`]). It is called only when some neighbour contributed
//!    a label; otherwise `v` keeps `next_label(v)`.
//!
//! Before iteration 0, `initial_label(v)` gives each vertex its first label (it may also set
//! up the vertex's own facilities, e.g. put its id in its label memory; other vertices'
//! labels are not yet meaningful there, and [`View::iteration`] is 0).
//!
//! Schedules. *Synchronous*: three label arrays, the previous iteration's result
//! (`next_label`), the shown labels (`label`) and the output, so reading `next_label` of any
//! vertex is race-free in every hook; the output becomes the previous array at the end of the
//! iteration. *Asynchronous*: one array updated in place (`label(u) == next_label(u)`); a
//! custom pick runs over all vertices at the start of the iteration, before the in-place
//! sweep; a histogram it builds is the one of the iteration start, and the engine keeps it in
//! step with the sweep's moves (see [`View::global_count`] for what the counts mean under each
//! schedule).
//!
//! Contract: hooks are pure functions of their arguments and the view, apart from the view's
//! per-vertex facilities (label memory: only `v`'s hooks touch `v`'s memory) and the
//! histogram (counts are added in any order). They run in parallel, in any order; scores
//! must not be NaN; every label a hook returns is [`UNLABELLED`] or a dense vertex id below
//! the vertex count. Engines that prune with sketches additionally need `label_score` to be
//! non-decreasing in `freq`.
//!
//! The bodies of built-in variants are written in the Rust subset the compiler lowers to
//! CUDA (scalars, `let`, `if`, `match` on integers, `while` / `for` over integer ranges,
//! arithmetic, casts, the view's methods); the trait's defaults give classic label
//! propagation.

pub use super::view::{EdgeId, View};
pub use glp_codegen::kinds::lp::LpFeatures;

use crate::community::UNLABELLED;
use crate::error::Error;
use crate::graph::VertexId;

/// A community label: a dense vertex id, or [`UNLABELLED`] (`u32::MAX`).
pub type Label = u32;

/// A label propagation variant: GLP's four hooks plus the initial label. Every method has a
/// default; together they give classic label propagation (count the labels neighbours show,
/// take the most frequent).
pub trait LpVariant: Sync {
    /// The label vertex `v` starts with (before iteration 0). Default: its own id.
    #[inline]
    fn initial_label(&self, _view: &View<'_>, v: VertexId) -> Label {
        v
    }

    /// The label `v` shows its neighbours this iteration (called only when the run's
    /// features set `custom_pick_label`). Default: the label it ended the previous iteration
    /// with.
    #[inline]
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        view.next_label(v)
    }

    /// The label and weight neighbour `u` contributes to `v` through edge `edge`. Default:
    /// the label `u` shows, weight 1 (edge weights ignored).
    #[inline]
    fn load_neighbor(&self, view: &View<'_>, _v: VertexId, u: VertexId, _edge: EdgeId) -> (Label, f64) {
        (view.label(u), 1.0)
    }

    /// Score of label `label` for `v` whose neighbours contribute total weight `freq` to it.
    /// Default: `freq`.
    #[inline]
    fn label_score(&self, _view: &View<'_>, _v: VertexId, _label: Label, freq: f64) -> f64 {
        freq
    }

    /// The label `v` ends the iteration with, given the best candidate and its score.
    /// Default: the best candidate.
    #[inline]
    fn update_vertex(&self, _view: &View<'_>, _v: VertexId, best: Label, _score: f64) -> Label {
        best
    }

    /// An error that ends the run, or `None` to go on. Not a hook: hooks return plain values,
    /// so a variant whose hook can fail (an [`super::InterpretedVariant`] dividing by zero)
    /// records the first failure, returns a neutral value from that call and any later one,
    /// and reports the failure here. The engines ask after computing the initial labels and
    /// after every iteration, and the run returns the error instead of an outcome. Default:
    /// `None` (native hooks cannot fail).
    #[inline]
    fn failure(&self) -> Option<Error> {
        None
    }
}

/// Whether `label` is a real label (not [`UNLABELLED`]).
#[inline]
pub(super) fn is_labelled(label: Label) -> bool {
    label != UNLABELLED
}
