//! Sampling on the GPU: a sampler's hooks fused into CUDA kernels that compute exactly the
//! CPU engine's samples ([`crate::sample::engine`]), draw for draw, for the same seed.
//!
//! # Engines
//!
//! *Sample-parallel* engines, where a thread owns samples:
//! - **Walks** (`walks`): samplers that draw once per transit at every step, from one root
//!   (DeepWalk, node2vec, PPR, weighted walks). Each thread advances
//!   [`WALKERS_PER_THREAD`](glp_codegen::kinds::sample::engine::WALKERS_PER_THREAD) walkers
//!   step by step, so that many independent chains of reads are in flight (a walk step is a
//!   chain: the row's offsets, then a neighbour); the walks are written step-major, which
//!   coalesces the writes and gives node2vec its history (the previous vertex is the row
//!   above). A sampler that declares walks far longer than the ring engine's rows (PPR with
//!   `--walk-length 16777216`, whose walks end after about a hundred steps) runs on that
//!   engine (`ring_walks`): walks resumed launch after launch, keeping their last rows, so
//!   that no memory is sized by the declared length.
//! - **Per sample** (`per_sample`): every other sampler (k-hop, layers, FastGCN, LADIES,
//!   ClusterGCN, multi-root walks, samplers loaded from files): one thread runs the CPU
//!   engine's loop over its sample's steps, its transits, history, combined neighbourhood and
//!   added vertices in a per-sample region of an arena. Regions have a capacity computed from
//!   the schedule's bound; a sample that outgrows one is run again with a larger one.
//!
//! The *transit-parallel* engine (`steps`, kernels in glp-codegen's `transit_kernels.cu`) is
//! NextDoor's: each step, in the same arena, sorts the step's (sample, transit) entries by
//! transit on the device and hands each transit's draws to a kernel class by the threads
//! they need (sub-warp, block, grid), the transit's row cached in shared memory by blocks.
//! Because samples keep their state in the arena between steps, engines mix step by step:
//! `auto` (`choice`) picks one per step from cheap statistics and fuses the run into one
//! launch when every step is sample-parallel.
//!
//! # Errors
//!
//! A hook's result the CPU engine refuses (a vertex that is not a neighbour of its transit,
//! an entry outside the combined neighbourhood, a negative weight) marks the sample on the
//! GPU; the host then replays the first such sample on the CPU, whose error (hook, sample,
//! step, lane) is the one reported. A hook loop that runs past its budget is reported with
//! its source line, as on the reference kernels.
//!
//! # Memory
//!
//! The device memory glp may use ([`GpuSampleConfig`]'s `device_memory`, by default most of
//! what is free) holds the graph and the run's buffers. A graph too large for it keeps its
//! edges in host memory ([`placement`]): kernels read them over the bus, or, for walks, the
//! ring engine (`ring_walks`) copies them to the device partition by partition.
//! Samples run in batches sized to the memory left beside the graph and to at most
//! `batch_samples` samples: outputs larger than the device are produced batch by batch.
//!
//! [`run_streamed`] hands each batch to a sink as soon as it is downloaded: a second thread
//! converts it (the walk engine's step-major matrix becomes rows) and calls the sink while
//! this thread launches the next batch ([`crate::sample::sink`]), so that writing batch `k`
//! overlaps the kernels of batch `k + 1` and the host holds about three batches, not the
//! output. [`run`] gathers the batches into one outcome.
//!
//! Outputs can also stay on the device, for a caller that hands them on without a copy to
//! the host: walks as rows of input ids ([`run_walks_on_device`]), subgraph samples as
//! disjoint subgraphs ([`run_subgraphs_on_device`]).

mod arena;
mod choice;
mod device_ids;
mod device_subgraphs;
mod device_walks;
mod graph;
mod per_sample;
pub mod placement;
mod program;
mod reference;
mod ring_walks;
mod steps;
mod walk_rows;
mod walks;

pub use device_subgraphs::{run_subgraphs_on_device, DeviceSubgraphs};
pub use device_walks::{run_walks_on_device, DeviceWalks};

pub use graph::DeviceSampleGraph;
pub use placement::Placement;
pub use reference::ReferenceKernels;

use self::program::SamplerModule;
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::memory::format_bytes;
use crate::sample::compiled::CompiledSampler;
use crate::sample::outcome::SampleOutcome;
use crate::sample::roots::InitialSamples;
use crate::sample::schedule::Schedule;
use crate::sample::sink::{self, SampleSink, StreamSummary};
use glp_codegen::kinds::sample::engine::engine_kernel_source;
use glp_codegen::kinds::sample::layout::ViewTraits;

/// Which engine samples (`--engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GpuEngine {
    /// Threads own samples (walkers).
    SampleParallel,
    /// Threads own transits (NextDoor's scheduling), every step.
    TransitParallel,
    /// The engine each step's statistics favour.
    #[default]
    Auto,
}

