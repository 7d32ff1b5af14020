//! The GPU label propagation engine (GLP and nu-LPA schedules).
//!
//! A run compiles the variant's hooks fused into the MFL kernels
//! ([`glp_codegen::lp_kernels::mfl`], whose docs give the degree classes, their bounds and why),
//! uploads the graph and the facilities the variant's [`LpFeatures`] name, and iterates.
//!
//! Synchronous schedule (GLP, equal to the CPU engine's labels):
//!
//! 1. reset the histogram (when the variant has one);
//! 2. `pick_label` for every vertex into the shown labels (only with a custom pick; otherwise
//!    the shown labels are the previous iteration's);
//! 3. one kernel per degree class of the strategy's [`ClassPlan`]: the best label of each
//!    vertex (highest score, equal scores by the run's [`TieBreak`], smallest label or hashed,
//!    compiled in with the CPU's function), `update_vertex`, the output label and a count of
//!    changed labels;
//!    high-degree vertices the count-min sketch cannot settle are deferred to the exact
//!    kernel, launched after the high class;
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
//! and the run stops after the sweep with [`Error::Program`] naming the method and the id
//! (the kernels record the first such call). Likewise a hook whose loops run past the step
//! budget ([`glp_codegen::loops`]; [`CompiledVariant::loop_budget`], by default
//! [`glp_codegen::kinds::lp::default_loop_budget`] of the graph) returns a neutral value and the run
//! stops with [`CompiledVariant::loop_fault_error`]: the hook, the loop's `file:line:col` (a
//! [`LoopSite`]), the vertex and the iteration.
//!
//! Strategies ([`MflStrategy`], `--mfl`): `glp` (warp path for low degrees, shared-memory
//! tables and the count-min sketch above), `smem` (the same without the warp path, GLP's
//! ablation), `global` (G-Hash: a per-vertex global hash table of twice the degree for every
//! vertex, the paper's baseline) and `sort` (G-Sort, the other baseline: neighbour labels
//! gathered into a per-edge array, segmented-sorted per vertex, runs counted; [`sort`]) and
//! `hash` (nu-LPA's per-vertex global hash tables of `nextPow2(degree) - 1` slots; [`nu_hash`]).
//! All five are exact ([`MflStrategy::ALL`]). The memory-efficient sketches of nu-LPA's sketch
//! paper ([`MflStrategy::SKETCHES`]: `mg2` .. `mg32`, `bm`; [`sketch`]) are not: they pick a
//! heavy hitter, equal to their CPU twins ([`crate::lp::run_sketched`]) under the synchronous
//! schedule, and serve only variants whose score is the label's weighted count.
//!
//! Exactness: labels are scored from f64 sums of the hooks' weights. The low class sums in
//! edge order like the CPU; the table kernels add with atomics in any order, which is exact
//! for integer weights (unit weights, integer edge weights, SLP's `vertex + edge` weights). With
//! fractional weights the GPU may round a sum differently from the CPU and break a near-tie
//! differently. Floating-point hooks are compiled with `--fmad=false`, so each hook computes
//! what the CPU computes; math functions (`ln`, `exp`, ...) come from CUDA's libdevice, whose
//! results may differ from the host's libm in the last bit.

mod nu_hash;
mod plan;
mod sketch;
mod sort;
pub mod waves;

pub use crate::program::LoopSite;
pub use plan::ClassPlan;
pub use sketch::SketchPlan;
pub use sort::SortPlan;

use super::compiled::CompiledVariant;
use super::sketch::{check_eligible, Sketch};
use super::view::{membership_row, LABEL_MEMORY_SLOTS};
use super::{IterationStats, LpConfig, LpInputs, LpOutcome, Schedule, TieBreak};
use crate::community::UNLABELLED;
use crate::device::{cache, DeviceBuffer, DeviceGraph, Gpu, Kernel, KernelArg, KernelArgs, Module, Shape};
use crate::error::{Error, Result};
use crate::graph::{Csr, VertexId};
use glp_codegen::ir::ScalarValue;
use glp_codegen::kinds::lp::{decode_loop_fault, default_loop_budget, LpFeatures};
use glp_codegen::lp_kernels::mfl::{
    self, MflOptions, TieOrder, GLOBAL_THREADS, HIGH_THREADS, LOW_TILES, MID_WARPS_PER_BLOCK, TABLE_SLOT_BYTES,
};
use std::mem::size_of;
use std::ops::Range;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// How the GPU engine finds each vertex's most frequent label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MflStrategy {
    /// GLP: warp-cooperative low-degree path, shared-memory tables for the rest.
    #[default]
    Glp,
    /// GLP without the warp path: a shared-memory table for every vertex.
    Smem,
    /// G-Hash: a global hash table region of twice the degree per vertex.
    Global,
    /// G-Sort: neighbour labels gathered per edge, sorted per vertex, runs counted.
    Sort,
    /// nu-LPA: a global hash table of `nextPow2(degree) - 1` slots per vertex (exact).
    NuHash,
    /// A Misra-Gries or Boyer-Moore sketch per vertex (approximate, O(1) memory per vertex).
    Sketch(Sketch),
}

