//! Runs a batch step by step in its arena, each step on the engine chosen for it
//! ([`StepEngine`]): the sample-parallel step (a warp per sample, `glp_sample_step_warp`) or
//! the transit-parallel step (NextDoor's scheduling: the kernels of `transit_kernels.cu`,
//! whose header comment gives the six phases). Between steps the samples' state stays in the
//! arena, so engines mix freely; every draw is keyed by (seed, sample, step, lane), so they
//! give the same samples.
//!
//! A transit-parallel step makes one host round trip: after the scheduling index is built,
//! the host reads its counters (entries, chunks) to size the draw launches.

use super::arena::Arena;
use super::per_sample::Capacity;
use super::{Context, GpuSampleStats};
use crate::device::{DeviceBuffer, KernelArg, KernelArgs, Shape};
use crate::error::{Error, Result};
use glp_codegen::kinds::sample::engine::{
    TransitStepArgs, PER_SAMPLE_WARP_THREADS, TRANSIT_BLOCK_THREADS, TRANSIT_COUNTERS, TRANSIT_SCAN_ITEMS,
    TRANSIT_SCAN_THREADS,
};
use glp_codegen::kinds::sample::layout::SampleViewArgs;

// SAFETY: `TransitStepArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernel's `glp_transit_step` from the same table, checking at
// compile time that it has no padding and that every field is as wide as its C type.
unsafe impl KernelArg for TransitStepArgs {}

/// The engine of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StepEngine {
    /// A warp per sample.
    Sample,
    /// Scheduled by transit.
    Transit,
}

impl StepEngine {
    /// Its name in statistics and benchmarks.
    pub fn name(self) -> &'static str {
        match self {
            StepEngine::Sample => "sp",
            StepEngine::Transit => "tp",
        }
    }
}

/// Threads per block of the per-vertex kernels (the scan's additions, the classification) and
/// of the sub-warp draws (a thread per entry).
const VERTEX_THREADS: u32 = 256;

/// The transit-parallel step's buffers for a batch.
struct TransitBuffers {
    counts: DeviceBuffer<u32>,
    tile_sums: DeviceBuffer<u32>,
    narrow: Vec<DeviceBuffer<u32>>,
    entry_slots: DeviceBuffer<u64>,
    step_lanes: DeviceBuffer<u64>,
    counters: DeviceBuffer<u32>,
    args: TransitStepArgs,
}

/// Values per tile of the scan.
const SCAN_TILE: u64 = (TRANSIT_SCAN_THREADS * TRANSIT_SCAN_ITEMS) as u64;

impl TransitBuffers {
    /// Device bytes per sample at `capacity`: per history entry, an entry and a chunk; per
    /// output entry, a dense slot and its position; the step's lanes.
    pub fn bytes_per_sample(capacity: Capacity) -> Option<u64> {
        capacity.history.checked_mul(4 * 4 + 8 + 4 * 3)?.checked_add(capacity.out.checked_mul(8)?)?.checked_add(8)
    }

    /// Device bytes that do not depend on the batch: the per-vertex counts and the scan's
    /// tile totals.
    pub fn fixed_bytes(num_vertices: u64) -> u64 {
        num_vertices * 4 + num_vertices.div_ceil(SCAN_TILE) * 4 + TRANSIT_COUNTERS.len() as u64 * 4
    }

