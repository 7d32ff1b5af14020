//! Everything the command line prints about a partition, computed in one call.

use super::conductance::{conductance_summary, ConductanceSummary};
use super::modularity::modularity_of;
use super::overlap::{overlapping_nmi_of_partition, OverlappingNmi};
use super::partition::{Ari, ContingencyTable, Nmi};
use super::sizes::{size_stats_of, SizeStats};
use super::totals::CommunityTotals;
use crate::community::GroundTruth;
use crate::error::{Error, Result};
use crate::graph::Csr;
use serde::Serialize;

/// Quality of a partition of a graph, and its agreement with a ground truth when one is given.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QualityReport {
    /// Vertices of the graph.
    pub vertices: usize,
    /// Stored (directed) edges of the CSR.
    pub stored_edges: u64,
    /// Total stored weight `2m`.
    pub total_weight: f64,
    /// Modularity (see [`modularity`](super::modularity())).
    pub modularity: f64,
    /// Community count and sizes.
    pub communities: SizeStats,
    /// Conductance summary.
    pub conductance: ConductanceSummary,
    /// NMI against a ground-truth partition.
    pub nmi: Option<Nmi>,
    /// ARI against a ground-truth partition.
    pub ari: Option<Ari>,
    /// Overlapping NMI against a ground-truth cover (the partition read as a cover).
    pub overlapping_nmi: Option<OverlappingNmi>,
}

impl QualityReport {
    /// Scores the partition `labels` of `csr`, and compares it with `ground_truth`: NMI and
    /// ARI for a partition, overlapping NMI (universe: the graph's vertices) for a cover, and
    /// all three for a cover whose communities do not overlap.
    ///
    /// Errors when `labels` or a ground-truth partition does not have one entry per vertex,
    /// a weight is negative, a ground-truth cover names a vertex outside the graph or has no
    /// non-empty community, or no vertex is labelled in both partitions.
    pub fn new(csr: &Csr, labels: &[u32], ground_truth: Option<&GroundTruth>) -> Result<Self> {
        let totals = CommunityTotals::compute(csr, labels)?;
        let mut report = QualityReport {
            vertices: csr.num_vertices(),
            stored_edges: csr.num_edges(),
            total_weight: totals.total_weight,
            modularity: modularity_of(&totals),
            communities: size_stats_of(&totals),
            conductance: conductance_summary(&totals),
            nmi: None,
            ari: None,
            overlapping_nmi: None,
        };
        match ground_truth {
            None => {}
            Some(GroundTruth::Partition(truth)) => {
                if truth.len() != labels.len() {
                    return Err(Error::invalid(format!(
                        "the ground-truth partition has {} labels but the graph has {} vertices",
                        truth.len(),
                        labels.len()
                    )));
                }
                let table = ContingencyTable::new(labels, truth)?;
                report.nmi = Some(table.nmi()?);
                report.ari = Some(table.ari()?);
            }
            Some(GroundTruth::Cover(cover)) => {
                report.overlapping_nmi = Some(overlapping_nmi_of_partition(labels, cover)?);
                // A cover without overlaps (LFR's community files) is a partition of the
                // vertices it covers: NMI and ARI apply there too, and are more telling than
                // the overlapping NMI, which rejects a small community inside a large one.
                if let Some(truth) = cover.as_partition(labels.len()) {
                    let table = ContingencyTable::new(labels, &truth)?;
                    report.nmi = Some(table.nmi()?);
                    report.ari = Some(table.ari()?);
                }
            }
        }
        Ok(report)
    }
}