impl MflStrategy {
    /// Every exact strategy, in ablation order (slowest first): each equals the CPU engine.
    pub const ALL: [MflStrategy; 5] =
        [MflStrategy::Sort, MflStrategy::Global, MflStrategy::NuHash, MflStrategy::Smem, MflStrategy::Glp];

    /// The sketch strategies ([`Sketch::ALL`]), which equal their CPU twins, not the exact
    /// engine.
    pub const SKETCHES: [MflStrategy; 6] = [
        MflStrategy::Sketch(Sketch::ALL[0]),
        MflStrategy::Sketch(Sketch::ALL[1]),
        MflStrategy::Sketch(Sketch::ALL[2]),
        MflStrategy::Sketch(Sketch::ALL[3]),
        MflStrategy::Sketch(Sketch::ALL[4]),
        MflStrategy::Sketch(Sketch::ALL[5]),
    ];

    /// The sketch this strategy runs, if it is one.
    pub fn sketch(self) -> Option<Sketch> {
        match self {
            MflStrategy::Sketch(s) => Some(s),
            _ => None,
        }
    }

    /// The name `--mfl` takes.
    pub fn name(self) -> &'static str {
        match self {
            MflStrategy::Glp => "glp",
            MflStrategy::Smem => "smem",
            MflStrategy::Global => "global",
            MflStrategy::Sort => "sort",
            MflStrategy::NuHash => "hash",
            MflStrategy::Sketch(s) => s.name(),
        }
    }

    /// Whether the strategy runs the asynchronous schedule. G-Sort gathers every neighbour
    /// label before it sorts, so its sweeps cannot see labels changed during the sweep: it is
    /// the synchronous baseline only.
    pub fn supports_asynchronous(self) -> bool {
        self != MflStrategy::Sort
    }
}

impl FromStr for MflStrategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        if s == "mg" {
            return Ok(MflStrategy::Sketch(Sketch::MisraGries { slots: super::sketch::DEFAULT_MG_SLOTS }));
        }
        MflStrategy::ALL.into_iter().chain(MflStrategy::SKETCHES).find(|m| m.name() == s).ok_or_else(|| {
            Error::invalid(format!(
                "unknown MFL strategy `{s}`: expected glp, smem, global, sort, hash, mg2, mg4, mg8, mg16, mg32 \
                 (mg = mg8) or bm"
            ))
        })
    }
}

/// What a GPU run measured besides its [`LpOutcome`].
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

/// Runs `variant` on the GPU `gpu` with `config`'s schedule (see the module docs), uploading
/// `csr` for this run alone; [`run_gpu_on`] runs on a graph uploaded once.
pub fn run_gpu<V: CompiledVariant + ?Sized>(
    gpu: &Gpu,
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
    strategy: MflStrategy,
) -> Result<(LpOutcome, GpuStats)> {
    let graph = DeviceGraph::upload(gpu, csr, variant.features().edge_weights)?;
    run_gpu_on(gpu, &graph, variant, config, inputs, strategy)
}