    fn alloc(context: &Context<'_>, samples: u64, capacity: Capacity) -> Result<TransitBuffers> {
        let gpu = context.gpu;
        let num_vertices = context.graph.host().csr().num_vertices() as u64;
        let entries = samples * capacity.history;
        let slots = samples * capacity.out;
        if entries > u64::from(u32::MAX) {
            return Err(Error::TooLarge(format!(
                "a transit-parallel step of {entries} entries: at most {} per batch",
                u32::MAX
            )));
        }
        let alloc = |what: &str, len: u64| gpu.alloc_zeros::<u32>(what, len as usize);
        let counts = alloc("entries per transit", num_vertices)?;
        let tile_sums = alloc("scan tile totals", num_vertices.div_ceil(SCAN_TILE))?;
        let narrow = vec![
            alloc("entry samples", entries)?,
            alloc("entry positions", entries)?,
            alloc("entry transits", entries)?,
            alloc("dense draws", slots)?,
            alloc("dense draws' positions", slots)?,
            alloc("chunk transits", entries)?,
            alloc("chunk first entries", entries)?,
            alloc("chunk entry counts", entries)?,
        ];
        let entry_slots = gpu.alloc_zeros::<u64>("entry slots", entries as usize)?;
        let step_lanes = gpu.alloc_zeros::<u64>("step lanes", samples as usize)?;
        let counters = alloc("transit step counters", TRANSIT_COUNTERS.len() as u64)?;
        let args = TransitStepArgs {
            counts: counts.device_ptr(),
            tile_sums: tile_sums.device_ptr(),
            entry_samples: narrow[0].device_ptr(),
            entry_positions: narrow[1].device_ptr(),
            entry_transits: narrow[2].device_ptr(),
            entry_slots: entry_slots.device_ptr(),
            dense_vertices: narrow[3].device_ptr(),
            dense_positions: narrow[4].device_ptr(),
            step_lanes: step_lanes.device_ptr(),
            chunk_transits: narrow[5].device_ptr(),
            chunk_firsts: narrow[6].device_ptr(),
            chunk_counts: narrow[7].device_ptr(),
            counters: counters.device_ptr(),
            entry_capacity: entries,
            num_vertices: num_vertices as u32,
            step: 0,
        };
        Ok(TransitBuffers { counts, tile_sums, narrow, entry_slots, step_lanes, counters, args })
    }

    fn bytes(&self) -> u64 {
        self.counts.bytes()
            + self.tile_sums.bytes()
            + self.narrow.iter().map(DeviceBuffer::bytes).sum::<u64>()
            + self.entry_slots.bytes()
            + self.step_lanes.bytes()
            + self.counters.bytes()
    }
}

/// Device bytes a step-by-step run needs besides the arena: per sample at `capacity`, and
/// fixed, for `engines`.
pub(super) fn extra_bytes(engines: &[StepEngine], capacity: Capacity, num_vertices: u64) -> Option<(u64, u64)> {
    if !engines.contains(&StepEngine::Transit) {
        return Some((0, 0));
    }
    Some((TransitBuffers::bytes_per_sample(capacity)?, TransitBuffers::fixed_bytes(num_vertices)))
}

/// Runs every step of the batch in `arena` (regions of `capacity`) on `engines[step]`, with the
/// graph's `view`; times and statistics into `stats`.
pub(super) fn run(
    context: &Context<'_>,
    arena: &Arena,
    capacity: Capacity,
    view: SampleViewArgs,
    engines: &[StepEngine],
    stats: &mut GpuSampleStats,
) -> Result<()> {
    let gpu = context.gpu;
    let batch = arena.args;
    let module = &context.module.module;
    let warps = Shape::covering(u64::from(batch.samples) * 32, PER_SAMPLE_WARP_THREADS)?;
    let mut transit = if engines.contains(&StepEngine::Transit) {
        let buffers = TransitBuffers::alloc(context, u64::from(batch.samples), capacity)?;
        stats.device_bytes = stats.device_bytes.max(arena.bytes() + buffers.bytes());
        Some(buffers)
    } else {
        None
    };
    let start = gpu.record()?;
    gpu.launch(&module.kernel("glp_sample_begin")?, warps, &KernelArgs::new().value(batch))?;
    let end = gpu.record()?;
    stats.kernel_ms += gpu.elapsed_ms(&start, &end)?;
    if stats.step_ms.len() < engines.len() {
        stats.step_ms.resize(engines.len(), 0.0);
    }
    let step_kernel = module.kernel("glp_sample_step_warp")?;
    for (step, &engine) in engines.iter().enumerate() {
        let start = gpu.record()?;
        match (engine, transit.as_mut()) {
            (StepEngine::Transit, Some(buffers)) => transit_step(context, batch, view, buffers, step as u32, stats)?,
            _ => {
                let args = KernelArgs::new()
                    .bytes(&context.module.params)
                    .value(view)
                    .value(batch)
                    .value(context.seed)
                    .value(step as u32);
                gpu.launch(&step_kernel, warps, &args)?;
            }
        }
        let end = gpu.record()?;
        let ms = gpu.elapsed_ms(&start, &end)?;
        stats.step_ms[step] += ms;
        stats.kernel_ms += ms;
    }
    Ok(())
}

