//! Multi-root random walks (frontier sampling).

use crate::sample::{SampleView, Sampler, COLLECTIVE, NONE_ENTRY, REPLACE};

/// Multi-root random walks (frontier sampling, Ribeiro and Towsley, IMC 2010; NextDoor's
/// MultiRW): `m` walkers move one at a time; at every step the walker that moves is chosen
/// with probability proportional to its vertex's degree, and moves to a uniform neighbour.
///
/// One sample is the walk of `m` walkers started at its `m` roots: one vertex per step,
/// recorded with the vertex it came from (the walker's previous position), `length` steps.
/// Drawing an edge uniformly from the combined neighbourhood of the walkers' positions does
/// both choices at once (walker `t` with probability `d(t) / sum d`, then a uniform
/// neighbour of it); the drawn vertex replaces its walker's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiRootWalk {
    /// Steps (>= 1): every step moves one walker.
    pub length: u32,
}

#[glp::sampler]
impl Sampler for MultiRootWalk {
    fn steps(&self) -> u32 {
        self.length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    fn sampling(&self) -> u32 {
        COLLECTIVE
    }

    fn next_transits(&self) -> u32 {
        REPLACE
    }

    /// A uniform edge leaving the walkers' positions.
    /// Nothing when the transits have no edges (isolated roots).
    fn next_entry(&self, view: &SampleView<'_>, _sample: u32, _lane: u32, _step: u32) -> u64 {
        let len = view.combined_len();
        if len == 0 {
            return NONE_ENTRY;
        }
        view.random_below(len)
    }
}