/// Runs `variant` on `graph`, already on the GPU `gpu` (see the module docs). The graph must
/// carry its edge weights when the variant reads them (they are uploaded with
/// `DeviceGraph::upload(gpu, csr, true)`).
pub fn run_gpu_on<V: CompiledVariant + ?Sized>(
    gpu: &Gpu,
    graph: &DeviceGraph<'_>,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
    strategy: MflStrategy,
) -> Result<(LpOutcome, GpuStats)> {
    let csr = graph.csr();
    config.validate()?;
    let asynchronous = matches!(config.schedule, Schedule::Asynchronous { .. });
    if asynchronous && !strategy.supports_asynchronous() {
        return Err(Error::invalid(format!(
            "the {} MFL strategy runs the synchronous schedule only (it gathers every neighbour label before the \
             sweep): use the synchronous schedule, or another strategy",
            strategy.name()
        )));
    }
    let ties = match config.ties {
        TieBreak::SmallestLabel => TieOrder::SmallestLabel,
        TieBreak::Hashed => TieOrder::Hashed,
        TieBreak::FirstSeen => {
            return Err(Error::invalid(
                "the GPU engine resolves equal scores to the smallest label or by a hash of vertex and label: \
                 the label seen first is an order of one thread's scan",
            ))
        }
    };
    let features = variant.features();
    inputs.validate(csr.num_vertices(), features)?;
    if features.edge_weights && csr.weights().is_some() && !graph.has_weights() {
        return Err(Error::invalid(format!(
            "`{}` reads edge weights, and the graph was uploaded to the GPU without them",
            variant.name()
        )));
    }
    if let Some(sketch) = strategy.sketch() {
        check_eligible(variant, sketch)?;
    }
    u32::try_from(csr.num_vertices())
        .ok()
        .filter(|&n| n < UNLABELLED)
        .ok_or_else(|| Error::TooLarge("the GPU engine takes at most 2^32 - 2 vertices".into()))?;

    let compile_start = Instant::now();
    let kernels = LpKernels::load(gpu, variant, ties)?;
    let compile = compile_start.elapsed();

    let setup_start = Instant::now();
    let plan = ClassPlan::new(csr, strategy);
    let mut state = DeviceState::upload(gpu, &kernels, graph, features, inputs, &plan, asynchronous)?;
    let params = param_block(&variant.param_values());
    let setup = setup_start.elapsed();

    let n = csr.num_vertices();
    let start = Instant::now();
    let view = state.view(config.seed, 0, ViewLabels::Unlabelled);
    kernels.initial(gpu, &params, &view, &state.previous, n as u64)?;
    state.read_counters(gpu, variant, 0)?;
    let may_stop = !features.label_memory && !features.random;
    let wave_size = waves::wave_size(n, asynchronous, features);
    let mut iterations = Vec::new();
    let mut iteration_ms = Vec::new();
    let mut converged = false;
    let mut high_class = HighClassStats::default();
    for iteration in 0..config.max_iterations {
        let began = Instant::now();
        let first = gpu.record()?;
        if let Some(histogram) = state.histogram.as_mut() {
            gpu.zero(histogram)?;
        }
        gpu.zero(&mut state.counters)?;
        let (pick_less, tolerance) = match config.schedule {
            Schedule::Synchronous => (false, 0.0),
            Schedule::Asynchronous { pick_less_every, tolerance } => {
                (pick_less_every != 0 && iteration % pick_less_every == 0, tolerance)
            }
        };
        let view = if asynchronous {
            let view = state.view(config.seed, iteration, ViewLabels::Previous);
            if features.custom_pick_label {
                kernels.pick_in_place(gpu, &params, &view, &state.sweep(false), n as u64)?;
            }
            view
        } else if features.custom_pick_label {
            let view = state.view(config.seed, iteration, ViewLabels::Shown);
            kernels.pick(gpu, &params, &view, state.shown_buffer(), n as u64)?;
            view
        } else {
            state.view(config.seed, iteration, ViewLabels::Previous)
        };
        let sweep = state.sweep(pick_less);
        for wave in 0..waves::waves(n, wave_size) {
            let sweep = SweepArg { wave_size, wave, ..sweep };
            kernels.propagate(gpu, &params, &view, &sweep, &mut state, &plan)?;
        }
        let last = gpu.record()?;
        let counters = state.read_counters(gpu, variant, iteration)?;
        iteration_ms.push(gpu.elapsed_ms(&first, &last)?);
        if !asynchronous {
            std::mem::swap(&mut state.previous, &mut state.output);
        }
        let (changed, processed) = (counters[CHANGED], if asynchronous { counters[PROCESSED] } else { n as u64 });
        high_class.settled_by_sketch += counters[SETTLED];
        high_class.deferred += counters[DEFERRED];
        let stats = IterationStats { changed, processed, pick_less, time: began.elapsed() };
        inputs.observe(iteration, &stats);
        iterations.push(stats);
        let settled = if asynchronous { !pick_less && changed as f64 <= tolerance * n as f64 } else { changed == 0 };
        if may_stop && settled {
            converged = true;
            break;
        }
    }
    gpu.synchronize()?;
    let elapsed = start.elapsed();
    // Buffers hold at least one element, so an empty graph reads back one: keep `n`.
    let mut labels = gpu.download(&state.previous)?;
    labels.truncate(n);
    let memberships = match &state.memory_labels {
        Some(slots) => {
            let slots = gpu.download(slots)?;
            let rows = slots.chunks(LABEL_MEMORY_SLOTS as usize).take(n);
            Some(rows.map(|row| membership_row(row.iter().copied())).collect())
        }
        None => None,
    };
    let stats = GpuStats {
        compile,
        setup,
        iteration_ms,
        device_bytes: state.peak_bytes,
        table_bytes: state.table_bytes,
        base_bytes: state.base_bytes(),
        high_class,
    };
    Ok((LpOutcome { labels, memberships, iterations, converged, elapsed }, stats))
}

/// The C layout of the variant's parameter struct (`glp_lp_params`): fields in order, each
/// aligned to its size, the whole padded to the largest alignment; an empty struct is one
/// byte, as in C++.
pub fn param_block(values: &[ScalarValue]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut align = 1;
    for value in values {
        let size = value.scalar().size();
        align = align.max(size);
        while bytes.len() % size != 0 {
            bytes.push(0);
        }
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    while bytes.len() % align != 0 || bytes.is_empty() {
        bytes.push(0);
    }
    bytes
}

/// The kernel argument mirroring `glp_lp_view` (glp-codegen's `view.cuh`) field for field.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct ViewArg {
    offsets: u64,
    targets: u64,
    edge_weights: u64,
    vertex_weights: u64,
    labels: u64,
    next_labels: u64,
    histogram: u64,
    memory_labels: u64,
    memory_weights: u64,
    seeds: u64,
    fault: u64,
    num_edges: u64,
    random_seed: u64,
    loop_budget: u64,
    num_vertices: u32,
    iteration: u32,
}

