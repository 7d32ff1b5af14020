//! The GPU label propagation engine (GLP and nu-LPA schedules).
//!
//! A run compiles the variant's hooks fused into the MFL kernels
//! ([`glp_codegen::lp_kernels::mfl`], whose docs give the degree classes, their bounds and why),
//! uploads the graph and the facilities the variant's [`LpFeatures`](super::LpFeatures) name, and iterates.
//!
//! Synchronous schedule (GLP, equal to the CPU engine's labels):
//!
//! 1. reset the histogram (when the variant has one);
//! 2. `pick_label` for every vertex into the shown labels (only with a custom pick; otherwise
//!    the shown labels are the previous iteration's);
//! 3. one kernel per degree class of the strategy's [`ClassPlan`]: the best label of each
//!    vertex (highest score, equal scores by the run's [`TieBreak`](super::TieBreak), smallest label or hashed,
//!    compiled in with the CPU's function), `update_vertex`, the output label and a count of
//!    changed labels;
//!    high-degree vertices the count-min sketch cannot settle are deferred to the exact
//!    kernel, launched after the high class (in the first sweep every hub is deferred at
//!    once, `eager_defer`: from labels all distinct none fits its table, and counting it
//!    with the sketch first doubled its cost);
//!    the first sweep from labels all distinct is a minimum instead, when the variant's
//!    [`distinct_first_sweep`](super::CompiledVariant::distinct_first_sweep) holds, ties go to
//!    the smallest label and no row lists a target twice: every label then has frequency 1
//!    and the same score, so the smallest neighbour label wins; one read per edge and an
//!    atomic minimum per row and warp replace the counting (graph500-26 on an H200: the
//!    counted first sweep took 166 ms of a 536 ms run);
//! 4. swap previous and output; stop when nothing changed (unless label memory or random
//!    numbers make the labels only part of the state, as on the CPU) or at the cap.
//!
//! Asynchronous schedule (nu-LPA, the CPU's `asynchronous` semantics): one label array
//! updated in place; a per-vertex affected flag (all set at the start) selects the vertices a
//! sweep processes, each clearing its flag and, when it moves, setting its neighbours';
//! `pick_label` (if custom) runs in place before the sweep, marking the neighbours of the
//! vertices it changes; Pick-Less sweeps (`iteration % pick_less_every == 0`) let a vertex
//! move only to a smaller label; the run stops after a non-Pick-Less sweep that changed at
//! most `tolerance * n` labels. A vertex that moves takes its count in the label histogram
//! (when the variant has one) from its old label to its new one, and sweeps of variants with
//! the histogram run in [`waves::HISTOGRAM_WAVES`] waves of consecutive vertex ids, so that
//! later vertices see earlier moves as on the CPU ([`waves`] says why and what was measured).
//! Which neighbour labels a vertex sees depends on the order the
//! GPU runs the sweep in, so results are not reproducible bit for bit (as on the CPU with
//! several threads); the tests compare quality, not labels.
//!
//! Hooks that pass an out-of-range vertex or edge id to a view method get a neutral value,
//! and the run stops after the sweep with [`Error::Program`](crate::Error::Program) naming the method and the id
//! (the kernels record the first such call). Likewise a hook whose loops run past the step
//! budget ([`glp_codegen::loops`]; [`CompiledVariant::loop_budget`](super::CompiledVariant::loop_budget), by default
//! [`glp_codegen::kinds::lp::default_loop_budget`] of the graph) returns a neutral value and the run
//! stops with [`CompiledVariant::loop_fault_error`](super::CompiledVariant::loop_fault_error): the hook, the loop's `file:line:col` (a
//! [`LoopSite`]), the vertex and the iteration.
//!
//! Strategies ([`MflStrategy`], `--mfl`): `glp` (warp path for low degrees, shared-memory
//! tables and the count-min sketch above), `smem` (the same without the warp path, GLP's
//! ablation), `global` (G-Hash: a per-vertex global hash table of twice the degree for every
//! vertex, the paper's baseline) and `sort` (G-Sort, the other baseline: neighbour labels
//! gathered into a per-edge array, segmented-sorted per vertex, runs counted; `sort`) and
//! `hash` (nu-LPA's per-vertex global hash tables of `nextPow2(degree) - 1` slots; `nu_hash`).
//! All five are exact ([`MflStrategy::ALL`]). The memory-efficient sketches of nu-LPA's sketch
//! paper ([`MflStrategy::SKETCHES`]: `mg2` .. `mg32`, `bm`; `sketch`) are not: they pick a
//! heavy hitter, equal to their CPU twins ([`crate::lp::run_sketched`]) under the synchronous
//! schedule, and serve only variants whose score is the label's weighted count.
//!
//! Vertex order ([`VertexOrder`], [`places_by_degree`]): the device may hold the vertices by
//! degree, highest first ([`DeviceGraph::upload_by_degree`](crate::device::DeviceGraph::upload_by_degree)),
//! so that the labels most edges read (the hubs') share cache lines and stay in L2: graph500-26,
//! 10 sweeps on an H200, 787 ms in the graph's order, 473 ms by degree. The kernels index label
//! arrays, offsets and flags by device position; labels themselves, the hooks' vertex
//! arguments, the tie keys, seeds, vertex weights, label memories and the histogram stay in
//! the graph's ids (the view's `label`, `next_label` and `degree` map an id to its position),
//! and the labels are put back in graph order on download: a run gives the same labels in
//! either order. A variant whose `load_neighbor` is the default reads a neighbour's label at
//! its position directly; another hook gets the graph's ids of both ends, two reads more per
//! edge, so `auto` keeps the graph's order for it (and for the sketch strategies, whose
//! summaries depend on the order of a row's labels and which refuse `degree`) and orders by
//! degree when the labels exceed the L2 cache.
//!
//! Exactness: labels are scored from f64 sums of the hooks' weights. The low class sums in
//! edge order like the CPU; the table kernels add with atomics in any order, which is exact
//! for integer weights (unit weights, integer edge weights, SLP's `vertex + edge` weights). With
//! fractional weights the GPU may round a sum differently from the CPU and break a near-tie
//! differently. Floating-point hooks are compiled with `--fmad=false`, so each hook computes
//! what the CPU computes; math functions (`ln`, `exp`, ...) come from CUDA's libdevice, whose
//! results may differ from the host's libm in the last bit.

