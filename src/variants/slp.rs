//! Speaker-listener label propagation.

use crate::community::UNLABELLED;
use crate::graph::VertexId;
use crate::lp::{EdgeId, Label, LpVariant, View};

/// Speaker-listener label propagation (SLPA, Xie, Szymanski and Liu 2011; GLP Fig. 4 with
/// the errata of the reading notes: the neighbour's label and the edge id) for overlapping
/// communities.
///
/// Every vertex keeps a memory of at most [`crate::lp::LABEL_MEMORY_SLOTS`] (5) candidate
/// labels with weights:
///
/// - **initial**: the memory holds the vertex's own id with weight 1, which is also its first
///   label (`initial_label` adds it, so no iteration has to special-case iteration 0);
/// - **speaker** (`pick_label`): the vertex shows a label of its memory drawn with
///   probability proportional to its weight (`memory_pick` with `random_f64(v, 0)`);
/// - **listener**: it hears its neighbours' shown labels, each weighted
///   `vertex_weight(v) + edge_weight(e)` as in the paper's listing (2 per neighbour on an
///   unweighted graph without vertex weights: the same ranking as counting), takes the best
///   (from iteration 1, equal weights broken at random: `label_score` adds a random fraction
///   below 2^-20 of the weight, drawn per vertex, label and iteration with
///   `random_f64(v, label + 1)`), adds
///   it to its memory with weight 1 and drops the labels whose weight is below `threshold`
///   of its memory's total (`update_vertex`);
/// - `update_vertex` returns the vertex's **dominant** label, the heaviest of its memory (ties
///   to the smaller label), so the run's `labels` are a partition (each vertex's strongest
///   community) and its `memberships` the overlapping cover (every label left in memory).
///
/// Meant for the synchronous schedule (GLP's). In the asynchronous one listeners hear labels
/// already replaced in the sweep by their neighbours' dominant labels, which merges
/// communities that share vertices.
///
/// A full memory replaces its lightest label only by a heavier one (see [`crate::lp::View`]
/// for the exact slot rules): every slot weighs at least 1 here, so a full memory ignores new
/// labels until pruning frees a slot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slp {
    /// Labels lighter than this fraction of a vertex's memory are dropped after each
    /// listening step (in `[0, 1]`).
    pub threshold: f64,
}

impl Default for Slp {
    /// `threshold = 0.1`.
    fn default() -> Self {
        Slp { threshold: 0.1 }
    }
}

#[glp::lp_variant]
impl LpVariant for Slp {
    /// The vertex's own id, also put in its memory with weight 1.
    #[inline]
    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {
        view.memory_add(v, v, 1.0);
        v
    }

    /// Speaker: a label of the memory, drawn in proportion to its weight.
    #[inline]
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        let spoken = view.memory_pick(v, view.random_f64(v, 0));
        if spoken == UNLABELLED {
            return view.next_label(v);
        }
        spoken
    }

    /// The neighbour's shown label, weighted by the listener's vertex weight plus the edge's.
    #[inline]
    fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
        (view.label(u), view.vertex_weight(v) + view.edge_weight(edge))
    }

    /// The summed weight, raised from iteration 1 on by a random fraction below 2^-20 of
    /// itself: equal weights are ordered at random, anew every iteration (SLPA breaks the
    /// listener's ties randomly; a fixed rule would let one side of a balanced vertex win
    /// forever), while weights that differ by more than that fraction keep their order.
    /// Iteration 0 keeps the engine's tie rule: every vertex then shows its own id, so every
    /// label heard ties, and random choices would scatter labels that the bounded, pruned
    /// memory cannot recover from (a label that enters a memory whose total exceeds
    /// `1 / threshold` is pruned at once). Increasing in `freq`.
    #[inline]
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        if view.iteration() == 0 {
            return freq;
        }
        // 2^-20: the relative size of the random tie-breaking term (exact in f64).
        freq + freq * (1.0 / 1048576.0) * view.random_f64(v, label + 1)
    }

    /// Listener: remember the label heard, forget rare ones, return the dominant label.
    #[inline]
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, _score: f64) -> Label {
        view.memory_add(v, best, 1.0);
        view.memory_prune(v, self.threshold);
        let mut dominant = UNLABELLED;
        let mut heaviest = 0.0;
        let len = view.memory_len(v);
        for slot in 0..len {
            let label = view.memory_label(v, slot);
            let weight = view.memory_weight(v, slot);
            if weight > heaviest || (weight == heaviest && label < dominant) {
                dominant = label;
                heaviest = weight;
            }
        }
        if dominant == UNLABELLED {
            return best;
        }
        dominant
    }
}
