//! The one pass over the edges that modularity, conductance and community sizes share.
//!
//! For every vertex `v` the stored row is split into the weight that stays in `v`'s community
//! (`internal`, its self loop included) and the weight that leaves it (`external`). That is
//! the only O(E) work, and it runs in parallel over vertices with no shared writes. The O(V)
//! step that adds per-vertex values into per-community slots runs sequentially in vertex
//! order: the sums then do not depend on scheduling (deterministic digits, even for weighted
//! graphs), and it is cheaper than atomics, which contend badly on the giant communities label
//! propagation produces.
//!
//! Weights are read as `f64`; an unweighted edge weighs 1. Integer-valued sums below 2^53
//! are exact in `f64`, so unweighted results are exact counts.

use super::slots::CommunitySlots;
use crate::community::UNLABELLED;
use crate::error::{Error, Result};
use crate::graph::Csr;
use rayon::prelude::*;

/// Per-community sums of one partition of a graph, indexed by slot.
#[derive(Debug, Clone)]
pub(crate) struct CommunityTotals {
    /// Which community each slot stands for.
    pub slots: CommunitySlots,
    /// Vertices in each slot's community (0 for label values nobody carries).
    pub size: Vec<u32>,
    /// Sum of the weighted degrees of the community's vertices (self loops counted once).
    pub volume: Vec<f64>,
    /// Weight of stored entries `u -> v` with `u` inside and `v` outside the community.
    pub cut: Vec<f64>,
    /// Total stored weight `2m`: every undirected edge twice, every self loop once.
    pub total_weight: f64,
    /// Weight of stored entries `u -> v` with both ends in the same community (self loops
    /// once), over all communities: the sum of every `sigma_c` of modularity.
    pub total_internal: f64,
}

/// Checks that `labels` has one entry per vertex of `csr`.
pub(crate) fn check_labels(csr: &Csr, labels: &[u32]) -> Result<()> {
    if labels.len() != csr.num_vertices() {
        return Err(Error::invalid(format!(
            "the partition has {} labels but the graph has {} vertices",
            labels.len(),
            csr.num_vertices()
        )));
    }
    Ok(())
}

/// Rejects negative weights: modularity and conductance are defined for non-negative weights
/// only (signed graphs need other null models).
pub(crate) fn check_weights(csr: &Csr) -> Result<()> {
    if let Some(weights) = csr.weights() {
        if let Some(i) = weights.par_iter().position_first(|&w| w < 0.0) {
            return Err(Error::invalid(format!(
                "stored edge {i} has the negative weight {}: community quality metrics need non-negative weights",
                weights[i]
            )));
        }
    }
    Ok(())
}

impl CommunityTotals {
    /// Sums of the partition `labels` (one label per vertex, [`UNLABELLED`] = own singleton).
    pub(crate) fn compute(csr: &Csr, labels: &[u32]) -> Result<Self> {
        check_labels(csr, labels)?;
        check_weights(csr)?;
        let slots = CommunitySlots::new(labels);
        Ok(match csr.weights() {
            None => {
                let inside = internal_counts(csr, labels);
                let offsets = csr.offsets();
                accumulate(slots, labels, |v| {
                    let degree = (offsets[v + 1] - offsets[v]) as f64;
                    (inside[v] as f64, degree - inside[v] as f64)
                })
            }
            Some(weights) => {
                let split = internal_weights(csr, weights, labels);
                accumulate(slots, labels, |v| split[v])
            }
        })
    }
}

/// Adds each vertex's `(internal, external)` weight into its community's slot, in vertex order.
fn accumulate(slots: CommunitySlots, labels: &[u32], split: impl Fn(usize) -> (f64, f64)) -> CommunityTotals {
    let k = slots.len();
    let (mut size, mut volume, mut cut) = (vec![0u32; k], vec![0f64; k], vec![0f64; k]);
    let (mut total_weight, mut total_internal) = (0f64, 0f64);
    slots.for_each_vertex(labels, |v, s| {
        let (inside, outside) = split(v);
        size[s] += 1;
        volume[s] += inside + outside;
        cut[s] += outside;
        total_weight += inside + outside;
        total_internal += inside;
    });
    CommunityTotals { slots, size, volume, cut, total_weight, total_internal }
}

/// Vertices per parallel task: rows are short, so many per task keep scheduling cheap.
const ROWS_PER_TASK: usize = 1024;

/// Whether the stored entry `v -> u` stays in `v`'s community (label `label`).
#[inline]
fn stays(labels: &[u32], v: usize, label: u32, u: u32) -> bool {
    if label == UNLABELLED {
        u as usize == v
    } else {
        labels[u as usize] == label
    }
}

/// Number of stored entries of each row that stay in the row vertex's community.
fn internal_counts(csr: &Csr, labels: &[u32]) -> Vec<u32> {
    let (offsets, targets) = (csr.offsets(), csr.targets());
    let mut inside = vec![0u32; labels.len()];
    inside.par_chunks_mut(ROWS_PER_TASK).enumerate().for_each(|(chunk, out)| {
        let first = chunk * ROWS_PER_TASK;
        for (i, count) in out.iter_mut().enumerate() {
            let v = first + i;
            let label = labels[v];
            let row = &targets[offsets[v] as usize..offsets[v + 1] as usize];
            *count = row.iter().filter(|&&u| stays(labels, v, label, u)).count() as u32;
        }
    });
    inside
}

/// `(internal, external)` weight of each row.
fn internal_weights(csr: &Csr, weights: &[f32], labels: &[u32]) -> Vec<(f64, f64)> {
    let (offsets, targets) = (csr.offsets(), csr.targets());
    let mut split = vec![(0f64, 0f64); labels.len()];
    split.par_chunks_mut(ROWS_PER_TASK).enumerate().for_each(|(chunk, out)| {
        let first = chunk * ROWS_PER_TASK;
        for (i, pair) in out.iter_mut().enumerate() {
            let v = first + i;
            let label = labels[v];
            let range = offsets[v] as usize..offsets[v + 1] as usize;
            for (&u, &w) in targets[range.clone()].iter().zip(&weights[range]) {
                if stays(labels, v, label, u) {
                    pair.0 += w as f64;
                } else {
                    pair.1 += w as f64;
                }
            }
        }
    });
    split
}