//!
//! # Modules
//!
//! `engine`'s [`run_gpu`] drives a run (and [`places_by_degree`] picks its vertex order): `strategy` names how labels are counted
//! ([`MflStrategy`]), `plan` sorts the vertices into degree classes ([`ClassPlan`]), `kernels`
//! loads the compiled module and launches a sweep's kernels, `state` holds what a run keeps
//! on the device and reads the sweep's counters back, `args` lays out the kernel arguments
//! (the parameter block, the view, the sweep and a batch of giants); `giants` is the class of
//! vertices counted by many blocks each; `sort`, `sketch` and `nu_hash` are the
//! strategies with buffers and kernels of their own, [`waves`] the asynchronous sweep's waves.

mod args;
mod engine;
mod giants;
mod kernels;
mod nu_hash;
mod plan;
mod sketch;
mod sort;
mod state;
mod strategy;
pub mod waves;

pub use crate::device::VertexOrder;
pub use crate::program::LoopSite;
pub use engine::{places_by_degree, run_gpu, run_gpu_on};
pub use plan::ClassPlan;
pub use sketch::SketchPlan;
pub use sort::SortPlan;
pub use strategy::MflStrategy;

use kernels::SweepLaunch;
use std::time::Duration;

/// What a GPU run measured besides its [`LpOutcome`](super::LpOutcome).
#[derive(Debug, Clone, PartialEq)]
pub struct GpuStats {
    /// Time to obtain the kernels (NVRTC or cache) and load the module.
    pub compile: Duration,
    /// Time to plan the classes and upload graph and facilities.
    pub setup: Duration,
    /// Device time of each iteration (CUDA events), milliseconds.
    pub iteration_ms: Vec<f64>,
    /// Bytes glp held on the device during the iterations.
    pub device_bytes: u64,
    /// Of those, the bytes of the strategy's hash tables, or of G-Sort's per-edge label array
    /// and merge buffer (beyond graph, labels and facilities).
    pub table_bytes: u64,
    /// Of those, the bytes of the graph, the inputs, the label arrays and the variant's
    /// facilities: `device_bytes - base_bytes` is what the strategy and schedule add (tables,
    /// degree-class lists, affected flags, counters).
    pub base_bytes: u64,
    /// How the high class's vertices that met more labels than the shared table holds were
    /// decided (strategies glp and smem), summed over the iterations.
    pub high_class: HighClassStats,
    /// Whether the first sweep was the minimum of the neighbours' labels (labels all
    /// distinct: see the module docs) rather than counted.
    pub first_sweep_minimum: bool,
}

/// Vertex visits of the high class whose labels overflowed the shared table (see
/// [`glp_codegen::lp_kernels::mfl`]), summed over iterations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HighClassStats {
    /// Decided in shared memory: the count-min sketch proved the table's best label.
    pub settled_by_sketch: u64,
    /// Deferred to the exact kernel and its global pool.
    pub deferred: u64,
}
