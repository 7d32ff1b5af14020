//! Memory-efficient MFL sketches (nu-LPA's sketch paper): weighted Misra-Gries with `k`
//! slots and the weighted Boyer-Moore vote, the CPU twins of the GPU kernels.
//!
//! A sketch replaces the exact count of every neighbour label by a fixed number of
//! (label, weight) slots, so the most-frequent-label search needs O(1) memory per vertex; the
//! label it picks is a heavy hitter, usually but not always the most frequent label. The
//! rules, the order in which labels enter a sketch, and why the GPU equals this code bit for
//! bit under the synchronous schedule are in glp-codegen's `lp_kernels/sketch_kernels.cuh`; in short:
//!
//! - **Misra-Gries** (Algorithm 2): a slot is occupied when its weight is > 0. Accumulating
//!   (c, w): an occupied slot holding c adds w; else the lowest-index empty slot takes (c, w);
//!   else every slot subtracts w. Negative residuals (after subtracting a merged weight) count
//!   as empty, the classic Misra-Gries rule, where the paper's "empty means weight == 0"
//!   would keep them as occupied slots that can never win.
//! - **Boyer-Moore** (Algorithm 3, k = 1): one (candidate, weight); the candidate's label adds
//!   w; else a weight > w subtracts w; else (a tie included: the paper's rule) the candidate
//!   becomes (c, w).
//! - **Pick** (no rescan): the occupied slot of highest weight, equal weights to the lowest
//!   slot index (the label that took its slot first, close to GVE-LPA's first-seen rule; the
//!   smaller-label rule cascades small labels through in-order asynchronous sweeps); none
//!   when nothing is occupied (the vertex keeps its label).
//! - **Partition**: below [`SKETCH_HIGH_DEGREE`] neighbours one sketch takes all edges in
//!   order; above, `T = 256 / k` partial sketches, partial `t` taking the edges whose index
//!   `i` in the adjacency has `(i / k) % T == t`, merged into partial 0 in order (1, 2, ...,
//!   each in slot order, skipping slots of weight <= 0) by accumulating them like edges.
//!
//! Sketches serve only variants whose `label_score` is exactly `freq` (checked by
//! [`check_eligible`]); `update_vertex`, `pick_label` and the facilities work as usual.

use super::compiled::CompiledVariant;
use super::variant::{is_labelled, EdgeId, Label, LpVariant, View};
use crate::error::{Error, Result};
use crate::graph::{Csr, VertexId};
pub use glp_codegen::lp_kernels::sketch::{DEFAULT_MG_SLOTS, MG_SLOTS, SKETCH_HIGH_DEGREE, SKETCH_HIGH_THREADS};

/// A sketch MFL strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sketch {
    /// Weighted Misra-Gries with `slots` slots (one of [`MG_SLOTS`]).
    MisraGries { slots: u32 },
    /// Weighted Boyer-Moore majority vote.
    BoyerMoore,
}

impl Sketch {
    /// Every sketch: Misra-Gries of each slot count, then Boyer-Moore.
    pub const ALL: [Sketch; 6] = [
        Sketch::MisraGries { slots: 2 },
        Sketch::MisraGries { slots: 4 },
        Sketch::MisraGries { slots: 8 },
        Sketch::MisraGries { slots: 16 },
        Sketch::MisraGries { slots: 32 },
        Sketch::BoyerMoore,
    ];

    /// Slots of the sketch (1 for Boyer-Moore): the lanes of a GPU tile.
    pub fn slots(self) -> u32 {
        match self {
            Sketch::MisraGries { slots } => slots,
            Sketch::BoyerMoore => 1,
        }
    }

    /// The name `--mfl` takes (`mg8`, `bm`).
    pub fn name(self) -> &'static str {
        match self {
            Sketch::MisraGries { slots: 2 } => "mg2",
            Sketch::MisraGries { slots: 4 } => "mg4",
            Sketch::MisraGries { slots: 8 } => "mg8",
            Sketch::MisraGries { slots: 16 } => "mg16",
            Sketch::MisraGries { slots: 32 } => "mg32",
            Sketch::MisraGries { .. } => "mg (unsupported slot count)",
            Sketch::BoyerMoore => "bm",
        }
    }

    /// Checks the slot count (a library caller may build any).
    pub fn validate(self) -> Result<()> {
        match self {
            Sketch::MisraGries { slots } if !MG_SLOTS.contains(&slots) => {
                Err(Error::invalid(format!("a Misra-Gries sketch has 2, 4, 8, 16 or 32 slots (got {slots})")))
            }
            _ => Ok(()),
        }
    }

    /// An empty sketch of this kind (the slot count validated).
    fn state(self) -> SketchState {
        match self {
            Sketch::MisraGries { slots } => SketchState::MisraGries(MisraGries::new(slots as usize)),
            Sketch::BoyerMoore => SketchState::BoyerMoore(BoyerMoore::new()),
        }
    }
}

