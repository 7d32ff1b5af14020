//! The compiled MFL module and its kernels ([`LpKernels`]), and what one sweep's class
//! kernels are launched with ([`SweepLaunch`]).

use super::args::{LpSweepArgs, LpViewArgs};
use super::state::DeviceState;
use super::{giants, nu_hash, sketch, sort, waves, ClassPlan};
use crate::device::{cache, DeviceBuffer, Gpu, Kernel, KernelArgs, Module, Shape};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::lp::compiled::CompiledVariant;
use glp_codegen::lp_kernels::mfl::{
    self, MflOptions, TieOrder, GLOBAL_THREADS, HIGH_THREADS, LOW_TILES, MID_WARPS_PER_BLOCK,
};
use std::mem::size_of;
use std::ops::Range;

/// The compiled module and its kernels.
pub(super) struct LpKernels {
    pub(super) _module: Module,
    pub(super) fill: Kernel,
    pub(super) initial: Kernel,
    pub(super) pick: Kernel,
    pub(super) pick_in_place: Kernel,
    pub(super) low: Vec<Kernel>,
    pub(super) mid: Kernel,
    pub(super) high: Kernel,
    pub(super) hub: Kernel,
    pub(super) high_exact: Kernel,
    pub(super) giants: giants::GiantKernels,
    pub(super) global: Kernel,
    /// The first synchronous sweep from labels all distinct: the neighbours' minimum, then
    /// every vertex finished.
    pub(super) distinct_min: Kernel,
    pub(super) distinct_finish: Kernel,
    pub(super) sort: sort::SortKernels,
    pub(super) sketch: sketch::SketchKernels,
    pub(super) nu_hash: nu_hash::NuHashKernel,
    /// Whether the module was compiled with `GLP_UNIT_WEIGHTS` (no weights to store).
    pub(super) unit_weights: bool,
    /// The variant's loop step budget, if it sets one ([`CompiledVariant::loop_budget`]).
    pub(super) loop_budget: Option<u64>,
}

