//! Label propagation on the CPU: the reference every other backend is compared with, and the
//! product when no GPU is present.
//!
//! An engine is generic over an [`LpVariant`], the four hooks of GLP (`pick_label`,
//! `load_neighbor`, `label_score`, `update_vertex`, see [`variant`] for when each is called);
//! the defaults give classic label propagation. Engines are monomorphised per variant, so the
//! hooks of a plain Rust variant inline into the inner loop. Hooks read the graph and labels
//! through a [`View`], which also offers the optional facilities of [`LpFeatures`] (global
//! label histogram, bounded per-vertex label memory, seed labels, vertex weights, counter-based
//! random numbers); an engine allocates only those the run's features name, so a classic run
//! does no extra work per edge or per vertex.
//!
//! Entry points: [`run_with`] (variant, configuration, [`LpInputs`] and [`LpFeatures`]),
//! [`run_kernel`] (a compiled variant with exactly the facilities its hooks use) and [`run`],
//! the same with no inputs and no optional facility (classic and weighted LP). A variant
//! written in a source file and compiled at run time is an [`InterpretedVariant`]: its hooks
//! run on the IR interpreter, and a hook that fails ends the run with an error
//! ([`LpVariant::failure`]). [`LpInputs::observer`] hears about every iteration as it ends,
//! on every engine (the CLI's progress bar).
//!
//! Two schedules ([`Schedule`]):
//! - **synchronous** (GLP, LDBC CDLP): double-buffered labels, every vertex reads the labels
//!   of the previous iteration; deterministic whatever the thread count;
//! - **asynchronous** (nu-LPA / GVE-LPA): labels updated in place, only vertices whose
//!   neighbourhood changed are processed again ("affected" flags), Pick-Less every `rho`
//!   iterations to break label swaps, stop when a non-Pick-Less iteration changes at most a
//!   fraction `tau` of the vertices.
//!
//! The highest score wins; equal scores are resolved by a [`TieBreak`]: the smallest label
//! for the synchronous schedule (GLP's and LDBC CDLP's rule, which the GPU engine
//! reproduces exactly), the label met first along the sorted adjacency for the asynchronous
//! one (GVE-LPA's rule). The smallest-label rule is harmful with in-place updates: a sweep in
//! id order lets the smallest labels cascade through the graph and merge communities
//! (com-DBLP modularity 0.35 instead of 0.74 in our measurements), so it is not the default
//! there. First-seen cascades too on dense planted-partition graphs (groups of 40, 80% of
//! edges inside: purity 0.66 against 0.89 with [`TieBreak::Hashed`], see the engine tests);
//! on real graphs it gives GVE-LPA's modularity, which is why it is the default. The GPU
//! engine ([`gpu`]) has the smallest-label and hashed rules (the same functions, so the
//! synchronous schedule gives the CPU's labels under either); first-seen belongs to one
//! thread's scan of the adjacency and is refused there.
//!
//! The most-frequent-label (MFL) search uses a per-thread collision-free table (`tally`):
//! one accumulator per possible label plus the list of labels touched, as GVE-LPA does.
//! [`run_sketched`] replaces it with a Misra-Gries or Boyer-Moore sketch ([`sketch`]), the CPU
//! twins of the GPU's memory-efficient strategies.

mod asynchronous;
mod compiled;
pub mod gpu;
mod interpreted;
pub mod sketch;
mod synchronous;
mod tally;
pub mod variant;
mod view;

pub use compiled::{CompiledVariant, ParamDecl, Scalar, ScalarValue};
pub use interpreted::{compile_variant, InterpretedVariant};
pub use sketch::Sketch;
pub use variant::{EdgeId, Label, LpFeatures, LpVariant, View};
pub use view::LABEL_MEMORY_SLOTS;

use crate::community::UNLABELLED;
use crate::error::{Error, Result};
use crate::graph::Csr;
use std::time::{Duration, Instant};

