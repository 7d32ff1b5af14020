//! Layer sampling.

use crate::sample::{SampleView, Sampler, COLLECTIVE, NONE_ENTRY};

/// Layer sampling (as in NextDoor's later version): every layer draws `size` vertices from
/// the combined neighbourhood of the previous layer, without replacement.
///
/// One sample is a stack of layers grown from its roots: layer `l + 1` is `size` distinct
/// vertices drawn from the edges leaving layer `l` (each draw takes an edge uniformly, so a
/// vertex is drawn with probability proportional to its number of edges into layer `l`; a
/// repeated vertex is drawn again), each recorded with the edge it came by. A layer whose
/// neighbourhood has fewer than `size` distinct vertices takes all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layer {
    /// Number of layers below the roots (>= 1).
    pub layers: u32,
    /// Vertices per layer (>= 1).
    pub size: u32,
}

#[glp::sampler]
impl Sampler for Layer {
    fn steps(&self) -> u32 {
        self.layers
    }

    fn sample_size(&self, _step: u32) -> u32 {
        self.size
    }

    fn sampling(&self) -> u32 {
        COLLECTIVE
    }

    fn unique(&self, _step: u32) -> bool {
        true
    }

    /// A uniform entry (edge) of the combined neighbourhood.
    /// Nothing when the transits have no edges (isolated roots).
    fn next_entry(&self, view: &SampleView<'_>, _sample: u32, _lane: u32, _step: u32) -> u64 {
        let len = view.combined_len();
        if len == 0 {
            return NONE_ENTRY;
        }
        view.random_below(len)
    }
}
