//! ClusterGCN's cluster subgraphs.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, ALL_NEIGHBOURS, NONE};

/// ClusterGCN (Chiang, Liu, Si, Li, Bengio and Hsieh, KDD 2019): a mini-batch is the
/// subgraph induced by a few clusters of a vertex partition.
///
/// One sample is the subgraph induced by its roots (the vertices of its clusters, given as
/// the sample's roots): one step with one draw per neighbour of every root, which keeps the
/// edges whose other end is a root too. Every edge between two roots is recorded once per
/// direction stored in the graph (both directions on a symmetrised graph); a vertex given
/// twice among a sample's roots has its edges recorded twice.
///
/// The clusters are the caller's: the sampler only induces the subgraph of each sample's
/// roots. ClusterGCN's clusters come from a graph partition (METIS in the paper), so that a
/// batch keeps most of its vertices' edges. In the library, give each batch's clusters as
/// one group of roots ([`crate::sample::InitialSamples::groups`]). `glp sample cluster-gcn
/// --clusters FILE` reads a partition (`vertex cluster` lines, e.g. the communities `glp lp
/// --out` writes: label propagation is a fast partitioner that keeps edges inside clusters);
/// `--clusters C` cuts the vertex ids into `C` consecutive ranges instead (NextDoor's
/// application does the same, with clusters of 16 consecutive ids), which are clusters only
/// when the ids follow the graph's structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClusterGcn;

#[glp::sampler]
impl Sampler for ClusterGcn {
    fn steps(&self) -> u32 {
        1
    }

    fn sample_size(&self, _step: u32) -> u32 {
        ALL_NEIGHBOURS
    }

    /// Neighbour `lane` of the transit when it is in the sample's clusters.
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, lane: u32, _step: u32) -> VertexId {
        let v = view.edge(transit, lane as u64);
        if view.is_root(v) {
            v
        } else {
            NONE
        }
    }
}