/// Default Pick-Less period: every 8th iteration, starting with the first (nu-LPA's MG paper
/// found 8 slightly better than 4).
pub const DEFAULT_PICK_LESS_EVERY: u32 = 8;
/// Default tolerance: stop when at most 5% of vertices changed (GVE-LPA, nu-LPA).
pub const DEFAULT_TOLERANCE: f64 = 0.05;
/// Default iteration cap of the asynchronous schedule (GVE-LPA, nu-LPA).
pub const DEFAULT_ASYNC_MAX_ITERATIONS: u32 = 20;

/// How labels are updated from one iteration to the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Schedule {
    /// Double-buffered: iteration i reads only labels of iteration i - 1. Stops after
    /// `max_iterations` or as soon as an iteration changes no label (runs with label memory
    /// or random numbers always go to `max_iterations`).
    Synchronous,
    /// In place, with affected flags, Pick-Less and a tolerance (ignored, as the early stop
    /// of the synchronous schedule, by runs with label memory or random numbers).
    Asynchronous {
        /// Pick-Less iterations are those with `iteration % pick_less_every == 0`
        /// (0 disables Pick-Less).
        pick_less_every: u32,
        /// Stop after a non-Pick-Less iteration that changed at most this fraction of vertices.
        tolerance: f64,
    },
}

impl Schedule {
    /// The asynchronous schedule with the nu-LPA defaults (rho = 8, tau = 0.05).
    pub fn asynchronous() -> Self {
        Schedule::Asynchronous { pick_less_every: DEFAULT_PICK_LESS_EVERY, tolerance: DEFAULT_TOLERANCE }
    }
}

/// How equal scores are resolved when choosing a vertex's best label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    /// The smallest label wins (deterministic; GLP and LDBC CDLP).
    SmallestLabel,
    /// The label met first along the vertex's sorted adjacency wins, i.e. the label of the
    /// smallest-id neighbour among the tied labels (GVE-LPA).
    FirstSeen,
    /// The label with the smallest pseudo-random key wins, the key a fixed hash of
    /// (vertex, label): random tie-breaking as in Raghavan et al.'s LPA, yet deterministic.
    /// Unlike the other two rules it has no bias toward low ids, so it keeps communities
    /// apart when ids follow them (vertices numbered community by community, as accounts
    /// numbered by sign-up often are); on com-DBLP and the LFR sets it loses 3-6% modularity
    /// against [`TieBreak::FirstSeen`] (measured, see `bench/`).
    Hashed,
}

/// Parameters of a label propagation run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LpConfig {
    /// Update schedule.
    pub schedule: Schedule,
    /// Most iterations to run.
    pub max_iterations: u32,
    /// Rule for equal scores.
    pub ties: TieBreak,
    /// Key of the view's random numbers ([`View::random_u32`], [`View::random_f64`]): the
    /// same seed gives the same draws on every backend and thread count.
    pub seed: u64,
}

impl LpConfig {
    /// Synchronous schedule with an iteration cap; ties to the smallest label; random seed 0.
    pub fn synchronous(max_iterations: u32) -> Self {
        LpConfig { schedule: Schedule::Synchronous, max_iterations, ties: TieBreak::SmallestLabel, seed: 0 }
    }

    /// Asynchronous schedule with the nu-LPA defaults, at most 20 iterations, ties to the
    /// label seen first.
    pub fn asynchronous() -> Self {
        LpConfig {
            schedule: Schedule::asynchronous(),
            max_iterations: DEFAULT_ASYNC_MAX_ITERATIONS,
            ties: TieBreak::FirstSeen,
            seed: 0,
        }
    }

    /// Checks the parameters (a tolerance outside [0, 1] is an error).
    pub fn validate(&self) -> Result<()> {
        if let Schedule::Asynchronous { tolerance, .. } = self.schedule {
            if !(0.0..=1.0).contains(&tolerance) {
                return Err(Error::invalid(format!("tolerance must lie in [0, 1] (got {tolerance})")));
            }
        }
        Ok(())
    }
}