/// Parameters of a GPU sampling run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuSampleConfig {
    /// Key of every random number (as the CPU engine's).
    pub seed: u64,
    pub engine: GpuEngine,
    /// The most device memory glp may use, the graph's included (`None`: nine tenths of what
    /// is free when the run starts, for the run's buffers).
    pub device_memory: Option<u64>,
    /// The most samples per batch (`None`: as many as `device_memory` holds): a streamed
    /// run's host memory is about three batches.
    pub batch_samples: Option<u64>,
    /// The walk engine's edges: `None` picks by the graph and the hooks (packed edges when
    /// they fit and the hooks read no history, narrow where the graph allows); a value forces
    /// it where the graph allows (tests and benchmarks compare them).
    pub walk_packing: Option<WalkPacking>,
}

/// How the walk engine reads a step's edge and its target's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkPacking {
    /// The CSR: the row's offsets, then the edge.
    Plain,
    /// Packed edges of 8 bytes (target, its row's offset and degree in one word), for graphs
    /// whose ids, offsets and degrees fit it; else as `Plain`.
    Narrow,
    /// Packed edges of 16 bytes.
    Wide,
    /// The CSR, every row read from the offsets where a hook reads it: what a graph of 2^32
    /// edges or more takes, where the plain one-walker kernel's walkers cannot keep their rows
    /// in registers as they do otherwise.
    Offsets,
}

/// What a GPU run measured besides its samples.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GpuSampleStats {
    /// The engine that ran: `walks`, `ring-walks` (walks declared too long for a matrix of
    /// every level), `partitioned-walks`, `per-sample`, `warp-per-sample` (one launch per
    /// batch) or `step-by-step` (a launch per step, each on the engine of `step_engines`).
    pub engine: &'static str,
    /// Where the graph's edges were: `device`, `zero-copy` or `partitions`.
    pub placement: &'static str,
    /// Step by step: each step's engine, `sp` or `tp`.
    pub step_engines: Vec<&'static str>,
    /// Time of the sampling kernels alone (CUDA events), in milliseconds; step by step, with
    /// the one host round trip of each transit-parallel step.
    pub kernel_ms: f64,
    /// Step by step: each step's time, summed over batches.
    pub step_ms: Vec<f64>,
    /// Transit-parallel steps: the time of the scheduling index (count, scan, scatter,
    /// classification), summed.
    pub index_ms: f64,
    /// Transit-parallel steps: transits of each kernel class (sub-warp, block, grid), summed
    /// over steps and batches.
    pub transit_classes: [u64; 3],
    /// Batches of samples.
    pub batches: u32,
    /// Samples run again with larger regions (per-sample engine).
    pub rerun_samples: u64,
    /// The most device memory the run's buffers held at once, besides the graph.
    pub device_bytes: u64,
    /// The walk engine's kernel (`glp_sample_walks`, `_single`, `_packed`, `_narrow`).
    pub walk_kernel: &'static str,
    /// Partitioned walks: bytes of partitions copied to the device, passes over the
    /// partitions, and partition visits read over the bus instead.
    pub copied_bytes: u64,
    pub passes: u32,
    pub bus_visits: u64,
}

/// Runs `sampler` from every initial sample of `initial` on `gpu`, over `graph` (uploaded
/// once, reusable across runs): the CPU engine's samples, in sample order.
///
/// Errors: those of the CPU engine (a bad schedule, a hook's bad result: the CPU's own error,
/// replayed there), a loop past its budget, NVRTC's and the GPU's errors, a single sample
/// larger than the device memory allowed.
pub fn run(
    gpu: &Gpu,
    graph: &DeviceSampleGraph<'_>,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    config: &GpuSampleConfig,
) -> Result<(SampleOutcome, GpuSampleStats)> {
    sink::collect(initial, |sink| run_streamed(gpu, graph, sampler, initial, config, sink))
}

/// [`run`] streamed: each batch of samples goes to `sink` as soon as it is complete, in
/// sample order (see the [module docs](self)). Errors: [`run`]'s, and the sink's (which stop
/// the run); a `batch_samples` of 0.
pub fn run_streamed(
    gpu: &Gpu,
    graph: &DeviceSampleGraph<'_>,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    config: &GpuSampleConfig,
    sink: &mut SampleSink<'_>,
) -> Result<(GpuSampleStats, StreamSummary)> {
    with_context(gpu, graph, sampler, initial, config, 0, |context, run| {
        let samples = initial.len() as u64;
        let placement = graph.placement().name();
        let (stats, summary) = if run.fused_walks {
            let convert = |batch| walk_rows::outcome_of(initial, batch);
            let streamed = graph.host_edges().filter(|host| host.plan().staging == 2);
            let resident = graph.host_edges().is_none();
            match streamed {
                Some(host) => sink::pipelined(samples, sink, convert, |handoff| {
                    ring_walks::run(context, initial, Some(host), handoff)
                })?,
                None if resident && walks::declared_far_longer_than_a_ring(context) => {
                    sink::pipelined(samples, sink, convert, |handoff| ring_walks::run(context, initial, None, handoff))?
                }
                None => sink::pipelined(samples, sink, convert, |handoff| walks::run(context, initial, handoff))?,
            }
        } else {
            sink::pipelined(samples, sink, Ok, |handoff| per_sample::run(context, initial, run.plan, handoff))?
        };
        Ok((GpuSampleStats { placement, ..stats }, summary))
    })
}

