//! What the hooks of a variant read and write: the [`View`] of the graph, the labels and the
//! optional facilities of [`LpFeatures`] (histogram, label memory, seeds, vertex weights,
//! random numbers).
//!
//! The names and types of the view's methods are a contract: the compiler lowers hook bodies
//! written against them to CUDA device functions, and the GPU engine implements each one
//! with the semantics documented here (same slot order, same rounding, same random words).
//!
//! # Optional facilities
//!
//! An engine allocates and maintains only the facilities its [`LpFeatures`] name. Calling
//! the method of a facility that was not enabled is a bug of whoever computed the features
//! (the compiler, or a hand-written feature set): it fails a `debug_assert!` in debug builds
//! and returns a neutral value in release builds (0, 0.0, 1.0 for weights, [`UNLABELLED`]),
//! never panicking on an index.
//!
//! # Label memory
//!
//! Each vertex owns [`LABEL_MEMORY_SLOTS`] slots of (label `u32`, weight `f32`). Only a
//! vertex's own hooks touch its memory (in the engines' phases a vertex is visited by one
//! thread), so the slots are plain relaxed atomics: safe Rust, no locking.
//!
//! Slot order, which the GPU copy reproduces exactly:
//!
//! - occupied slots are always `0..len` (an empty slot has label [`UNLABELLED`] and weight
//!   0), so [`View::memory_len`] is the index of the first empty slot;
//! - [`View::memory_add`]`(v, l, w)`: `w` is rounded to `f32` first; a weight that is not
//!   `> 0` after rounding (zero, negative, NaN) is ignored, as is `l == UNLABELLED`. If `l`
//!   is in slot `i`, slot `i`'s weight becomes `weight_i + w` computed in `f32`. Otherwise,
//!   if `len < 5`, `(l, w)` goes to slot `len`. Otherwise the memory is full: the victim is
//!   the slot with the smallest weight, ties going to the slot with the larger label; it is
//!   overwritten in place (same slot index) by `(l, w)` only if `w` is strictly larger than
//!   the victim's weight;
//! - [`View::memory_prune`]`(v, f)`: `total` is the sum of the slots' weights, each widened
//!   to `f64` and added in slot order; the slots with `weight as f64 < f * total` are dropped
//!   and the survivors move down to close the gaps, keeping their relative order;
//! - [`View::memory_pick`]`(v, r)`: `total` as for prune; walking the slots in order with
//!   `acc += weight as f64 / total` (from `acc = 0`), the first slot with `r < acc` is picked;
//!   if rounding leaves `r >= acc` after the last slot, the last slot is picked; an empty
//!   memory gives [`UNLABELLED`].
//!
//! # Random numbers
//!
//! Philox4x32-10 ([`crate::random`]) with key `[seed as u32, (seed >> 32) as u32]` (the run's
//! [`super::LpConfig::seed`]) and counter `[v, iteration, draw, 0]`, giving the words
//! `w[0..4]`:
//!
//! - [`View::random_u32`]`(v, draw)` = `w[0]`;
//! - [`View::random_f64`]`(v, draw)` = `(x >> 11) as f64 * 2^-53` with
//!   `x = w[0] as u64 | (w[1] as u64) << 32` (the 53 high bits of the two first words: every
//!   value is a multiple of 2^-53 in `[0, 1)`).
//!
//! The same `(v, draw)` in the same iteration gives the same number in every hook and on
//! every backend; hooks that need several independent numbers use distinct `draw`s.

use super::variant::Label;
use crate::community::UNLABELLED;
use crate::graph::{Csr, VertexId};
use crate::random::{key_words, philox4x32_10, u64_from_words, unit_f64};
use glp_codegen::kinds::lp::LpFeatures;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// An index into the CSR's edge arrays (the position of an edge in [`Csr::targets`]).
pub type EdgeId = u64;