/// What one iteration did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationStats {
    /// Vertices whose label changed.
    pub changed: u64,
    /// Vertices whose best label was computed (all of them in the synchronous schedule, the
    /// affected ones in the asynchronous one).
    pub processed: u64,
    /// Whether the iteration ran in Pick-Less mode.
    pub pick_less: bool,
    /// Wall time of the iteration.
    pub time: Duration,
}

/// Result of a label propagation run.
#[derive(Debug, Clone, PartialEq)]
pub struct LpOutcome {
    /// Final label of each vertex (a dense vertex id, or [`crate::community::UNLABELLED`]).
    pub labels: Vec<Label>,
    /// With label memory ([`LpFeatures::label_memory`]): the labels left in each vertex's
    /// memory at the end, ascending (SLP's overlapping communities); `None` otherwise.
    pub memberships: Option<Vec<Vec<Label>>>,
    /// One entry per iteration run.
    pub iterations: Vec<IterationStats>,
    /// Whether the stop criterion was met before the iteration cap.
    pub converged: bool,
    /// Time from initialised labels to the end of the last iteration (allocation of the
    /// per-thread tables and of the label arrays excluded).
    pub elapsed: Duration,
}

/// What a run takes beyond the graph and its [`LpConfig`], all optional: the per-vertex inputs
/// of the variants that read them, and an observer of the iterations.
#[derive(Clone, Copy, Default)]
pub struct LpInputs<'a> {
    /// Seed label of each vertex ([`View::seed_label`]): a dense vertex id (by convention
    /// the smallest vertex carrying the label) or [`UNLABELLED`] for a vertex without seed.
    pub seeds: Option<&'a [Label]>,
    /// Weight of each vertex ([`View::vertex_weight`]); finite. Without it every vertex
    /// weighs 1.
    pub vertex_weights: Option<&'a [f32]>,
    /// Called by every engine (both CPU schedules, the GPU) as each iteration ends, before
    /// the stop test, with the iteration's index from 0 and the statistics the outcome's
    /// [`LpOutcome::iterations`] records for it: for progress displays. It runs on the
    /// engine's calling thread, between iterations, so its time is outside the iteration's
    /// [`IterationStats::time`] but inside [`LpOutcome::elapsed`]; keep it cheap. An error
    /// it returns stops the run, which returns that error (how a caller interrupts a run: the
    /// Python package's Ctrl-C).
    pub observer: Option<&'a IterationObserver<'a>>,
}

/// The type of [`LpInputs::observer`]: `(iteration index, its statistics)`; an error stops
/// the run.
pub type IterationObserver<'a> = dyn Fn(u32, &IterationStats) -> Result<()> + Sync + 'a;

impl std::fmt::Debug for LpInputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LpInputs")
            .field("seeds", &self.seeds)
            .field("vertex_weights", &self.vertex_weights)
            .field("observer", &self.observer.map(|_| "Fn"))
            .finish()
    }
}

impl LpInputs<'_> {
    /// Reports the end of iteration `iteration` to the observer, if any; its error stops the
    /// run.
    pub(crate) fn observe(&self, iteration: u32, stats: &IterationStats) -> Result<()> {
        match self.observer {
            Some(observer) => observer(iteration, stats),
            None => Ok(()),
        }
    }

    /// Checks the inputs against a graph of `n` vertices and the features that read them.
    pub fn validate(&self, n: usize, features: LpFeatures) -> Result<()> {
        if let Some(seeds) = self.seeds {
            if seeds.len() != n {
                return Err(Error::invalid(format!("{} seed labels given for a graph of {n} vertices", seeds.len())));
            }
            if let Some((v, &l)) = seeds.iter().enumerate().find(|&(_, &l)| l != UNLABELLED && l as usize >= n) {
                return Err(Error::invalid(format!(
                    "seed label {l} of vertex {v} is neither a vertex id below {n} nor UNLABELLED"
                )));
            }
        } else if features.seeds {
            return Err(Error::invalid("the variant reads seed labels, but the run was given none"));
        }
        if let Some(weights) = self.vertex_weights {
            if weights.len() != n {
                return Err(Error::invalid(format!(
                    "{} vertex weights given for a graph of {n} vertices",
                    weights.len()
                )));
            }
            if let Some((v, w)) = weights.iter().enumerate().find(|(_, w)| !w.is_finite()) {
                return Err(Error::invalid(format!("vertex {v} has the non-finite weight {w}")));
            }
        }
        Ok(())
    }
}