// SAFETY: `#[repr(C)]`, fourteen 8-byte fields then two 4-byte ones: the layout of
// `glp_lp_view` (pointers are 8 bytes on every CUDA target), no padding.
unsafe impl KernelArg for ViewArg {}

/// The kernel argument mirroring `glp_lp_sweep` (`mfl_kernels.cu`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct SweepArg {
    out: u64,
    affected: u64,
    counters: u64,
    pick_less: u32,
    wave_size: u32,
    wave: u32,
    padding: u32,
}

// SAFETY: `#[repr(C)]`, three 8-byte fields then four 4-byte ones: the layout of
// `glp_lp_sweep`, no padding.
unsafe impl KernelArg for SweepArg {}

// The words of the sweep counters (`glp_lp_sweep.counters`), from the table the kernels'
// `#define`s are generated from.
use glp_codegen::kinds::lp::layout::counters::{
    CHANGED, COUNT as COUNTERS, DEFERRED, FAULT_ID, FAULT_METHOD, PROCESSED, SETTLED,
};
use glp_codegen::kinds::lp::layout::VIEW_FAULTS;

/// Which labels the view shows as `label(u)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ViewLabels {
    /// All unlabelled (for `initial_label`).
    Unlabelled,
    /// The pick phase's output.
    Shown,
    /// The previous iteration's labels (no custom pick).
    Previous,
}

/// The compiled module and its kernels.
struct LpKernels {
    _module: Module,
    fill: Kernel,
    initial: Kernel,
    pick: Kernel,
    pick_in_place: Kernel,
    low: Vec<Kernel>,
    mid: Kernel,
    high: Kernel,
    high_exact: Kernel,
    global: Kernel,
    sort: sort::SortKernels,
    sketch: sketch::SketchKernels,
    nu_hash: nu_hash::NuHashKernel,
    /// Whether the module was compiled with `GLP_UNIT_WEIGHTS` (no weights to store).
    unit_weights: bool,
    /// The variant's loop step budget, if it sets one ([`CompiledVariant::loop_budget`]).
    loop_budget: Option<u64>,
}

impl LpKernels {
    fn load<V: CompiledVariant + ?Sized>(gpu: &Gpu, variant: &V, ties: TieOrder) -> Result<LpKernels> {
        let unit_weights = variant.unit_neighbor_weight();
        let source = mfl::mfl_kernel_source(variant.device_functions(), MflOptions { unit_weights, ties })
            .map_err(|e| Error::KernelCompile(e.to_string()))?;
        let name = format!("{}_mfl.cu", variant.name());
        let arch = gpu.arch();
        let ptx = cache::ptx_for(&name, &source, &arch)?;
        let module = gpu.load_module(&name, &ptx)?;
        let low = LOW_TILES.iter().map(|t| module.kernel(&format!("glp_lp_low_{t}"))).collect::<Result<_>>()?;
        Ok(LpKernels {
            fill: module.kernel("glp_fill_u32")?,
            initial: module.kernel("glp_lp_initial")?,
            pick: module.kernel("glp_lp_pick")?,
            pick_in_place: module.kernel("glp_lp_pick_in_place")?,
            low,
            mid: module.kernel("glp_lp_mid")?,
            high: module.kernel("glp_lp_high")?,
            high_exact: module.kernel("glp_lp_high_exact")?,
            global: module.kernel("glp_lp_global")?,
            sort: sort::SortKernels::load(&module)?,
            sketch: sketch::SketchKernels::load(&module)?,
            nu_hash: nu_hash::NuHashKernel::load(&module)?,
            unit_weights,
            loop_budget: variant.loop_budget(),
            _module: module,
        })
    }

    /// `glp_fill_u32(words, n, value)`.
    fn fill(&self, gpu: &Gpu, words: &DeviceBuffer<u32>, value: u32) -> Result<()> {
        let n = words.len() as u64;
        let shape = Shape { blocks: n.div_ceil(256).clamp(1, 65_535) as u32, threads: 256 };
        gpu.launch(&self.fill, shape, &KernelArgs::new().buffer(words).value(n).value(value))
    }

    /// `glp_lp_initial(params, view, next_labels)`.
    fn initial(&self, gpu: &Gpu, params: &[u8], view: &ViewArg, out: &DeviceBuffer<u32>, n: u64) -> Result<()> {
        let args = KernelArgs::new().bytes(params).value(*view).buffer(out);
        gpu.launch(&self.initial, Shape::covering(n, 256)?, &args)
    }

