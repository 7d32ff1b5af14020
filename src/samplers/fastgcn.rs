//! FastGCN's layer-wise importance sampling.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, COLLECTIVE};

/// FastGCN (Chen, Ma and Xiao, ICLR 2018): layer-wise importance sampling with
/// `q(v) ∝ ||A(:, v)||^2`, which for a 0/1 adjacency matrix is `degree(v)`.
///
/// One sample is a stack of layers grown from its roots: layer `l + 1` is `size` vertices
/// drawn independently (with replacement) with probability proportional to their degree
/// among the vertices adjacent to layer `l` (FastGCN draws from all vertices; restricting to
/// the layer's neighbourhood, as NextDoor does, keeps every drawn vertex connected to the
/// layer above). Each entry `(t, v)` of the combined neighbourhood weighs `degree(v) / c(v)`,
/// `c(v)` the number of the layer's entries holding `v` (its edges from the layer,
/// [`SampleView::combined_count`]), so that `v`'s entries together weigh `degree(v)`; the
/// drawn vertex is recorded with the edge of the entry drawn. Weighing the `E` entries costs
/// O(E log E) per layer (one sort of the neighbourhood, one binary search per entry).
///
/// `degree` is the out-degree: on a symmetrised graph (the default) it is the column norm
/// above; on a directed graph (`--directed`) FastGCN's column norm would be the in-degree,
/// and a vertex without out-edges weighs 0 (it is never drawn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastGcn {
    /// Number of layers below the roots (>= 1).
    pub layers: u32,
    /// Vertices drawn per layer (>= 1).
    pub size: u32,
}

#[glp::sampler]
impl Sampler for FastGcn {
    fn steps(&self) -> u32 {
        self.layers
    }

    fn sample_size(&self, _step: u32) -> u32 {
        self.size
    }

    fn sampling(&self) -> u32 {
        COLLECTIVE
    }

    /// `degree(v) / c(v)`, `c(v)` the entries holding `v` (at least 1: this one).
    fn combined_weight(&self, view: &SampleView<'_>, _sample: u32, _transit: VertexId, v: VertexId, _step: u32) -> f64 {
        view.degree(v) as f64 / view.combined_count(v) as f64
    }

    /// An entry drawn in proportion to its weight.
    fn next_entry(&self, view: &SampleView<'_>, _sample: u32, _lane: u32, _step: u32) -> u64 {
        view.combined_pick()
    }
}