/// The features of classic and weighted label propagation: no optional facility beyond the
/// graph's edge weights (which the CPU engine reads from the CSR at no cost).
const PLAIN_FEATURES: LpFeatures = LpFeatures { edge_weights: true, ..LpFeatures::NONE };

/// Runs a compiled variant (one carrying `#[glp::lp_variant]`) with exactly the optional
/// facilities its hooks use.
pub fn run_kernel<V: CompiledVariant>(
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
) -> Result<LpOutcome> {
    run_with(csr, variant, config, inputs, variant.features())
}

/// Runs label propagation of `variant` on `csr` on the current rayon thread pool, with no
/// per-vertex inputs and no optional facility: for variants that override only
/// `load_neighbor`, `label_score` and `update_vertex` and read only labels, degrees and edge
/// weights (classic and weighted LP). Other variants go through [`run_with`].
pub fn run<V: LpVariant>(csr: &Csr, variant: &V, config: &LpConfig) -> Result<LpOutcome> {
    run_with(csr, variant, config, &LpInputs::default(), PLAIN_FEATURES)
}

/// Runs label propagation of `variant` on `csr` on the current rayon thread pool, with the
/// per-vertex `inputs` and the optional facilities `features` names (see [`LpFeatures`]:
/// the compiler derives them from the hooks' bodies; a hand-written variant states them).
///
/// Errors: an invalid configuration, inputs whose length is not the vertex count, seed labels
/// that are not vertex ids, non-finite vertex weights, a variant that reads seeds run
/// without them, or a hook that failed ([`LpVariant::failure`]: the run stops at the end of
/// the iteration in which it happened).
pub fn run_with<V: LpVariant>(
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
    features: LpFeatures,
) -> Result<LpOutcome> {
    run_engine(csr, variant, config, inputs, features, None)
}

/// Runs a compiled variant like [`run_kernel`], with `sketch` in place of the exact MFL search:
/// the CPU twin of the GPU's sketch strategies, equal to the GPU engine's labels under the
/// synchronous schedule. The sketch's own rules resolve equal weights (`config.ties` does not
/// apply).
///
/// Errors: those of [`run_with`], an unsupported slot count, or a variant whose `label_score`
/// is not the weighted count of the label ([`sketch::check_eligible`]).
pub fn run_sketched<V: CompiledVariant>(
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
    sketch: Sketch,
) -> Result<LpOutcome> {
    sketch::check_eligible(variant, sketch)?;
    run_engine(csr, variant, config, inputs, variant.features(), Some(sketch))
}

fn run_engine<V: LpVariant>(
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
    features: LpFeatures,
    sketch: Option<Sketch>,
) -> Result<LpOutcome> {
    config.validate()?;
    inputs.validate(csr.num_vertices(), features)?;
    let facilities = view::Facilities::new(csr, features, config.seed, inputs.seeds, inputs.vertex_weights);
    let mut outcome = match config.schedule {
        Schedule::Synchronous => {
            synchronous::run(csr, variant, config.max_iterations, config.ties, &facilities, sketch, inputs)?
        }
        Schedule::Asynchronous { pick_less_every, tolerance } => {
            asynchronous::run(csr, variant, config, pick_less_every, tolerance, &facilities, sketch, inputs)?
        }
    };
    outcome.memberships = facilities.memberships();
    Ok(outcome)
}

/// Times `f`, for the engines' per-iteration statistics.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}

#[cfg(test)]
mod tests;
