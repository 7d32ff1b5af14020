//! Personalized PageRank walks.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, NONE};
use crate::{Error, Result};

/// Personalized PageRank random walks (random walks with restart, as NextDoor samples them):
/// before every step the walk ends with probability `termination`, otherwise it moves to a
/// uniform neighbour.
///
/// One sample is one walk from its root. Its number of steps is geometric: `k` steps with
/// probability `(1 - termination)^k * termination` (on a graph without dead ends), cut at
/// `max_length`. The visit frequencies of many walks from a root estimate its personalized
/// PageRank with teleport probability `termination`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ppr {
    /// Probability of ending the walk before each step, in (0, 1).
    pub termination: f64,
    /// Most steps of a walk (>= 1).
    pub max_length: u32,
}

#[glp::sampler]
impl Sampler for Ppr {
    /// `termination` must lie strictly between 0 and 1.
    fn validate(&self) -> Result<()> {
        if !(self.termination > 0.0 && self.termination < 1.0) {
            return Err(Error::invalid(format!(
                "ppr: the termination probability must lie strictly between 0 and 1 (got {})",
                self.termination
            )));
        }
        Ok(())
    }

    fn steps(&self) -> u32 {
        self.max_length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    /// Ends the walk with probability `termination`, else a uniform neighbour.
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        if view.random_f64() < self.termination {
            return NONE;
        }
        let degree = view.degree(transit);
        if degree == 0 {
            return NONE;
        }
        view.edge(transit, view.random_below(degree))
    }
}