/// The error of a sketch asked for a variant whose score is not the label's weighted count.
pub fn check_eligible<V: CompiledVariant + ?Sized>(variant: &V, sketch: Sketch) -> Result<()> {
    sketch.validate()?;
    if variant.score_is_frequency() {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "the `{}` MFL strategy cannot run `{}`: its label_score is not the weighted count of the label \
         (freq), which is all a sketch estimates; use an exact strategy (glp, smem, global, sort, hash)",
        sketch.name(),
        variant.name()
    )))
}

/// A weighted Misra-Gries sketch of up to 32 slots.
#[derive(Debug, Clone, PartialEq)]
pub struct MisraGries {
    labels: [Label; 32],
    weights: [f64; 32],
    slots: usize,
}

impl MisraGries {
    /// An empty sketch of `slots` slots (1..=32).
    pub fn new(slots: usize) -> MisraGries {
        assert!((1..=32).contains(&slots), "a sketch has 1 to 32 slots");
        MisraGries { labels: [crate::community::UNLABELLED; 32], weights: [0.0; 32], slots }
    }

    /// The slots, in slot order: (label, weight); a slot of weight <= 0 is empty.
    pub fn slots(&self) -> impl Iterator<Item = (Label, f64)> + '_ {
        self.labels[..self.slots].iter().copied().zip(self.weights[..self.slots].iter().copied())
    }

    /// Accumulates (`label`, `weight`) (see the module docs).
    pub fn add(&mut self, label: Label, weight: f64) {
        let (labels, weights) = (&self.labels[..self.slots], &mut self.weights[..self.slots]);
        // Occupied labels are distinct; every holder adds, as every GPU lane that holds does.
        let mut held = false;
        for (l, w) in labels.iter().zip(weights.iter_mut()) {
            if occupied(*w) && *l == label {
                *w += weight;
                held = true;
            }
        }
        if held {
            return;
        }
        if let Some(s) = weights.iter().position(|&w| !occupied(w)) {
            self.labels[s] = label;
            self.weights[s] = weight;
            return;
        }
        for w in weights {
            *w -= weight;
        }
    }

    /// Merges `other` into this sketch: its occupied slots in slot order, accumulated.
    pub fn merge(&mut self, other: &MisraGries) {
        for (label, weight) in other.slots().filter(|&(_, w)| w > 0.0) {
            self.add(label, weight);
        }
    }

    /// The occupied slot of highest weight, equal weights to the lowest slot index.
    pub fn best(&self) -> Option<(Label, f64)> {
        best_of(self.slots())
    }
}

/// A weighted Boyer-Moore vote.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoyerMoore {
    label: Label,
    weight: f64,
}

impl Default for BoyerMoore {
    fn default() -> Self {
        BoyerMoore::new()
    }
}

impl BoyerMoore {
    /// No candidate (weight 0).
    pub fn new() -> BoyerMoore {
        BoyerMoore { label: crate::community::UNLABELLED, weight: 0.0 }
    }

    /// The candidate and its weight.
    pub fn candidate(&self) -> (Label, f64) {
        (self.label, self.weight)
    }

    /// Accumulates (`label`, `weight`): the candidate adds; a heavier candidate subtracts;
    /// otherwise (a tie too) `label` replaces it with `weight`.
    pub fn add(&mut self, label: Label, weight: f64) {
        if self.label == label {
            self.weight += weight;
        } else if self.weight > weight {
            self.weight -= weight;
        } else {
            self.label = label;
            self.weight = weight;
        }
    }

    /// Merges `other`'s candidate, unless its weight is <= 0.
    pub fn merge(&mut self, other: &BoyerMoore) {
        if other.weight > 0.0 {
            self.add(other.label, other.weight);
        }
    }

