//! Conductance of every community and its summary.
//!
//! ```text
//! phi(S) = cut(S) / min(vol(S), vol(V \ S))
//! ```
//!
//! `cut(S)` is the weight of stored entries leaving `S`, `vol(S)` the total weighted degree of
//! `S` (self loops counted once, as in [`modularity`](super::modularity())) and
//! `vol(V \ S) = 2m - vol(S)`. Lower is better: 0 for a community no edge leaves.
//!
//! Degenerate cases: when `vol(S) = 0` (the community has no edge at all) or
//! `vol(V \ S) = 0` (it holds every edge endpoint) the ratio is 0/0 and conductance is
//! undefined: reported as `None` and left out of the summary, which counts them separately.
//! [`UNLABELLED`](crate::community::UNLABELLED) vertices are singleton communities, as
//! everywhere in this module.

use super::slots::CommunityKey;
use super::totals::CommunityTotals;
use crate::error::Result;
use crate::graph::Csr;
use serde::Serialize;

/// Conductance of one community.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CommunityConductance {
    /// The community.
    pub community: CommunityKey,
    /// Its number of vertices.
    pub size: u32,
    /// Its volume: total weighted degree.
    pub volume: f64,
    /// Weight of the stored edges leaving it.
    pub cut: f64,
    /// `cut / min(volume, 2m - volume)`; `None` when that minimum is 0.
    pub conductance: Option<f64>,
}

/// Summary of the conductance of all communities.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ConductanceSummary {
    /// Communities (non-empty; unlabelled vertices are singletons).
    pub communities: usize,
    /// Communities whose conductance is undefined (volume 0 inside or outside).
    pub undefined: usize,
    /// Mean over the communities with a defined conductance; `None` when there is none.
    pub mean: Option<f64>,
    /// Mean weighted by community size (vertices), over the same communities.
    pub size_weighted_mean: Option<f64>,
    /// Smallest defined conductance.
    pub min: Option<f64>,
    /// Largest defined conductance.
    pub max: Option<f64>,
}

/// Conductance of every community, in slot order (labels ascending, then unlabelled vertices).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conductance {
    /// One entry per non-empty community.
    pub communities: Vec<CommunityConductance>,
    /// Mean, size-weighted mean, minimum and maximum.
    pub summary: ConductanceSummary,
}

/// Conductance of every community of the partition `labels` of the undirected graph `csr`.
///
/// Errors when `labels` does not have one entry per vertex or a weight is negative.
pub fn conductance(csr: &Csr, labels: &[u32]) -> Result<Conductance> {
    let totals = CommunityTotals::compute(csr, labels)?;
    let communities = per_community(&totals);
    let summary = summarise(&communities);
    Ok(Conductance { communities, summary })
}

/// Conductance summary from per-community sums.
pub(crate) fn conductance_summary(totals: &CommunityTotals) -> ConductanceSummary {
    summarise(&per_community(totals))
}

fn per_community(totals: &CommunityTotals) -> Vec<CommunityConductance> {
    let two_m = totals.total_weight;
    (0..totals.size.len())
        .filter(|&s| totals.size[s] > 0)
        .map(|s| {
            let (volume, cut) = (totals.volume[s], totals.cut[s]);
            let denominator = volume.min(two_m - volume);
            CommunityConductance {
                community: totals.slots.key(s),
                size: totals.size[s],
                volume,
                cut,
                conductance: (denominator > 0.0).then(|| cut / denominator),
            }
        })
        .collect()
}

fn summarise(communities: &[CommunityConductance]) -> ConductanceSummary {
    let defined = || communities.iter().filter_map(|c| c.conductance.map(|phi| (c.size as f64, phi)));
    let count = defined().count();
    let (sum, weighted_sum, weight) =
        defined().fold((0.0, 0.0, 0.0), |(s, ws, w), (size, phi)| (s + phi, ws + size * phi, w + size));
    let nonempty = |x: f64| (count > 0).then_some(x);
    ConductanceSummary {
        communities: communities.len(),
        undefined: communities.len() - count,
        mean: nonempty(sum / count as f64),
        size_weighted_mean: nonempty(weighted_sum / weight),
        min: defined().map(|(_, phi)| phi).reduce(f64::min),
        max: defined().map(|(_, phi)| phi).reduce(f64::max),
    }
}