/// Slots of the per-vertex label memory (SLP keeps at most 5 candidate labels, as the GLP
/// paper runs it); the GPU view's `GLP_LABEL_MEMORY_SLOTS` is generated from the same constant.
pub use glp_codegen::kinds::lp::layout::LABEL_MEMORY_SLOTS;

const SLOTS: usize = LABEL_MEMORY_SLOTS as usize;

/// The inputs and per-run state behind the optional view methods, allocated according to
/// the run's [`LpFeatures`].
pub(super) struct Facilities<'a> {
    features: LpFeatures,
    key: [u32; 2],
    edge_weights: Option<&'a [f32]>,
    vertex_weights: Option<&'a [f32]>,
    seeds: Option<&'a [Label]>,
    /// One counter per label (labels are dense vertex ids); empty without the histogram.
    histogram: Vec<AtomicU32>,
    /// `SLOTS` labels per vertex; empty without label memory.
    memory_labels: Vec<AtomicU32>,
    /// `SLOTS` `f32` weights (as bits) per vertex; empty without label memory.
    memory_weights: Vec<AtomicU32>,
}

impl<'a> Facilities<'a> {
    /// The facilities `features` names for `csr`, with the run's inputs (already validated:
    /// one entry per vertex).
    pub fn new(
        csr: &'a Csr,
        features: LpFeatures,
        seed: u64,
        seeds: Option<&'a [Label]>,
        vertex_weights: Option<&'a [f32]>,
    ) -> Self {
        let n = csr.num_vertices();
        let zeros = |len: usize| -> Vec<AtomicU32> { (0..len).into_par_iter().map(|_| AtomicU32::new(0)).collect() };
        let histogram = if features.histogram { zeros(n) } else { Vec::new() };
        let (memory_labels, memory_weights) = if features.label_memory {
            ((0..n * SLOTS).into_par_iter().map(|_| AtomicU32::new(UNLABELLED)).collect(), zeros(n * SLOTS))
        } else {
            (Vec::new(), Vec::new())
        };
        Facilities {
            features,
            key: key_words(seed),
            edge_weights: if features.edge_weights { csr.weights() } else { None },
            vertex_weights: if features.vertex_weights { vertex_weights } else { None },
            seeds: if features.seeds { seeds } else { None },
            histogram,
            memory_labels,
            memory_weights,
        }
    }

    /// The features the facilities were allocated for.
    pub fn features(&self) -> LpFeatures {
        self.features
    }

    /// Sets every histogram counter to zero (the start of an iteration).
    pub fn reset_histogram(&self) {
        self.histogram.par_iter().for_each(|c| c.store(0, Relaxed));
    }

    /// Moves one count from label `from` to label `to` (a vertex changed its label in place,
    /// see [`View::global_count`]): `from`'s count drops by one, never below zero, `to`'s grows
    /// by one; labels outside the histogram ([`UNLABELLED`]) are skipped. Nothing without the
    /// histogram.
    pub fn move_in_histogram(&self, from: Label, to: Label) {
        if let Some(count) = self.histogram.get(from as usize) {
            let _ = count.fetch_update(Relaxed, Relaxed, |c| c.checked_sub(1));
        }
        if let Some(count) = self.histogram.get(to as usize) {
            count.fetch_add(1, Relaxed);
        }
    }

    /// The labels in each vertex's memory, ascending; `None` without label memory.
    pub fn memberships(&self) -> Option<Vec<Vec<Label>>> {
        if !self.features.label_memory {
            return None;
        }
        let rows = self.memory_labels.par_chunks(SLOTS).map(|row| membership_row(row.iter().map(|l| l.load(Relaxed))));
        Some(rows.collect())
    }
}

/// The labels of one vertex's memory slots (in slot order), ascending: its memberships.
pub(super) fn membership_row(slots: impl Iterator<Item = Label>) -> Vec<Label> {
    let mut labels: Vec<Label> = slots.take_while(|&l| l != UNLABELLED).collect();
    labels.sort_unstable();
    labels
}

