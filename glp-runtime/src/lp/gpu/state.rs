//! What a run keeps on the device besides the graph ([`DeviceState`]): label arrays, the
//! variant's facilities, the degree-class lists, the strategies' tables and the sweep's
//! counters, which it reads back (with the faults hooks recorded).

use super::args::{LpSweepArgs, LpViewArgs};
use super::kernels::LpKernels;
use super::{giants, nu_hash, sketch, sort, ClassPlan};
use crate::community::UNLABELLED;
use crate::device::{DeviceBuffer, DeviceGraph, Gpu};
use crate::error::{Error, Result};
use crate::lp::compiled::CompiledVariant;
use crate::lp::view::LABEL_MEMORY_SLOTS;
use crate::lp::LpInputs;
use glp_codegen::kinds::lp::{decode_loop_fault, default_loop_budget, LpFeatures};
use glp_codegen::lp_kernels::mfl::TABLE_SLOT_BYTES;

// The words of the sweep counters (`glp_lp_sweep.counters`), from the table the kernels'
// `#define`s are generated from.
pub(super) use glp_codegen::kinds::lp::layout::counters::{
    CHANGED, COUNT as COUNTERS, DEFERRED, FAULT_ID, FAULT_METHOD, PROCESSED, SETTLED,
};
use glp_codegen::kinds::lp::layout::VIEW_FAULTS;

/// Which labels the view shows as `label(u)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ViewLabels {
    /// All unlabelled (for `initial_label`).
    Unlabelled,
    /// The pick phase's output.
    Shown,
    /// The previous iteration's labels (no custom pick).
    Previous,
}

/// Everything a run keeps on the device besides the graph.
pub(super) struct DeviceState {
    /// Device addresses of the graph's arrays (the [`DeviceGraph`] the run borrows outlives
    /// the state); `edge_weights` is 0 when the variant does not read them.
    pub(super) offsets: u64,
    pub(super) targets: u64,
    pub(super) edge_weights: u64,
    /// Device addresses of the vertex order's mappings (graph id of each position, position
    /// of each graph id), 0 when the device holds the graph's order.
    pub(super) graph_ids: u64,
    pub(super) positions: u64,
    /// Bytes of the graph's arrays the run reads.
    pub(super) graph_bytes: u64,
    pub(super) vertex_weights: Option<DeviceBuffer<f32>>,
    pub(super) seeds: Option<DeviceBuffer<u32>>,
    pub(super) histogram: Option<DeviceBuffer<u32>>,
    pub(super) memory_labels: Option<DeviceBuffer<u32>>,
    pub(super) memory_weights: Option<DeviceBuffer<f32>>,
    /// Labels of the previous iteration (`next_label`), then the result; the labels updated
    /// in place by the asynchronous schedule.
    pub(super) previous: DeviceBuffer<u32>,
    /// This iteration's output (synchronous schedule).
    pub(super) output: DeviceBuffer<u32>,
    /// The pick phase's labels (only with a custom pick, synchronous).
    pub(super) shown: Option<DeviceBuffer<u32>>,
    /// All unlabelled: the view of `initial_label`.
    pub(super) unlabelled: DeviceBuffer<u32>,
    /// Affected flags (asynchronous schedule).
    pub(super) affected: Option<DeviceBuffer<u8>>,
    /// The sweep's counters, read back once per sweep: [`CHANGED`] labels, [`PROCESSED`]
    /// vertices, the first out-of-range id a hook passed to the view, as ([`FAULT_METHOD`],
    /// [`FAULT_ID`]) (the view's `fault` points at those two words), and the high class's
    /// [`DEFERRED`] and [`SETTLED`] vertices.
    pub(super) counters: DeviceBuffer<u64>,
    pub(super) low: Vec<DeviceBuffer<u32>>,
    pub(super) mid: DeviceBuffer<u32>,
    pub(super) high: DeviceBuffer<u32>,
    pub(super) hubs: DeviceBuffer<u32>,
    /// Both, by id: what asynchronous sweeps give the hub kernel (empty when synchronous).
    pub(super) high_and_hubs: DeviceBuffer<u32>,
    /// High vertices the sketch did not settle this sweep (their count: `counters[DEFERRED]`).
    pub(super) deferred: DeviceBuffer<u32>,
    /// The exact path's pool: `exact_blocks` regions of `region_capacity` slots.
    pub(super) pool_keys: DeviceBuffer<u32>,
    pub(super) pool_sums: DeviceBuffer<f64>,
    pub(super) exact_blocks: u64,
    pub(super) region_capacity: u64,
    /// The giant class's batches and pool.
    pub(super) giants: giants::GiantState,
    pub(super) global: DeviceBuffer<u32>,
    pub(super) global_regions: DeviceBuffer<u64>,
    pub(super) global_keys: DeviceBuffer<u32>,
    pub(super) global_sums: DeviceBuffer<f64>,
    /// G-Sort's buffers (only with that strategy).
    pub(super) sort: Option<sort::SortState>,
    /// The sketch strategies' class lists, nu-LPA's tables (only with those strategies).
    pub(super) sketch: Option<sketch::SketchState>,
    pub(super) nu_hash: Option<nu_hash::NuHashState>,
    pub(super) num_vertices: u32,
    pub(super) num_edges: u64,
    /// Loop iterations one hook call may run ([`CompiledVariant::loop_budget`]).
    pub(super) loop_budget: u64,
    pub(super) peak_bytes: u64,
    pub(super) table_bytes: u64,
}