    /// `glp_lp_pick(params, view, shown)`.
    fn pick(&self, gpu: &Gpu, params: &[u8], view: &ViewArg, shown: &DeviceBuffer<u32>, n: u64) -> Result<()> {
        let args = KernelArgs::new().bytes(params).value(*view).buffer(shown);
        gpu.launch(&self.pick, Shape::covering(n, 256)?, &args)
    }

    /// `glp_lp_pick_in_place(params, view, sweep)` (asynchronous schedule).
    fn pick_in_place(&self, gpu: &Gpu, params: &[u8], view: &ViewArg, sweep: &SweepArg, n: u64) -> Result<()> {
        let args = KernelArgs::new().bytes(params).value(*view).value(*sweep);
        gpu.launch(&self.pick_in_place, Shape::covering(n, 256)?, &args)
    }

    /// Every class kernel of the plan: one sweep, writing through `sweep` and counting.
    fn propagate(
        &self,
        gpu: &Gpu,
        params: &[u8],
        view: &ViewArg,
        sweep: &SweepArg,
        state: &mut DeviceState,
        plan: &ClassPlan,
    ) -> Result<()> {
        let launch = SweepLaunch { gpu, params, view: *view, sweep: *sweep };
        if let Some(sort) = &state.sort {
            return self.sort.propagate(&launch, sort);
        }
        if let Some(sketch) = &state.sketch {
            return self.sketch.propagate(&launch, sketch);
        }
        if let Some(tables) = &state.nu_hash {
            return self.nu_hash.propagate(&launch, tables);
        }
        // Asynchronous sweeps update labels in place, so the class order matters: hubs first
        // (each decides from many labels), then the vertices that follow them. Leaves first
        // copy their neighbours' initial labels before the hubs settle: on com-DBLP that ends
        // at modularity 0.660 against 0.733 hubs first (H200, classic, ties to the smallest).
        if sweep.affected != 0 {
            self.launch_high(&launch, state, plan)?;
            self.launch_mid(&launch, state, plan)?;
            self.launch_low(&launch, state, plan, true)?;
        } else {
            self.launch_low(&launch, state, plan, false)?;
            self.launch_mid(&launch, state, plan)?;
            self.launch_high(&launch, state, plan)?;
        }
        let part = launch.wave_part(&plan.global);
        if !part.is_empty() {
            let args = launch
                .class_args(&state.global, part.clone())
                .value(state.global_regions.device_ptr() + (part.start * size_of::<u64>()) as u64)
                .buffer(&state.global_keys)
                .buffer(&state.global_sums)
                .value(launch.sweep);
            gpu.launch(&self.global, Shape::covering(part.len() as u64 * 32, GLOBAL_THREADS)?, &args)?;
        }
        Ok(())
    }

    /// The low class's tile kernels (widest tiles first when `reverse`).
    fn launch_low(&self, launch: &SweepLaunch<'_>, state: &DeviceState, plan: &ClassPlan, reverse: bool) -> Result<()> {
        let mut order: Vec<usize> = (0..LOW_TILES.len()).collect();
        if reverse {
            order.reverse();
        }
        for i in order {
            let part = launch.wave_part(&plan.low[i]);
            if !part.is_empty() {
                let shape = Shape::covering(part.len() as u64 * u64::from(LOW_TILES[i]), 256)?;
                let args = launch.class_args(&state.low[i], part).value(launch.sweep);
                launch.gpu.launch(&self.low[i], shape, &args)?;
            }
        }
        Ok(())
    }

    /// The middle class's kernel.
    fn launch_mid(&self, launch: &SweepLaunch<'_>, state: &DeviceState, plan: &ClassPlan) -> Result<()> {
        let part = launch.wave_part(&plan.mid);
        if !part.is_empty() {
            let shape = Shape::covering(part.len() as u64 * 32, MID_WARPS_PER_BLOCK * 32)?;
            let args = launch.class_args(&state.mid, part).value(launch.sweep);
            launch.gpu.launch(&self.mid, shape, &args)?;
        }
        Ok(())
    }

    /// The high class's kernel, then the exact kernel for the vertices it deferred.
    fn launch_high(&self, launch: &SweepLaunch<'_>, state: &mut DeviceState, plan: &ClassPlan) -> Result<()> {
        let gpu = launch.gpu;
        let part = launch.wave_part(&plan.high);
        if !part.is_empty() {
            let shape = Shape { blocks: part.len() as u32, threads: HIGH_THREADS };
            let args = launch.class_args(&state.high, part).buffer(&state.deferred).value(launch.sweep);
            gpu.launch(&self.high, shape, &args)?;
        }
        if state.exact_blocks > 0 {
            let args = launch
                .hook_args()
                .buffer(&state.deferred)
                .buffer(&state.pool_keys)
                .buffer(&state.pool_sums)
                .value(state.region_capacity)
                .value(launch.sweep);
            let shape = Shape { blocks: state.exact_blocks as u32, threads: HIGH_THREADS };
            gpu.launch(&self.high_exact, shape, &args)?;
        }
        Ok(())
    }
}

