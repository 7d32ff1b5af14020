//! DeepWalk's random walks weighted by edge weight.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, NONE};

/// Weighted DeepWalk (NextDoor's DeepWalk): random walks whose steps follow an edge with
/// probability proportional to its weight.
///
/// One sample is one walk of `length` steps from its root. At every step, `x` uniform in
/// `[0, W)` (`W` the current vertex's total edge weight) selects the edge whose interval of
/// the cached prefix sums holds it (`weighted_edge`, a binary search: O(log degree)); edges
/// of weight 0 are never taken. A walk stops at a vertex without neighbours or whose edges
/// all weigh 0. On an unweighted graph it is [`super::DeepWalk`]'s distribution (drawn from
/// a float, not from an exact integer draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeightedDeepWalk {
    /// Steps of a walk (>= 1).
    pub length: u32,
}

#[glp::sampler]
impl Sampler for WeightedDeepWalk {
    fn steps(&self) -> u32 {
        self.length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    /// A neighbour drawn in proportion to its edge weight.
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let total = view.total_weight(transit);
        if total <= 0.0 {
            return NONE;
        }
        let i = view.weighted_edge(transit, view.random_f64() * total);
        view.edge(transit, i)
    }
}