impl DeviceState {
    pub(super) fn upload(
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
        let giants = giants::GiantState::upload(gpu, plan, |keys, value| kernels.fill(gpu, keys, value))?;
        let sort = plan.sort.as_ref().map(|p| sort::SortState::upload(gpu, p, csr.num_edges(), kernels.unit_weights));
        let sort = sort.transpose()?;
        let sketch = plan.sketch.as_ref().map(|p| sketch::SketchState::upload(gpu, p)).transpose()?;
        let nu_hash = if plan.nu_hash { Some(nu_hash::NuHashState::upload(gpu, n, csr.num_edges())?) } else { None };
        // Slots, not buffer sizes: an unused table is a one-element placeholder.
        let table_bytes = (exact_blocks * region_capacity + plan.global_table_slots()) * TABLE_SLOT_BYTES
            + giants.table_bytes()
            + sort.as_ref().map_or(0, sort::SortState::table_bytes)
            + nu_hash.as_ref().map_or(0, nu_hash::NuHashState::table_bytes);
        let state = DeviceState {
            offsets: graph.offsets_ptr(),
            targets: graph.targets_ptr(),
            edge_weights: if features.edge_weights { graph.weights_ptr() } else { 0 },
            graph_ids: graph.order_ptrs().0,
            positions: graph.order_ptrs().1,
            graph_bytes: {
                let weights = if features.edge_weights { csr.weights().map_or(0, |w| w.len() as u64 * 4) } else { 0 };
                let order = if graph.order().is_some() { n as u64 * 8 } else { 0 };
                (csr.offsets().len() * 8 + csr.targets().len() * 4) as u64 + weights + order
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
            hubs: gpu.upload("degree classes", &plan.hubs)?,
            high_and_hubs: gpu.upload("degree classes", if asynchronous { &plan.high_and_hubs } else { &[] })?,
            deferred: gpu.alloc_zeros("the deferred high vertices", plan.high_deferrable as usize)?,
            pool_keys,
            pool_sums,
            exact_blocks,
            region_capacity,
            giants,
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

    /// Bytes of the graph, inputs, label arrays and facilities (see [`super::GpuStats::base_bytes`]).
    pub(super) fn base_bytes(&self) -> u64 {
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

    pub(super) fn shown_buffer(&self) -> &DeviceBuffer<u32> {
        self.shown.as_ref().unwrap_or(&self.output)
    }

    /// The sweep of this iteration: in place with affected flags when asynchronous.
    pub(super) fn sweep(&self, pick_less: bool) -> LpSweepArgs {
        let (out, affected) = match &self.affected {
            Some(flags) => (self.previous.device_ptr(), flags.device_ptr()),
            None => (self.output.device_ptr(), 0),
        };
        LpSweepArgs {
            out,
            affected,
            counters: self.counters.device_ptr(),
            pick_less: u32::from(pick_less),
            wave_size: 0,
            wave: 0,
            eager_defer: 0,
        }
    }

    /// The sweep's counters read back, or the run's error if a hook passed an out-of-range
    /// id to the view or ran past its loop step budget.
    pub(super) fn read_counters<V: CompiledVariant + ?Sized>(
        &self,
        gpu: &Gpu,
        variant: &V,
        iteration: u32,
    ) -> Result<Vec<u64>> {
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

    pub(super) fn view(&self, seed: u64, iteration: u32, labels: ViewLabels) -> LpViewArgs {
        let ptr = |b: Option<&DeviceBuffer<f32>>| b.map_or(0, DeviceBuffer::device_ptr);
        let (labels, next_labels) = match labels {
            ViewLabels::Unlabelled => (self.unlabelled.device_ptr(), self.unlabelled.device_ptr()),
            ViewLabels::Shown => (self.shown_buffer().device_ptr(), self.previous.device_ptr()),
            ViewLabels::Previous => (self.previous.device_ptr(), self.previous.device_ptr()),
        };
        LpViewArgs {
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
            graph_ids: self.graph_ids,
            positions: self.positions,
            num_vertices: self.num_vertices,
            iteration,
        }
    }
}
