//! DeepWalk's random walks.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, NONE};

/// DeepWalk (Perozzi, Al-Rfou and Skiena, KDD 2014): uniform random walks.
///
/// One sample is one walk of `length` steps from its root: at every step the walk moves to a
/// neighbour of its current vertex drawn uniformly (exactly: `random_below(degree)`). A walk
/// that reaches a vertex without neighbours stops there (shorter than `length`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeepWalk {
    /// Steps of a walk (>= 1): a walk has at most `length + 1` vertices, its root included.
    pub length: u32,
}

#[glp::sampler]
impl Sampler for DeepWalk {
    fn steps(&self) -> u32 {
        self.length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    /// A uniform neighbour of the current vertex.
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let degree = view.degree(transit);
        if degree == 0 {
            return NONE;
        }
        view.edge(transit, view.random_below(degree))
    }
}