impl LpKernels {
    pub(super) fn load<V: CompiledVariant + ?Sized>(gpu: &Gpu, variant: &V, ties: TieOrder) -> Result<LpKernels> {
        let unit_weights = variant.unit_neighbor_weight();
        let options = MflOptions { unit_weights, ties, default_load_neighbor: variant.default_load_neighbor() };
        let source = mfl::mfl_kernel_source(variant.device_functions(), options)
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
            hub: module.kernel("glp_lp_hub")?,
            high_exact: module.kernel("glp_lp_high_exact")?,
            giants: giants::GiantKernels::load(&module)?,
            global: module.kernel("glp_lp_global")?,
            distinct_min: module.kernel(mfl::DISTINCT_KERNEL_NAMES[0])?,
            distinct_finish: module.kernel(mfl::DISTINCT_KERNEL_NAMES[1])?,
            sort: sort::SortKernels::load(&module)?,
            sketch: sketch::SketchKernels::load(&module)?,
            nu_hash: nu_hash::NuHashKernel::load(&module)?,
            unit_weights,
            loop_budget: variant.loop_budget(),
            _module: module,
        })
    }

    /// `glp_fill_u32(words, n, value)`.
    pub(super) fn fill(&self, gpu: &Gpu, words: &DeviceBuffer<u32>, value: u32) -> Result<()> {
        let n = words.len() as u64;
        let shape = Shape { blocks: n.div_ceil(256).clamp(1, 65_535) as u32, threads: 256 };
        gpu.launch(&self.fill, shape, &KernelArgs::new().buffer(words).value(n).value(value))
    }

    /// `glp_lp_initial(params, view, next_labels)`.
    pub(super) fn initial(
        &self,
        gpu: &Gpu,
        params: &[u8],
        view: &LpViewArgs,
        out: &DeviceBuffer<u32>,
        n: u64,
    ) -> Result<()> {
        let args = KernelArgs::new().bytes(params).value(*view).buffer(out);
        gpu.launch(&self.initial, Shape::covering(n, 256)?, &args)
    }

    /// `glp_lp_pick(params, view, shown)`.
    pub(super) fn pick(
        &self,
        gpu: &Gpu,
        params: &[u8],
        view: &LpViewArgs,
        shown: &DeviceBuffer<u32>,
        n: u64,
    ) -> Result<()> {
        let args = KernelArgs::new().bytes(params).value(*view).buffer(shown);
        gpu.launch(&self.pick, Shape::covering(n, 256)?, &args)
    }

    /// `glp_lp_pick_in_place(params, view, sweep)` (asynchronous schedule).
    pub(super) fn pick_in_place(
        &self,
        gpu: &Gpu,
        params: &[u8],
        view: &LpViewArgs,
        sweep: &LpSweepArgs,
        n: u64,
    ) -> Result<()> {
        let args = KernelArgs::new().bytes(params).value(*view).value(*sweep);
        gpu.launch(&self.pick_in_place, Shape::covering(n, 256)?, &args)
    }

    /// The first synchronous sweep from labels all distinct, for variants whose
    /// [`CompiledVariant::distinct_first_sweep`] holds, with ties to the smallest label, on a
    /// graph without repeated targets: `out` (the sweep's) filled with the neutral label, the
    /// neighbours' minimum taken into it edge by edge, then every vertex finished and counted.
    pub(super) fn distinct_sweep(
        &self,
        gpu: &Gpu,
        params: &[u8],
        view: &LpViewArgs,
        sweep: &LpSweepArgs,
        out: &DeviceBuffer<u32>,
    ) -> Result<()> {
        self.fill(gpu, out, crate::community::UNLABELLED)?;
        let edges = view.num_edges;
        if edges > 0 {
            let threads = glp_codegen::lp_kernels::sort::SORT_THREADS;
            let args = KernelArgs::new().bytes(params).value(*view).value(edges).value(*sweep);
            gpu.launch(&self.distinct_min, Shape::covering(edges, threads)?, &args)?;
        }
        let vertices = u64::from(view.num_vertices);
        let args = KernelArgs::new().bytes(params).value(*view).value(*sweep);
        gpu.launch(&self.distinct_finish, Shape::covering(vertices, 256)?, &args)
    }

    /// Every class kernel of the plan: one sweep, writing through `sweep` and counting.
    pub(super) fn propagate(
        &self,
        gpu: &Gpu,
        params: &[u8],
        view: &LpViewArgs,
        sweep: &LpSweepArgs,
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
            self.giants.propagate(&launch, &state.giants)?;
            self.launch_high(&launch, state, plan)?;
            self.launch_mid(&launch, state, plan)?;
            self.launch_low(&launch, state, plan, true)?;
        } else {
            self.launch_low(&launch, state, plan, false)?;
            self.launch_mid(&launch, state, plan)?;
            self.launch_high(&launch, state, plan)?;
            self.giants.propagate(&launch, &state.giants)?;
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
    pub(super) fn launch_low(
        &self,
        launch: &SweepLaunch<'_>,
        state: &DeviceState,
        plan: &ClassPlan,
        reverse: bool,
    ) -> Result<()> {
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
    pub(super) fn launch_mid(&self, launch: &SweepLaunch<'_>, state: &DeviceState, plan: &ClassPlan) -> Result<()> {
        let part = launch.wave_part(&plan.mid);
        if !part.is_empty() {
            let shape = Shape::covering(part.len() as u64 * 32, MID_WARPS_PER_BLOCK * 32)?;
            let args = launch.class_args(&state.mid, part).value(launch.sweep);
            launch.gpu.launch(&self.mid, shape, &args)?;
        }
        Ok(())
    }

    /// The high class's kernels (hubs, with the sketch, first), then the exact kernel for the
    /// hubs they deferred. Asynchronous sweeps give the whole high class to the hub kernel in
    /// one launch, by id, as before the hubs had a kernel of their own: finished before the
    /// others started, hubs pulled planted-100k's quality with hashed ties from NMI 0.94-0.99
    /// to 0.72-0.73 in two runs of three (H200; the order of an asynchronous sweep is its
    /// result).
    pub(super) fn launch_high(
        &self,
        launch: &SweepLaunch<'_>,
        state: &mut DeviceState,
        plan: &ClassPlan,
    ) -> Result<()> {
        let gpu = launch.gpu;
        let asynchronous = launch.sweep.affected != 0;
        let (hubs, list) = match asynchronous {
            true => (&state.high_and_hubs, &plan.high_and_hubs),
            false => (&state.hubs, &plan.hubs),
        };
        let part = launch.wave_part(list);
        if !part.is_empty() {
            let shape = Shape { blocks: part.len() as u32, threads: HIGH_THREADS };
            let args = launch.class_args(hubs, part).buffer(&state.deferred).value(launch.sweep);
            gpu.launch(&self.hub, shape, &args)?;
        }
        let part = launch.wave_part(&plan.high);
        if !asynchronous && !part.is_empty() {
            let shape = Shape { blocks: part.len() as u32, threads: HIGH_THREADS };
            gpu.launch(&self.high, shape, &launch.class_args(&state.high, part).value(launch.sweep))?;
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
pub(super) struct SweepLaunch<'a> {
    pub(super) gpu: &'a Gpu,
    pub(super) params: &'a [u8],
    pub(super) view: LpViewArgs,
    pub(super) sweep: LpSweepArgs,
}

impl SweepLaunch<'_> {
    /// The arguments of a kernel that runs the variant's hooks: `(params, view, ...)`.
    pub(super) fn hook_args(&self) -> KernelArgs {
        KernelArgs::new().bytes(self.params).value(self.view)
    }

    /// The arguments every class kernel starts with: `(params, view, vertices, count, ...)`,
    /// for the positions `part` of the class list uploaded as `vertices`.
    pub(super) fn class_args(&self, vertices: &DeviceBuffer<u32>, part: Range<usize>) -> KernelArgs {
        let first = vertices.device_ptr() + (part.start * size_of::<u32>()) as u64;
        self.hook_args().value(first).value(part.len() as u32)
    }

    /// The positions of the id-sorted class list `list` this launch's wave covers.
    pub(super) fn wave_part(&self, list: &[VertexId]) -> Range<usize> {
        waves::wave_part(list, self.sweep.wave_size, self.sweep.wave)
    }
}
