//! node2vec's second-order random walks.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, NONE};
use crate::{Error, Result};

/// node2vec (Grover and Leskovec, KDD 2016): second-order random walks with return parameter
/// `p` and in-out parameter `q`, sampled exactly by rejection (as KnightKing and NextDoor do).
///
/// One sample is one walk of `length` steps from its root. Standing at `v` having come from
/// `t`, the walk moves to a neighbour `x` of `v` with probability proportional to
/// `w(v, x) * bias(x)`, where `bias` is `1 / p` when `x = t` (return), `1` when `x` is a
/// neighbour of `t` (a common neighbour: distance 1 from `t`), and `1 / q` otherwise
/// (distance 2). The first step, with no previous vertex, is proportional to `w(v, x)`.
/// (The NextDoor paper swaps the roles of `p` and `q` in its description; this follows the
/// node2vec paper.)
///
/// Rejection sampling: draw a candidate edge `i` uniformly, accept it with probability
/// `w(v, x) * bias(x) / (max_weight(v) * max_bias)`, `max_bias = max(1 / p, 1, 1 / q)`, else
/// draw again: each attempt costs one exact integer draw, one `f64` and, for the bias, a
/// membership test of `x` in `t`'s row (`contains`, a binary search in the shorter of the two
/// rows on a symmetric graph). The test is made only when its answer decides: a draw below
/// `w(v, x) * min(1, 1 / q)` is accepted and one at or above `w(v, x) * max(1, 1 / q)`
/// rejected without it (with `q = 0.5`, half the attempts skip it). The accepted edge has
/// exactly the distribution above.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node2vec {
    /// Steps of a walk (>= 1).
    pub length: u32,
    /// Return parameter (> 0): small values keep the walk near its previous vertex.
    pub p: f64,
    /// In-out parameter (> 0): small values push the walk outward (DFS-like), large ones
    /// keep it local (BFS-like).
    pub q: f64,
}

#[glp::sampler]
impl Sampler for Node2vec {
    /// `p` and `q` must be finite and positive.
    fn validate(&self) -> Result<()> {
        for (name, value) in [("p", self.p), ("q", self.q)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::invalid(format!("node2vec: {name} must be a positive number (got {value})")));
            }
        }
        Ok(())
    }

    fn steps(&self) -> u32 {
        self.length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    /// A neighbour of the current vertex by rejection sampling (see the type's docs).
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        // The biases depend on `p` and `q` alone (a GPU walker computes them once per walk).
        let return_bias = 1.0 / self.p;
        let out_bias = 1.0 / self.q;
        let low_bias = out_bias.min(1.0);
        let high_bias = out_bias.max(1.0);
        let second_order_max_bias = high_bias.max(return_bias);
        let degree = view.degree(transit);
        let max_weight = view.max_weight(transit);
        if degree == 0 || max_weight <= 0.0 {
            return NONE;
        }
        let previous = view.previous_vertex(2, 0);
        let max_bias = if previous == NONE { 1.0 } else { second_order_max_bias };
        let bound = max_weight * max_bias;
        let mut chosen = NONE;
        while chosen == NONE {
            let i = view.random_below(degree);
            let x = view.edge(transit, i);
            let threshold = view.random_f64() * bound;
            let weight = view.edge_weight(transit, i);
            let accepted = if previous == NONE {
                threshold < weight
            } else if x == previous {
                threshold < weight * return_bias
            } else if threshold < weight * low_bias {
                true // accepted whether x is a neighbour of `previous` (bias 1) or not
            } else if threshold >= weight * high_bias {
                false // rejected either way
            } else if view.contains(previous, x) {
                threshold < weight
            } else {
                threshold < weight * out_bias
            };
            if accepted {
                chosen = x;
            }
        }
        chosen
    }
}
