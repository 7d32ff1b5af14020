//! Minimal-variance neighbour sampling.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, NONE};

/// Minimal-variance sampling (after MVS-GNN, Cong, Forsati, Kandemir and Mahdavi, KDD 2020):
/// node-wise neighbour sampling with the importance that minimises the variance of the
/// sampled GCN aggregation `sum_u Â(v, u) h(u)`, `Â = D^-1/2 A D^-1/2`.
///
/// The variance-minimal draw of neighbour `u` for `v` is proportional to `Â(v, u) ||h(u)||`.
/// A sampler knows no embeddings, so this one takes `||h(u)||` equal for all vertices (MVS-GNN
/// starts there, before gradients exist): `u` is drawn with probability proportional to
/// `1 / sqrt(d(u))`, which favours low-degree neighbours whose single contribution weighs
/// more. One sample is a root's sampled computation tree of `hops` hops, `fanout` draws
/// (with replacement) per vertex and hop, as in [`super::KHop`].
///
/// Drawn exactly by rejection: a uniform candidate `u`, accepted with probability
/// `1 / sqrt(d(u))` (at most 1), else drawn again; the expected number of attempts is the
/// inverse of the mean of `1 / sqrt(d(u))` over the neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mvs {
    /// Hops (>= 1).
    pub hops: u32,
    /// Draws per vertex and hop (>= 1).
    pub fanout: u32,
}

#[glp::sampler]
impl Sampler for Mvs {
    fn steps(&self) -> u32 {
        self.hops
    }

    fn sample_size(&self, _step: u32) -> u32 {
        self.fanout
    }

    /// A neighbour `u` in proportion to `1 / sqrt(d(u))`, by rejection.
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let degree = view.degree(transit);
        if degree == 0 {
            return NONE;
        }
        let mut chosen = NONE;
        while chosen == NONE {
            let u = view.edge(transit, view.random_below(degree));
            if view.random_f64() * (view.degree(u) as f64).sqrt() < 1.0 {
                chosen = u;
            }
        }
        chosen
    }
}
