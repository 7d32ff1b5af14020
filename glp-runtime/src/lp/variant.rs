//! The hook trait of label propagation variants (GLP's API, section 3 and Table 2 of the GLP
//! paper) and the view of the graph and labels the hooks read.
//!
//! Per iteration, an engine calls, for every vertex `v` it processes:
//!
//! 1. `pick_label(v, previous)`: the label `v` shows its neighbours this iteration (GLP's
//!    PickLabel, which copies `Lnext` to `L`; synchronous schedule only — in place updates
//!    have a single label array);
//! 2. for every edge `v -> u`: `load_neighbor(v, u, edge)` gives the label and weight that
//!    neighbour contributes (label [`UNLABELLED`] contributes nothing);
//! 3. for every distinct label `l` gathered with summed weight `freq`:
//!    `label_score(v, l, freq)`; the best label has the highest score, ties going to the
//!    smallest label;
//! 4. `update_vertex(v, current, best, score)` returns the label `v` takes (a vertex with no
//!    labelled neighbour keeps its label and this hook is not called).
//!
//! Contract: hooks are pure functions of their arguments and the view (they run in parallel,
//! in any order); scores must not be NaN. Engines that prune with sketches additionally need
//! `label_score` to be non-decreasing in `freq`.

use crate::community::UNLABELLED;
use crate::graph::{Csr, VertexId};
use std::sync::atomic::{AtomicU32, Ordering};

/// A community label: a dense vertex id, or [`UNLABELLED`].
pub type Label = u32;

/// What hooks may read: the graph and the labels neighbours show in the current iteration.
pub struct View<'a> {
    csr: &'a Csr,
    labels: &'a [AtomicU32],
    iteration: u32,
}

impl<'a> View<'a> {
    pub(super) fn new(csr: &'a Csr, labels: &'a [AtomicU32], iteration: u32) -> Self {
        View { csr, labels, iteration }
    }

    /// Label vertex `u` shows this iteration.
    #[inline]
    pub fn label(&self, u: VertexId) -> Label {
        self.labels[u as usize].load(Ordering::Relaxed)
    }

    /// Weight of edge `edge` (an index into the CSR's edge arrays); 1 on unweighted graphs.
    #[inline]
    pub fn edge_weight(&self, edge: usize) -> f64 {
        self.csr.weights().map_or(1.0, |w| w[edge] as f64)
    }

    /// Out-degree of `v`.
    #[inline]
    pub fn degree(&self, v: VertexId) -> usize {
        self.csr.degree(v)
    }

    /// Number of vertices.
    #[inline]
    pub fn num_vertices(&self) -> usize {
        self.csr.num_vertices()
    }

    /// Current iteration, from 0.
    #[inline]
    pub fn iteration(&self) -> u32 {
        self.iteration
    }
}

/// A label propagation variant: GLP's four hooks. Every method has a default; together they
/// give classic label propagation (count neighbours' labels, take the most frequent).
pub trait LpVariant: Sync {
    /// The label vertex `v` starts with (before iteration 0). Default: its own id.
    #[inline]
    fn initial_label(&self, v: VertexId) -> Label {
        v
    }

    /// The label `v` shows neighbours this iteration, given the label it ended the previous
    /// iteration with. Default: that label.
    #[inline]
    fn pick_label(&self, _view: &View<'_>, _v: VertexId, previous: Label) -> Label {
        previous
    }

    /// The label and weight neighbour `u` contributes to `v` through edge `edge`.
    /// Default: `u`'s label, weight 1 (edge weights ignored).
    #[inline]
    fn load_neighbor(&self, view: &View<'_>, _v: VertexId, u: VertexId, _edge: usize) -> (Label, f64) {
        (view.label(u), 1.0)
    }

    /// Score of label `label` for `v` whose neighbours contribute total weight `freq` to it.
    /// Default: `freq`.
    #[inline]
    fn label_score(&self, _view: &View<'_>, _v: VertexId, _label: Label, freq: f64) -> f64 {
        freq
    }

    /// The label `v` takes, given its current label and the best candidate. Default: the best.
    #[inline]
    fn update_vertex(&self, _view: &View<'_>, _v: VertexId, _current: Label, best: Label, _score: f64) -> Label {
        best
    }
}

/// Classic label propagation (Raghavan et al. 2007; LDBC CDLP): the most frequent label among
/// the neighbours, edge weights ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Classic;

impl LpVariant for Classic {}

/// Weighted label propagation: the label with the largest total edge weight (GVE-LPA,
/// nu-LPA); the same as [`Classic`] on unweighted graphs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Weighted;

impl LpVariant for Weighted {
    #[inline]
    fn load_neighbor(&self, view: &View<'_>, _v: VertexId, u: VertexId, edge: usize) -> (Label, f64) {
        (view.label(u), view.edge_weight(edge))
    }
}

/// Whether `label` is a real label (not [`UNLABELLED`]).
#[inline]
pub(super) fn is_labelled(label: Label) -> bool {
    label != UNLABELLED
}