/// One transit-parallel step of the batch (see the module docs).
fn transit_step(
    context: &Context<'_>,
    batch: glp_codegen::kinds::sample::engine::SampleBatchArgs,
    view: SampleViewArgs,
    buffers: &mut TransitBuffers,
    step: u32,
    stats: &mut GpuSampleStats,
) -> Result<()> {
    let gpu = context.gpu;
    let module = &context.module.module;
    let num_vertices = u64::from(buffers.args.num_vertices);
    let ts = TransitStepArgs { step, ..buffers.args };
    let warps = Shape::covering(u64::from(batch.samples) * 32, PER_SAMPLE_WARP_THREADS)?;
    let vertices = Shape::covering(num_vertices, VERTEX_THREADS)?;
    let tiles = num_vertices.div_ceil(SCAN_TILE);
    let graph_batch_step = || KernelArgs::new().value(view).value(batch).value(ts);
    let start = gpu.record()?;
    gpu.zero(&mut buffers.counts)?;
    gpu.zero(&mut buffers.counters)?;
    gpu.launch(&module.kernel("glp_transit_count")?, warps, &graph_batch_step())?;
    let tile_shape = Shape { blocks: u32::try_from(tiles.max(1)).unwrap_or(u32::MAX), threads: TRANSIT_SCAN_THREADS };
    gpu.launch(&module.kernel("glp_transit_scan_tiles")?, tile_shape, &KernelArgs::new().value(ts))?;
    let one_block = Shape { blocks: 1, threads: TRANSIT_SCAN_THREADS };
    gpu.launch(&module.kernel("glp_transit_scan_totals")?, one_block, &KernelArgs::new().value(ts).value(tiles))?;
    gpu.launch(&module.kernel("glp_transit_scan_add")?, vertices, &KernelArgs::new().value(ts))?;
    gpu.launch(&module.kernel("glp_transit_scatter")?, warps, &graph_batch_step())?;
    gpu.launch(&module.kernel("glp_transit_classify")?, vertices, &graph_batch_step())?;
    let end = gpu.record()?;
    let counters = gpu.download(&buffers.counters)?;
    stats.index_ms += gpu.elapsed_ms(&start, &end)?;
    let [entries, sub_warp, block, grid, chunks] = counters[..] else {
        return Err(Error::Gpu("the transit step's counters came back short".into()));
    };
    for (total, count) in stats.transit_classes.iter_mut().zip([sub_warp, block, grid]) {
        *total += u64::from(count);
    }
    let draw_args =
        || KernelArgs::new().bytes(&context.module.params).value(view).value(batch).value(ts).value(context.seed);
    if entries > 0 {
        let shape = Shape::covering(u64::from(entries), VERTEX_THREADS)?;
        gpu.launch(&module.kernel("glp_transit_draw_small")?, shape, &draw_args().value(u64::from(entries)))?;
    }
    if chunks > 0 {
        let shape = Shape { blocks: chunks, threads: TRANSIT_BLOCK_THREADS };
        gpu.launch(&module.kernel("glp_transit_draw_large")?, shape, &draw_args())?;
    }
    gpu.launch(&module.kernel("glp_transit_gather")?, warps, &KernelArgs::new().value(batch).value(ts))?;
    Ok(())
}