/// What hooks read (and, for the optional facilities, write): the graph, the labels of the
/// current and previous iteration, and the facilities of [`LpFeatures`].
pub struct View<'a> {
    csr: &'a Csr,
    /// The labels vertices show this iteration (GLP's `L`).
    shown: &'a [AtomicU32],
    /// The labels vertices ended the previous iteration with (GLP's `Lnext`).
    previous: &'a [AtomicU32],
    iteration: u32,
    facilities: &'a Facilities<'a>,
}

impl<'a> View<'a> {
    pub(super) fn new(
        csr: &'a Csr,
        shown: &'a [AtomicU32],
        previous: &'a [AtomicU32],
        iteration: u32,
        facilities: &'a Facilities<'a>,
    ) -> Self {
        View { csr, shown, previous, iteration, facilities }
    }

    /// The label `u` shows this iteration (GLP's `L`, set by `pick_label`). In the
    /// asynchronous schedule labels are updated in place and this equals
    /// [`View::next_label`]. Inside `pick_label` of the synchronous schedule other vertices'
    /// shown labels are being written: read [`View::next_label`] there.
    #[inline]
    pub fn label(&self, u: VertexId) -> Label {
        self.shown[u as usize].load(Relaxed)
    }

    /// The label `u` was given at the end of the previous iteration (GLP's `Lnext`); before
    /// iteration 0, its initial label.
    #[inline]
    pub fn next_label(&self, u: VertexId) -> Label {
        self.previous[u as usize].load(Relaxed)
    }

    /// Out-degree of `v` (stored edges).
    #[inline]
    pub fn degree(&self, v: VertexId) -> u64 {
        self.csr.degree(v) as u64
    }

    /// Number of vertices.
    #[inline]
    pub fn num_vertices(&self) -> u32 {
        self.csr.num_vertices() as u32
    }

    /// Number of stored edges (edge ids are below it); for bounds checks of hosts that run
    /// hooks they cannot trust (the interpreter).
    #[inline]
    pub(super) fn num_edges(&self) -> u64 {
        self.csr.num_edges()
    }

    /// Current iteration, from 0 (0 in `initial_label`).
    #[inline]
    pub fn iteration(&self) -> u32 {
        self.iteration
    }

    /// Weight of edge `e`; 1 on unweighted graphs.
    #[inline]
    pub fn edge_weight(&self, e: EdgeId) -> f64 {
        debug_assert!(
            self.facilities.features.edge_weights,
            "edge_weight called, but the features exclude edge weights"
        );
        self.facilities.edge_weights.map_or(1.0, |w| w[e as usize] as f64)
    }

    /// Weight of vertex `v`; 1 when the run was given no vertex weights.
    #[inline]
    pub fn vertex_weight(&self, v: VertexId) -> f64 {
        debug_assert!(
            self.facilities.features.vertex_weights,
            "vertex_weight called, but the features exclude vertex weights"
        );
        self.facilities.vertex_weights.map_or(1.0, |w| w[v as usize] as f64)
    }

    /// Adds one to label `l`'s count in the global histogram (meant for `pick_label`, which
    /// sees every vertex once per iteration); [`UNLABELLED`] is ignored. The histogram is
    /// reset to zero at the start of every iteration; see [`View::global_count`] for what it
    /// holds under each schedule.
    #[inline]
    pub fn count_label(&self, l: Label) {
        debug_assert!(self.facilities.features.histogram, "count_label called, but the features exclude the histogram");
        if let Some(count) = self.facilities.histogram.get(l as usize) {
            count.fetch_add(1, Relaxed);
        }
    }

