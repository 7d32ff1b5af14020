//! The hook trait of samplers (NextDoor's API, with the collective neighbourhoods of its
//! later version); see the [module docs](super) for the model.

use super::view::SampleView;
use crate::error::Error;
use crate::graph::VertexId;

/// The kind's constants, defined once in glp-codegen (the compiler's table and the CUDA
/// header are generated from the same definitions).
pub use glp_codegen::kinds::sample::{ADDED, ALL_NEIGHBOURS, COLLECTIVE, INDIVIDUAL, NONE, NONE_ENTRY, REPLACE};

/// A graph sampler: NextDoor's hooks. Every method has a default except [`Sampler::steps`]
/// and [`Sampler::sample_size`].
///
/// The hooks are written in the subset the compiler lowers to CUDA (scalars, `let`, `if`,
/// `match` on integers, `while` / `for` over integer ranges, arithmetic, casts, the view's
/// methods, `self.field` parameters): the view supplies everything else (the graph, the
/// sample's history, random numbers), through methods taking and returning scalars.
/// Hooks run in parallel, in any order; they are pure functions of their arguments, the
/// sampler's fields and the view (whose random numbers are keyed by sample, step and lane).
pub trait Sampler: Sync {
    /// The sampler's name in messages. Default: the type's name.
    fn name(&self) -> &str {
        let full = std::any::type_name::<Self>();
        full.rsplit("::").next().unwrap_or(full)
    }

    /// The number of steps (the walk length, the number of hops); at least 1.
    fn steps(&self) -> u32;

    /// The draws of `step`: per transit for an individual sampler, per sample for a
    /// collective one; [`ALL_NEIGHBOURS`] for one per neighbour. At least 1.
    fn sample_size(&self, step: u32) -> u32;

    /// [`INDIVIDUAL`] (default) or [`COLLECTIVE`].
    fn sampling(&self) -> u32 {
        INDIVIDUAL
    }

    /// [`ADDED`] (default) or [`REPLACE`].
    fn next_transits(&self) -> u32 {
        ADDED
    }

    /// Whether the draws of `step` from one neighbourhood are distinct (without
    /// replacement): a draw that repeats a vertex already drawn from the same neighbourhood
    /// at this step is made again, with the lane's next random numbers. Default: `false`.
    fn unique(&self, _step: u32) -> bool {
        false
    }

    /// Individual samplers: the vertex draw `lane` (from 0) of `transit` adds to `sample` at
    /// `step`, or [`NONE`]. It must be a neighbour of `transit` (the engine checks).
    fn next(&self, _view: &SampleView<'_>, _sample: u32, _transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        NONE
    }

    /// Collective samplers: the entry of the combined neighbourhood
    /// ([`SampleView::combined_vertex`]) draw `lane` adds to `sample` at `step`, or
    /// [`NONE_ENTRY`]. It must be below [`SampleView::combined_len`] (the engine checks).
    fn next_entry(&self, _view: &SampleView<'_>, _sample: u32, _lane: u32, _step: u32) -> u64 {
        NONE_ENTRY
    }

    /// Collective samplers: the weight of the combined neighbourhood's entry `(transit, v)`
    /// (an edge from one of the sample's transits), which [`SampleView::combined_pick`] draws
    /// in proportion to; finite and non-negative. Default: 1.
    fn combined_weight(
        &self,
        _view: &SampleView<'_>,
        _sample: u32,
        _transit: VertexId,
        _v: VertexId,
        _step: u32,
    ) -> f64 {
        1.0
    }

    /// Checks the sampler's parameters before a run (not a hook): an
    /// [`Error::InvalidArgument`] naming the parameter and its valid range. Default: `Ok`.
    fn validate(&self) -> Result<(), Error> {
        Ok(())
    }

    /// An error that ends the run, or `None`. Not a hook: a sampler whose hooks can fail (one
    /// run on the interpreter) records the first failure, returns [`NONE`] from then on and
    /// reports it here; the engine asks after every chunk of samples. Default: `None`.
    fn failure(&self) -> Option<Error> {
        None
    }
}
