//! GraphSAGE's k-hop neighbourhood sampling.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, NONE};

/// GraphSAGE's k-hop sampling (Hamilton, Ying and Leskovec, NeurIPS 2017; PyG's
/// `NeighborLoader`, DGL's `sample_neighbors`): from every vertex of hop `h`, `fanout(h)`
/// uniform neighbours, which form hop `h + 1`.
///
/// One sample is the sampled computation tree of one root (a mini-batch seed): its hops of
/// vertices and the edges `drawn vertex -> transit` they were drawn by. With
/// `replace = true` each draw is independent (GraphSAGE's sampler, with replacement: a
/// neighbour may be drawn twice); with `replace = false` the draws of one transit are
/// distinct (`unique`), and a transit with at most `fanout` neighbours gets all of them.
/// The next hop grows from the distinct vertices the hop added (DGL's blocks).
///
/// Up to 4 hops; `fanout_h` for hops beyond `hops` are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KHop {
    /// Number of hops (1 to 4).
    pub hops: u32,
    /// Draws per vertex of the root's hop.
    pub fanout_1: u32,
    /// Draws per vertex of hop 1.
    pub fanout_2: u32,
    /// Draws per vertex of hop 2.
    pub fanout_3: u32,
    /// Draws per vertex of hop 3.
    pub fanout_4: u32,
    /// With replacement (`true`) or without.
    pub replace: bool,
}

/// Most hops of [`KHop`].
pub const MAX_HOPS: usize = 4;

impl KHop {
    /// The sampler of `fanouts` (1 to [`MAX_HOPS`] values, outermost last); `None` for another
    /// number of hops.
    pub fn new(fanouts: &[u32], replace: bool) -> Option<Self> {
        if fanouts.is_empty() || fanouts.len() > MAX_HOPS {
            return None;
        }
        let f = |h: usize| fanouts.get(h).copied().unwrap_or(0);
        Some(KHop {
            hops: fanouts.len() as u32,
            fanout_1: f(0),
            fanout_2: f(1),
            fanout_3: f(2),
            fanout_4: f(3),
            replace,
        })
    }
}

#[glp::sampler]
impl Sampler for KHop {
    fn steps(&self) -> u32 {
        self.hops
    }

    fn sample_size(&self, step: u32) -> u32 {
        match step {
            0 => self.fanout_1,
            1 => self.fanout_2,
            2 => self.fanout_3,
            _ => self.fanout_4,
        }
    }

    fn unique(&self, _step: u32) -> bool {
        !self.replace
    }

    /// A uniform neighbour of the transit.
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let degree = view.degree(transit);
        if degree == 0 {
            return NONE;
        }
        view.edge(transit, view.random_below(degree))
    }
}