/// What every class kernel of one sweep is launched with.
struct SweepLaunch<'a> {
    gpu: &'a Gpu,
    params: &'a [u8],
    view: ViewArg,
    sweep: SweepArg,
}

impl SweepLaunch<'_> {
    /// The arguments of a kernel that runs the variant's hooks: `(params, view, ...)`.
    fn hook_args(&self) -> KernelArgs {
        KernelArgs::new().bytes(self.params).value(self.view)
    }

    /// The arguments every class kernel starts with: `(params, view, vertices, count, ...)`,
    /// for the positions `part` of the class list uploaded as `vertices`.
    fn class_args(&self, vertices: &DeviceBuffer<u32>, part: Range<usize>) -> KernelArgs {
        let first = vertices.device_ptr() + (part.start * size_of::<u32>()) as u64;
        self.hook_args().value(first).value(part.len() as u32)
    }

    /// The positions of the id-sorted class list `list` this launch's wave covers.
    fn wave_part(&self, list: &[VertexId]) -> Range<usize> {
        waves::wave_part(list, self.sweep.wave_size, self.sweep.wave)
    }
}

/// Everything a run keeps on the device besides the graph.
struct DeviceState {
    /// Device addresses of the graph's arrays (the [`DeviceGraph`] the run borrows outlives
    /// the state); `edge_weights` is 0 when the variant does not read them.
    offsets: u64,
    targets: u64,
    edge_weights: u64,
    /// Bytes of the graph's arrays the run reads.
    graph_bytes: u64,
    vertex_weights: Option<DeviceBuffer<f32>>,
    seeds: Option<DeviceBuffer<u32>>,
    histogram: Option<DeviceBuffer<u32>>,
    memory_labels: Option<DeviceBuffer<u32>>,
    memory_weights: Option<DeviceBuffer<f32>>,
    /// Labels of the previous iteration (`next_label`), then the result; the labels updated
    /// in place by the asynchronous schedule.
    previous: DeviceBuffer<u32>,
    /// This iteration's output (synchronous schedule).
    output: DeviceBuffer<u32>,
    /// The pick phase's labels (only with a custom pick, synchronous).
    shown: Option<DeviceBuffer<u32>>,
    /// All unlabelled: the view of `initial_label`.
    unlabelled: DeviceBuffer<u32>,
    /// Affected flags (asynchronous schedule).
    affected: Option<DeviceBuffer<u8>>,
    /// The sweep's counters, read back once per sweep: [`CHANGED`] labels, [`PROCESSED`]
    /// vertices, the first out-of-range id a hook passed to the view, as ([`FAULT_METHOD`],
    /// [`FAULT_ID`]) (the view's `fault` points at those two words), and the high class's
    /// [`DEFERRED`] and [`SETTLED`] vertices.
    counters: DeviceBuffer<u64>,
    low: Vec<DeviceBuffer<u32>>,
    mid: DeviceBuffer<u32>,
    high: DeviceBuffer<u32>,
    /// High vertices the sketch did not settle this sweep (their count: `counters[DEFERRED]`).
    deferred: DeviceBuffer<u32>,
    /// The exact path's pool: `exact_blocks` regions of `region_capacity` slots.
    pool_keys: DeviceBuffer<u32>,
    pool_sums: DeviceBuffer<f64>,
    exact_blocks: u64,
    region_capacity: u64,
    global: DeviceBuffer<u32>,
    global_regions: DeviceBuffer<u64>,
    global_keys: DeviceBuffer<u32>,
    global_sums: DeviceBuffer<f64>,
    /// G-Sort's buffers (only with that strategy).
    sort: Option<sort::SortState>,
    /// The sketch strategies' class lists, nu-LPA's tables (only with those strategies).
    sketch: Option<sketch::SketchState>,
    nu_hash: Option<nu_hash::NuHashState>,
    num_vertices: u32,
    num_edges: u64,
    /// Loop iterations one hook call may run ([`CompiledVariant::loop_budget`]).
    loop_budget: u64,
    peak_bytes: u64,
    table_bytes: u64,
}

