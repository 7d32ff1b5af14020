//! Newman-Girvan modularity of a partition.
//!
//! Per-community form, in `f64`:
//!
//! ```text
//! Q = sum over communities c of [ sigma_c / 2m - (Sigma_c / 2m)^2 ]
//! ```
//!
//! with `2m` the total stored weight, `sigma_c` the weight of stored entries `u -> v` with
//! both ends in `c` (twice the weight of the undirected edges inside `c`) and `Sigma_c` the
//! total weighted degree of `c`. This equals the pairwise definition
//! `Q = 1/2m sum_ij (A_ij - k_i k_j / 2m) delta(c_i, c_j)` where `A` is the stored CSR read as
//! a matrix. The CSR is expected to be symmetric (an undirected graph stored in both
//! directions); on a directed CSR the formula is evaluated as written with out-degrees, which
//! is not the directed (Leicht-Newman) modularity.
//!
//! Conventions:
//! - Weights: `Csr::weights` when present (must be non-negative), else 1 per stored entry.
//! - Self loops: stored once in the CSR, so a loop of weight `w` adds `w` to `A_vv`, to the
//!   degree of `v`, to `sigma_c` and to `2m` (once each). networkx counts a loop twice in the
//!   degree (`A_vv = 2w`); a graph built with the loop stored twice reproduces that.
//! - [`UNLABELLED`](crate::community::UNLABELLED) vertices are singleton communities.
//! - A graph without weight (`2m = 0`: no edges) has modularity 0: no partition is better
//!   than another.
//!
//! Cost: O(V + E), one parallel pass over the edges (see `totals`).

use super::sum::deterministic_sum;
use super::totals::CommunityTotals;
use crate::error::Result;
use crate::graph::Csr;

/// Modularity of the partition `labels` (one label per vertex) of the undirected graph `csr`.
///
/// Errors when `labels` does not have one entry per vertex or a weight is negative.
pub fn modularity(csr: &Csr, labels: &[u32]) -> Result<f64> {
    Ok(modularity_of(&CommunityTotals::compute(csr, labels)?))
}

/// Modularity from per-community sums.
pub(crate) fn modularity_of(totals: &CommunityTotals) -> f64 {
    let two_m = totals.total_weight;
    if two_m <= 0.0 {
        return 0.0;
    }
    let expected = deterministic_sum(totals.volume.len(), |s| {
        let share = totals.volume[s] / two_m;
        share * share
    });
    totals.total_internal / two_m - expected
}