/// How a run goes, decided with its context.
struct RunKind {
    /// The engine plan for the run's steps.
    plan: choice::Plan,
    /// Whether the walk engines run it (a walk from one root per sample, fused).
    fused_walks: bool,
}

/// Builds the context of a run of `sampler` from `initial` (its schedule, the sampler's
/// module, the memory budget less `reserved` bytes the caller holds, the engine plan) and
/// runs `body` with it.
fn with_context<R>(
    gpu: &Gpu,
    graph: &DeviceSampleGraph<'_>,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    config: &GpuSampleConfig,
    reserved: u64,
    body: impl FnOnce(&Context<'_>, RunKind) -> Result<R>,
) -> Result<R> {
    if config.batch_samples == Some(0) {
        return Err(Error::invalid("a batch of samples must hold at least 1 sample"));
    }
    let schedule = Schedule::of(graph.host(), sampler)?;
    // The module reads the optional arrays (weights, partition table) of this graph's view only.
    let traits = ViewTraits::of(&graph.view());
    let module = SamplerModule::load(gpu, sampler, "engines", |hooks| engine_kernel_source(hooks, traits))?;
    let budget = match config.device_memory {
        Some(bytes) if bytes <= graph.bytes() => {
            return Err(Error::TooLarge(format!(
                "the graph takes {} of the {} of device memory allowed, which leaves nothing for the run: raise \
                 --device-memory, or place the graph with less (--placement partitions or zero-copy)",
                format_bytes(graph.bytes()),
                format_bytes(bytes)
            )))
        }
        Some(bytes) => bytes - graph.bytes(),
        None => graph::default_budget(gpu)?,
    };
    if reserved >= budget {
        return Err(Error::TooLarge(format!(
            "the run's output takes {} of device memory, and {} is left for the run",
            format_bytes(reserved),
            format_bytes(budget)
        )));
    }
    let max_roots = (0..initial.len()).map(|i| initial.roots(i).len() as u64).max().unwrap_or(1);
    let stats = choice::GraphStats {
        active_vertices: graph.active_vertices(),
        mean_degree: graph.host().csr().num_edges() as f64 / graph.active_vertices().max(1) as f64,
        fits_l2: graph.placement() == Placement::Device && graph.bytes() <= gpu.info().l2_bytes,
    };
    let plan = choice::plan(config.engine, &schedule, initial.len() as u64, max_roots, stats);
    let fused_walks = schedule.is_walk() && max_roots == 1 && plan == choice::Plan::Fused;
    let context = Context {
        gpu,
        graph,
        sampler,
        schedule: &schedule,
        module: &module,
        seed: config.seed,
        budget: budget - reserved,
        batch_samples: config.batch_samples.unwrap_or(u64::MAX),
        walk_packing: config.walk_packing,
    };
    body(&context, RunKind { plan, fused_walks })
}

/// What an engine's run reads.
#[derive(Clone, Copy)]
struct Context<'r> {
    gpu: &'r Gpu,
    graph: &'r DeviceSampleGraph<'r>,
    sampler: &'r dyn CompiledSampler,
    schedule: &'r Schedule,
    module: &'r SamplerModule,
    seed: u64,
    /// Device memory the run's buffers may take.
    budget: u64,
    /// The most samples per batch.
    batch_samples: u64,
    /// The walk engine's edges (`None`: its choice).
    walk_packing: Option<WalkPacking>,
}

impl Context<'_> {
    /// The graph's view for the sampler's hooks (its loop step budget).
    fn view(&self) -> glp_codegen::kinds::sample::layout::SampleViewArgs {
        self.module.budgeted(self.graph.view())
    }
}

/// The replayed error of `sample`, which the GPU marked as failed: the CPU engine's error for
/// it, or (should the CPU complete it) an error saying the engines disagree.
fn replayed_failure(context: &Context<'_>, initial: &InitialSamples, sample: u64) -> Error {
    let Ok(index) = u32::try_from(sample) else {
        return Error::Gpu(format!("the GPU marked sample {sample}, which does not exist, as failed"));
    };
    let roots = initial.roots(index as usize);
    match crate::sample::engine::replay_sample(
        context.graph.host(),
        context.sampler,
        context.schedule,
        context.seed,
        index,
        roots,
    ) {
        Err(error) => error,
        Ok(_) => Error::Gpu(format!(
            "sampler `{}`: the GPU refused a hook's result for sample {sample}, which the CPU engine accepts \
             (the hooks' CUDA and Rust disagree)",
            context.schedule.name
        )),
    }
}