impl DeviceState {
    fn upload(
        gpu: &Gpu,
        kernels: &LpKernels,
        graph: &DeviceGraph<'_>,
        features: LpFeatures,
        inputs: &LpInputs<'_>,
        plan: &ClassPlan,
        asynchronous: bool,
    ) -> Result<DeviceState> {
        let csr = graph.csr();
        let n = csr.num_vertices();
        let slots = n * LABEL_MEMORY_SLOTS as usize;
        let optional = |on: bool, what: &str, data: Option<&[f32]>| -> Result<Option<DeviceBuffer<f32>>> {
            match data {
                Some(d) if on => gpu.upload(what, d).map(Some),
                _ => Ok(None),
            }
        };
        let unlabelled: DeviceBuffer<u32> = gpu.alloc_zeros("labels", n)?;
        kernels.fill(gpu, &unlabelled, UNLABELLED)?;
        let memory_labels = if features.label_memory {
            let m: DeviceBuffer<u32> = gpu.alloc_zeros("label memory", slots)?;
            kernels.fill(gpu, &m, UNLABELLED)?;
            Some(m)
        } else {
            None
        };
        let table = |what: &str, slots: u64| -> Result<(DeviceBuffer<u32>, DeviceBuffer<f64>)> {
            let keys: DeviceBuffer<u32> = gpu.alloc_zeros(what, slots as usize)?;
            kernels.fill(gpu, &keys, UNLABELLED)?;
            Ok((keys, gpu.alloc_zeros(what, slots as usize)?))
        };
        let (exact_blocks, region_capacity) = plan.exact_pool();
        let (pool_keys, pool_sums) = table("the high class's exact pool", exact_blocks * region_capacity)?;
        let (global_keys, global_sums) = table("the G-Hash tables", plan.global_table_slots())?;
        let sort = plan.sort.as_ref().map(|p| sort::SortState::upload(gpu, p, csr.num_edges(), kernels.unit_weights));
        let sort = sort.transpose()?;
        let sketch = plan.sketch.as_ref().map(|p| sketch::SketchState::upload(gpu, p)).transpose()?;
        let nu_hash = if plan.nu_hash { Some(nu_hash::NuHashState::upload(gpu, n, csr.num_edges())?) } else { None };
        // Slots, not buffer sizes: an unused table is a one-element placeholder.
        let table_bytes = (exact_blocks * region_capacity + plan.global_table_slots()) * TABLE_SLOT_BYTES
            + sort.as_ref().map_or(0, sort::SortState::table_bytes)
            + nu_hash.as_ref().map_or(0, nu_hash::NuHashState::table_bytes);
        let state = DeviceState {
            offsets: graph.offsets_ptr(),
            targets: graph.targets_ptr(),
            edge_weights: if features.edge_weights { graph.weights_ptr() } else { 0 },
            graph_bytes: {
                let weights = if features.edge_weights { csr.weights().map_or(0, |w| w.len() as u64 * 4) } else { 0 };
                (csr.offsets().len() * 8 + csr.targets().len() * 4) as u64 + weights
            },
            vertex_weights: optional(features.vertex_weights, "vertex weights", inputs.vertex_weights)?,
            seeds: match inputs.seeds {
                Some(s) if features.seeds => Some(gpu.upload("seed labels", s)?),
                _ => None,
            },
            histogram: if features.histogram { Some(gpu.alloc_zeros("the label histogram", n)?) } else { None },
            memory_weights: if features.label_memory { Some(gpu.alloc_zeros("label memory", slots)?) } else { None },
            memory_labels,
            previous: gpu.alloc_zeros("labels", n)?,
            output: if asynchronous { gpu.alloc_zeros("labels", 1)? } else { gpu.alloc_zeros("labels", n)? },
            shown: if features.custom_pick_label && !asynchronous {
                Some(gpu.alloc_zeros("shown labels", n)?)
            } else {
                None
            },
            unlabelled,
            affected: if asynchronous { Some(gpu.upload("affected flags", &vec![1u8; n])?) } else { None },
            counters: gpu.alloc_zeros("the sweep counters", COUNTERS)?,
            low: plan.low.iter().map(|l| gpu.upload("degree classes", l)).collect::<Result<_>>()?,
            mid: gpu.upload("degree classes", &plan.mid)?,
            high: gpu.upload("degree classes", &plan.high)?,
            deferred: gpu.alloc_zeros("the deferred high vertices", plan.high_deferrable as usize)?,
            pool_keys,
            pool_sums,
            exact_blocks,
            region_capacity,
            global: gpu.upload("degree classes", &plan.global)?,
            global_regions: gpu.upload("degree classes", &plan.global_regions)?,
            global_keys,
            global_sums,
            sort,
            sketch,
            nu_hash,
            num_vertices: n as u32,
            num_edges: csr.num_edges(),
            loop_budget: kernels.loop_budget.unwrap_or_else(|| default_loop_budget(n as u64, csr.num_edges())),
            peak_bytes: 0,
            table_bytes,
        };
        Ok(DeviceState { peak_bytes: gpu.held_bytes(), ..state })
    }

    /// Bytes of the graph, inputs, label arrays and facilities (see [`GpuStats::base_bytes`]).
    fn base_bytes(&self) -> u64 {
        let f32s = |b: &Option<DeviceBuffer<f32>>| b.as_ref().map_or(0, DeviceBuffer::bytes);
        let u32s = |b: &Option<DeviceBuffer<u32>>| b.as_ref().map_or(0, DeviceBuffer::bytes);
        self.graph_bytes
            + f32s(&self.vertex_weights)
            + u32s(&self.seeds)
            + u32s(&self.histogram)
            + u32s(&self.memory_labels)
            + f32s(&self.memory_weights)
            + self.previous.bytes()
            + self.output.bytes()
            + u32s(&self.shown)
            + self.unlabelled.bytes()
    }