    /// The candidate if its weight is > 0.
    pub fn best(&self) -> Option<(Label, f64)> {
        best_of(std::iter::once(self.candidate()))
    }
}

/// The first slot of highest weight among those of weight > 0 (slot order).
fn best_of(slots: impl Iterator<Item = (Label, f64)>) -> Option<(Label, f64)> {
    slots.filter(|&(_, w)| w > 0.0).fold(None, |best, (l, w)| match best {
        Some((_, bw)) if w <= bw => best, // neither is NaN: both are > 0
        _ => Some((l, w)),
    })
}

/// Whether a Misra-Gries slot of weight `w` is occupied (> 0; an empty slot may keep a stale
/// label, and NaN counts as empty, as on the GPU).
fn occupied(w: f64) -> bool {
    w > 0.0
}

/// One of the two sketches (a few per vertex, on the stack: the size difference is harmless).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum SketchState {
    MisraGries(MisraGries),
    BoyerMoore(BoyerMoore),
}

impl SketchState {
    fn add(&mut self, label: Label, weight: f64) {
        match self {
            SketchState::MisraGries(s) => s.add(label, weight),
            SketchState::BoyerMoore(s) => s.add(label, weight),
        }
    }

    fn merge(&mut self, other: &SketchState) {
        match (self, other) {
            (SketchState::MisraGries(a), SketchState::MisraGries(b)) => a.merge(b),
            (SketchState::BoyerMoore(a), SketchState::BoyerMoore(b)) => a.merge(b),
            _ => unreachable!("partials of one vertex are of one kind"),
        }
    }

    fn best(&self) -> Option<(Label, f64)> {
        match self {
            SketchState::MisraGries(s) => s.best(),
            SketchState::BoyerMoore(s) => s.best(),
        }
    }
}

/// Which partial sketch takes the edge of index `i` in a high-degree adjacency, for sketches
/// of `slots` slots: the GPU block's tile that loads it.
pub fn high_degree_partial(i: u64, slots: u32) -> usize {
    let tiles = u64::from(SKETCH_HIGH_THREADS / slots);
    ((i / u64::from(slots)) % tiles) as usize
}

/// The sketch's pick for `pairs`, the (label, weight) of each edge of a vertex in adjacency
/// order (`None` for an edge that contributes no label): one sketch, or the partials merged
/// when there are at least [`SKETCH_HIGH_DEGREE`] edges.
pub fn sketch_pick(
    sketch: Sketch,
    degree: usize,
    pairs: impl Iterator<Item = Option<(Label, f64)>>,
) -> Option<(Label, f64)> {
    if (degree as u64) < SKETCH_HIGH_DEGREE {
        let mut state = sketch.state();
        for (label, weight) in pairs.flatten() {
            state.add(label, weight);
        }
        return state.best();
    }
    let slots = sketch.slots();
    let mut partials = vec![sketch.state(); (SKETCH_HIGH_THREADS / slots) as usize];
    for (i, pair) in pairs.enumerate() {
        if let Some((label, weight)) = pair {
            partials[high_degree_partial(i as u64, slots)].add(label, weight);
        }
    }
    let (first, rest) = partials.split_first_mut().expect("at least one partial");
    for partial in rest.iter() {
        first.merge(partial);
    }
    first.best()
}

/// The sketch's best label for `v` through the variant's hooks: `load_neighbor` once per edge
/// in adjacency order, then the pick scored by `label_score` (the weight itself for the
/// variants sketches serve).
pub(super) fn best_label<V: LpVariant>(
    sketch: Sketch,
    csr: &Csr,
    variant: &V,
    view: &View<'_>,
    v: VertexId,
) -> Option<(Label, f64)> {
    let range = csr.edge_range(v);
    let neighbours = &csr.targets()[range.clone()];
    let pairs = range.zip(neighbours).map(|(edge, &u)| {
        let (label, weight) = variant.load_neighbor(view, v, u, edge as EdgeId);
        is_labelled(label).then_some((label, weight))
    });
    let (label, weight) = sketch_pick(sketch, neighbours.len(), pairs)?;
    Some((label, variant.label_score(view, v, label, weight)))
}

#[cfg(test)]
mod tests;
