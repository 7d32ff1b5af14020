//! Minimal-variance neighbour sampling.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, NONE};

/// Minimal-variance neighbour sampling (after MVS-GNN, Cong, Forsati, Kandemir and Mahdavi,
/// KDD 2020): node-wise neighbour sampling with the importance that minimises the variance of
/// the sampled GCN aggregation `sum_u Â(v, u) h(u)`, `Â = D^-1/2 A D^-1/2`.
///
/// # The reading chosen, and why
///
/// MVS-GNN minimises two variances: the stochastic gradient's, by drawing the mini-batch's
/// nodes in proportion to their gradient norms, which only the trainer knows; and the
/// embedding approximation's, by aggregating over neighbours with historical embeddings.
/// NextDoor's MVS application samples nothing inside a neighbourhood: a sample is a batch of
/// 32 vertices and every edge of each (their full one-hop neighbourhood), leaving the
/// gradient-based choice of the batch to the trainer. In glp that sample is
/// [`super::KHop`] without replacement with a fan-out of at least the largest degree, from
/// roots the trainer chose (`glp sample khop --fanouts D --without-replacement --roots
/// batch.txt`), so it needs no sampler of its own.
///
/// This sampler is the node-wise form of the same principle, which a sampler can compute
/// from the graph alone: for a sum estimated from draws with replacement, the
/// variance-minimal draw of neighbour `u` of `v` is proportional to `Â(v, u) ||h(u)||`
/// (importance sampling of a sum: the draw proportional to the magnitude of each term).
/// With no embeddings, `||h(u)||` is taken equal for all vertices (MVS-GNN's starting
/// point, before gradients exist), and `Â(v, u) ∝ 1 / sqrt(d(u))` for a fixed `v`: `u` is
/// drawn with probability proportional to `1 / sqrt(d(u))`, which favours low-degree
/// neighbours, whose single contribution weighs more. One sample is a root's sampled
/// computation tree of `hops` hops, `fanout` draws (with replacement) per vertex and hop, as
/// in [`super::KHop`]. A neighbour without out-edges (a sink of a directed graph, loaded with
/// `--directed`) counts as degree 1 (`1 / sqrt(0)` is undefined; 1 is the smallest degree a
/// vertex with an edge has).
///
/// Drawn exactly by rejection: a uniform candidate `u`, accepted with probability
/// `1 / sqrt(max(d(u), 1))` (at most 1), else drawn again; the expected number of attempts
/// is the inverse of the mean of that over the neighbours (about `sqrt(d)` when every
/// neighbour has degree `d`).
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
            let mut degree_u = view.degree(u);
            if degree_u == 0 {
                degree_u = 1;
            }
            if view.random_f64() * (degree_u as f64).sqrt() < 1.0 {
                chosen = u;
            }
        }
        chosen
    }
}
