//! LADIES: layer-dependent importance sampling.

use crate::graph::VertexId;
use crate::sample::{SampleView, Sampler, COLLECTIVE};

/// LADIES (Zou, Hu, Wang, Jiang, Sun and Gu, NeurIPS 2019): layer-dependent importance
/// sampling, `p(v) ∝ ||Q P(:, v)||^2` with `P = D^-1/2 A D^-1/2` and `Q` the rows of the
/// current layer, i.e. `p(v) ∝ sum over t in the layer adjacent to v of 1 / (d(t) d(v))`.
///
/// One sample is a stack of layers grown from its roots: layer `l + 1` is `size` distinct
/// vertices (LADIES samples without replacement) drawn with probability `p` among the
/// vertices adjacent to layer `l` (a repeat is drawn again: successive sampling, as
/// `numpy.random.choice(replace=False)`). Each entry `(t, v)` of the combined neighbourhood
/// weighs `1 / (d(t) d(v))`, so `v`'s entries together weigh `p(v)` up to the common factor;
/// the drawn vertex is recorded with the edge of the entry drawn. (LADIES adds self loops to
/// `A`; glp's graphs drop them unless loaded with `--keep-self-loops`.) On a directed graph
/// (`--directed`) `d` is the out-degree, and a vertex without out-edges, whose column of `P`
/// is undefined (`1 / 0`), weighs 0: it is never drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ladies {
    /// Number of layers below the roots (>= 1).
    pub layers: u32,
    /// Vertices per layer (>= 1).
    pub size: u32,
}

#[glp::sampler]
impl Sampler for Ladies {
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

    /// `1 / (d(t) d(v))`; 0 when `v` has no out-edge (`d(t) >= 1`: `v` is its neighbour).
    fn combined_weight(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, v: VertexId, _step: u32) -> f64 {
        let degree = view.degree(v);
        if degree == 0 {
            return 0.0;
        }
        1.0 / (view.degree(transit) as f64 * degree as f64)
    }

    /// An entry drawn in proportion to its weight.
    fn next_entry(&self, view: &SampleView<'_>, _sample: u32, _lane: u32, _step: u32) -> u64 {
        view.combined_pick()
    }
}