    /// Label `l`'s count in the global histogram (0 for [`UNLABELLED`]).
    ///
    /// What the count is depends on the schedule; when `pick_label` counts the label each
    /// vertex shows (`view.count_label(l)` for the `l` it returns, as LLP does), it is the
    /// number of vertices showing `l`, at every moment:
    ///
    /// - **synchronous**: the counts `pick_label` added at the start of this iteration. Every
    ///   vertex reads the labels of the iteration start, so the histogram of the iteration
    ///   start is exact for all of them.
    /// - **asynchronous**: the counts `pick_label` added at the start of this iteration, then
    ///   kept in step with the in-place sweep: when a vertex moves from label `a` to label `b`,
    ///   the engine takes one from `a`'s count (never below zero) and adds one to `b`'s. A
    ///   vertex processed late in the sweep therefore sees the sizes its neighbours' moves
    ///   produced, as it sees their labels. (Counting only at the iteration start would let a
    ///   label spread through the whole graph in one sweep while its count still says 1: LLP
    ///   would then merge communities instead of splitting them.)
    ///
    /// Moves made by other threads land while a vertex reads the counts, so what it reads
    /// mid-sweep depends on the sweep's order, as the labels it reads do.
    #[inline]
    pub fn global_count(&self, l: Label) -> u32 {
        debug_assert!(
            self.facilities.features.histogram,
            "global_count called, but the features exclude the histogram"
        );
        self.facilities.histogram.get(l as usize).map_or(0, |c| c.load(Relaxed))
    }

    /// The seed label of `v`, [`UNLABELLED`] when it has none.
    #[inline]
    pub fn seed_label(&self, v: VertexId) -> Label {
        debug_assert!(self.facilities.features.seeds, "seed_label called, but the features exclude seeds");
        self.facilities.seeds.map_or(UNLABELLED, |s| s[v as usize])
    }

    /// The Philox block of `(v, iteration, draw)`; `None` (after a failed debug assertion)
    /// without the random feature.
    #[inline]
    fn random_block(&self, v: VertexId, draw: u32) -> Option<[u32; 4]> {
        debug_assert!(self.facilities.features.random, "random numbers drawn, but the features exclude randomness");
        self.facilities.features.random.then(|| philox4x32_10([v, self.iteration, draw, 0], self.facilities.key))
    }

    /// A uniform `u32` for `(v, draw)` this iteration: word 0 of the Philox block (see the
    /// module docs).
    #[inline]
    pub fn random_u32(&self, v: VertexId, draw: u32) -> u32 {
        self.random_block(v, draw).map_or(0, |w| w[0])
    }

    /// A uniform `f64` in `[0, 1)` for `(v, draw)` this iteration: the 53 high bits of words
    /// 0 (low half) and 1 (high half) of the Philox block (see the module docs).
    #[inline]
    pub fn random_f64(&self, v: VertexId, draw: u32) -> f64 {
        self.random_block(v, draw).map_or(0.0, |w| unit_f64(u64_from_words(w[0], w[1])))
    }

    /// `v`'s memory slots (labels, weight bits); `None` without label memory.
    #[inline]
    fn memory(&self, v: VertexId) -> Option<(&[AtomicU32], &[AtomicU32])> {
        debug_assert!(self.facilities.features.label_memory, "label memory used, but the features exclude it");
        let start = v as usize * SLOTS;
        let labels = self.facilities.memory_labels.get(start..start + SLOTS)?;
        let weights = self.facilities.memory_weights.get(start..start + SLOTS)?;
        Some((labels, weights))
    }

    /// Adds `weight` to label `l` in `v`'s memory (see the module docs for the exact rule
    /// when `l` is new and the memory is full).
    #[inline]
    pub fn memory_add(&self, v: VertexId, l: Label, weight: f64) {
        let Some((labels, weights)) = self.memory(v) else { return };
        let w = weight as f32;
        if l == UNLABELLED || w.is_nan() || w <= 0.0 {
            return;
        }
        let weight_at = |i: usize| f32::from_bits(weights[i].load(Relaxed));
        let mut len = SLOTS;
        for i in 0..SLOTS {
            let label = labels[i].load(Relaxed);
            if label == l {
                weights[i].store((weight_at(i) + w).to_bits(), Relaxed);
                return;
            }
            if label == UNLABELLED {
                len = i;
                break;
            }
        }
        if len < SLOTS {
            labels[len].store(l, Relaxed);
            weights[len].store(w.to_bits(), Relaxed);
            return;
        }
        let mut victim = 0;
        for i in 1..SLOTS {
            let (wi, wv) = (weight_at(i), weight_at(victim));
            if wi < wv || (wi == wv && labels[i].load(Relaxed) > labels[victim].load(Relaxed)) {
                victim = i;
            }
        }
        if w > weight_at(victim) {
            labels[victim].store(l, Relaxed);
            weights[victim].store(w.to_bits(), Relaxed);
        }
    }