    fn shown_buffer(&self) -> &DeviceBuffer<u32> {
        self.shown.as_ref().unwrap_or(&self.output)
    }

    /// The sweep of this iteration: in place with affected flags when asynchronous.
    fn sweep(&self, pick_less: bool) -> SweepArg {
        let (out, affected) = match &self.affected {
            Some(flags) => (self.previous.device_ptr(), flags.device_ptr()),
            None => (self.output.device_ptr(), 0),
        };
        SweepArg {
            out,
            affected,
            counters: self.counters.device_ptr(),
            pick_less: u32::from(pick_less),
            wave_size: 0,
            wave: 0,
            padding: 0,
        }
    }

    /// The sweep's counters read back, or the run's error if a hook passed an out-of-range
    /// id to the view or ran past its loop step budget.
    fn read_counters<V: CompiledVariant + ?Sized>(&self, gpu: &Gpu, variant: &V, iteration: u32) -> Result<Vec<u64>> {
        let counters = gpu.download(&self.counters)?;
        let (code, id) = (counters[FAULT_METHOD], counters[FAULT_ID]);
        if code == 0 {
            return Ok(counters);
        }
        if let Some(fault) = decode_loop_fault(code, id) {
            return Err(variant.loop_fault_error(fault, iteration, self.loop_budget));
        }
        let variant = variant.name();
        let (method, kind) =
            VIEW_FAULTS.iter().find(|f| f.code == code).map_or(("a view method", "vertex"), |f| (f.method, f.id));
        let (count, noun) =
            if kind == "edge" { (self.num_edges, "stored edges") } else { (u64::from(self.num_vertices), "vertices") };
        Err(Error::Program(format!(
            "a hook of `{variant}` passed {kind} id {id} to {method}() in iteration {iteration} on the GPU, \
             but the graph has {count} {noun}; the run stopped"
        )))
    }

    fn view(&self, seed: u64, iteration: u32, labels: ViewLabels) -> ViewArg {
        let ptr = |b: Option<&DeviceBuffer<f32>>| b.map_or(0, DeviceBuffer::device_ptr);
        let (labels, next_labels) = match labels {
            ViewLabels::Unlabelled => (self.unlabelled.device_ptr(), self.unlabelled.device_ptr()),
            ViewLabels::Shown => (self.shown_buffer().device_ptr(), self.previous.device_ptr()),
            ViewLabels::Previous => (self.previous.device_ptr(), self.previous.device_ptr()),
        };
        ViewArg {
            offsets: self.offsets,
            targets: self.targets,
            edge_weights: self.edge_weights,
            vertex_weights: ptr(self.vertex_weights.as_ref()),
            labels,
            next_labels,
            histogram: self.histogram.as_ref().map_or(0, DeviceBuffer::device_ptr),
            memory_labels: self.memory_labels.as_ref().map_or(0, DeviceBuffer::device_ptr),
            memory_weights: ptr(self.memory_weights.as_ref()),
            seeds: self.seeds.as_ref().map_or(0, DeviceBuffer::device_ptr),
            fault: self.counters.device_ptr() + (FAULT_METHOD * std::mem::size_of::<u64>()) as u64,
            num_edges: self.num_edges,
            random_seed: seed,
            loop_budget: self.loop_budget,
            num_vertices: self.num_vertices,
            iteration,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_blocks_follow_the_c_layout() {
        assert_eq!(param_block(&[]), vec![0]);
        assert_eq!(param_block(&[ScalarValue::F64(1.0)]), 1.0f64.to_le_bytes().to_vec());
        // u32 then f64: 4 bytes of padding before the double; bool then u32: 3 bytes.
        let block = param_block(&[ScalarValue::U32(7), ScalarValue::F64(2.0)]);
        assert_eq!(block.len(), 16);
        assert_eq!(&block[0..4], &7u32.to_le_bytes());
        assert_eq!(&block[8..16], &2.0f64.to_le_bytes());
        let block = param_block(&[ScalarValue::Bool(true), ScalarValue::U32(9), ScalarValue::Bool(false)]);
        assert_eq!(block, vec![1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn strategies_parse_by_name() {
        for m in MflStrategy::ALL {
            assert_eq!(m.name().parse::<MflStrategy>().unwrap(), m);
        }
        for m in MflStrategy::SKETCHES {
            assert_eq!(m.name().parse::<MflStrategy>().unwrap(), m);
        }
        assert_eq!("mg".parse::<MflStrategy>().unwrap(), MflStrategy::Sketch(Sketch::MisraGries { slots: 8 }));
        assert_eq!("hash".parse::<MflStrategy>().unwrap(), MflStrategy::NuHash);
        let err = "mg3".parse::<MflStrategy>().unwrap_err().to_string();
        assert!(err.contains("glp, smem, global, sort, hash, mg2") && err.contains("or bm"), "{err}");
    }
}