    /// Drops the labels of `v`'s memory whose weight is below `min_fraction` times the total
    /// weight of its memory; the others keep their order.
    #[inline]
    pub fn memory_prune(&self, v: VertexId, min_fraction: f64) {
        let Some((labels, weights)) = self.memory(v) else { return };
        let total = memory_total(labels, weights);
        let cut = min_fraction * total;
        let mut kept = 0;
        for i in 0..SLOTS {
            let label = labels[i].load(Relaxed);
            if label == UNLABELLED {
                break;
            }
            let bits = weights[i].load(Relaxed);
            if (f32::from_bits(bits) as f64) < cut {
                continue;
            }
            if kept != i {
                labels[kept].store(label, Relaxed);
                weights[kept].store(bits, Relaxed);
            }
            kept += 1;
        }
        for i in kept..SLOTS {
            labels[i].store(UNLABELLED, Relaxed);
            weights[i].store(0, Relaxed);
        }
    }

    /// A label of `v`'s memory picked with probability proportional to its weight, given `r`
    /// uniform in `[0, 1)` (see the module docs for the walk); [`UNLABELLED`] when the
    /// memory is empty.
    #[inline]
    pub fn memory_pick(&self, v: VertexId, r: f64) -> Label {
        let Some((labels, weights)) = self.memory(v) else { return UNLABELLED };
        let total = memory_total(labels, weights);
        let mut acc = 0.0;
        let mut picked = UNLABELLED;
        for i in 0..SLOTS {
            let label = labels[i].load(Relaxed);
            if label == UNLABELLED {
                break;
            }
            picked = label;
            acc += f32::from_bits(weights[i].load(Relaxed)) as f64 / total;
            if r < acc {
                break;
            }
        }
        picked
    }

    /// Number of labels in `v`'s memory (0 to [`LABEL_MEMORY_SLOTS`]).
    #[inline]
    pub fn memory_len(&self, v: VertexId) -> u32 {
        let Some((labels, _)) = self.memory(v) else { return 0 };
        labels.iter().position(|l| l.load(Relaxed) == UNLABELLED).unwrap_or(SLOTS) as u32
    }

    /// The label in slot `slot` of `v`'s memory; [`UNLABELLED`] for an empty slot or one
    /// past [`LABEL_MEMORY_SLOTS`].
    #[inline]
    pub fn memory_label(&self, v: VertexId, slot: u32) -> Label {
        self.memory(v).and_then(|(labels, _)| labels.get(slot as usize)).map_or(UNLABELLED, |l| l.load(Relaxed))
    }

    /// The weight in slot `slot` of `v`'s memory; 0 for an empty slot or one past
    /// [`LABEL_MEMORY_SLOTS`].
    #[inline]
    pub fn memory_weight(&self, v: VertexId, slot: u32) -> f64 {
        self.memory(v)
            .and_then(|(_, weights)| weights.get(slot as usize))
            .map_or(0.0, |w| f32::from_bits(w.load(Relaxed)) as f64)
    }
}

/// The total weight of a memory row: occupied slots' weights widened to `f64`, added in slot
/// order.
#[inline]
fn memory_total(labels: &[AtomicU32], weights: &[AtomicU32]) -> f64 {
    let mut total = 0.0;
    for i in 0..SLOTS {
        if labels[i].load(Relaxed) == UNLABELLED {
            break;
        }
        total += f32::from_bits(weights[i].load(Relaxed)) as f64;
    }
    total
}
