//! The walk engine: samplers with one transit per step (see the [module docs](super)).
//!
//! A batch of walks is one launch of `glp_sample_walks` over a step-major matrix of
//! `(steps + 1) x batch` vertices (row 0 the roots, row `l` every walk's vertex after step
//! `l - 1`, NONE once a walk stopped), sized to the memory budget; the rows its walks reached
//! (not all the rows a sampler may declare) are downloaded and go to the sink's thread
//! ([`crate::sample::sink`]), which turns them into the batch's per-sample rows, tile by tile
//! in parallel, while the next batch runs. When memory allows, the graph's
//! packed edges (each edge with its target's row) make a step one read.

use super::graph::Packing;
use super::walk_rows::{RowWindow, WalkBatch};
use super::WalkPacking;
use super::{replayed_failure, Context, GpuSampleStats};
use crate::device::{DeviceBuffer, Gpu, KernelArgs, Shape};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::sample::roots::InitialSamples;
use crate::sample::sampler::NONE;
use crate::sample::sink::Handoff;
use glp_codegen::kinds::sample::engine::{WALKERS_PER_THREAD, WALK_THREADS};
use glp_codegen::kinds::sample::layout::SampleViewArgs;

/// The slots of walks `first..first + count` in a batch of `batch` slots: each sample's column,
/// then each slot's sample and root (roots NONE past `count`). Walks from roots with edges take
/// the first slots, so that warps of walks that stop at once (isolated roots) leave together.
pub(super) struct Slots {
    pub columns: Vec<u32>,
    pub samples: Vec<u32>,
    pub roots: Vec<VertexId>,
}

impl Slots {
    pub(super) fn of(initial: &InitialSamples, csr: &crate::graph::Csr, first: u64, count: u64, batch: u64) -> Slots {
        let mut columns = vec![0u32; count as usize];
        let mut samples = Vec::with_capacity(batch as usize);
        let mut roots = Vec::with_capacity(batch as usize);
        for pass_live in [true, false] {
            for j in 0..count {
                let root = initial.roots((first + j) as usize)[0];
                if (csr.degree(root) > 0) == pass_live {
                    columns[j as usize] = samples.len() as u32;
                    samples.push((first + j) as u32);
                    roots.push(root);
                }
            }
        }
        samples.resize(batch as usize, 0);
        roots.resize(batch as usize, NONE);
        Slots { columns, samples, roots }
    }
}

/// Rows of the walk matrix the first download of a batch reads; each further one reads twice
/// as many. Walks of up to a thousand steps come back in one copy.
const FIRST_ROWS: usize = 1024;

/// The rows of a batch's step-major walk matrix (`count` walks a row, `rows` rows on the
/// device) that its walks reached: copied from row 0 in chunks of growing size until every
/// walk has met its first NONE or the rows end. A sampler may declare millions of steps
/// (PPR's `--walk-length`) where walks stop after a hundred: the whole matrix (the batch's
/// share of the device memory allowed) would be copied and held on the host for a few rows
/// of walks.
fn download_reached_rows(
    gpu: &crate::device::Gpu,
    walks: &DeviceBuffer<u32>,
    count: usize,
    rows: usize,
) -> Result<Vec<VertexId>> {
    let mut matrix: Vec<VertexId> = Vec::new();
    let mut ended = vec![false; count];
    let mut open = count;
    let (mut row, mut chunk) = (0, FIRST_ROWS);
    while row < rows && open > 0 {
        let take = chunk.min(rows - row);
        let at = matrix.len();
        matrix.resize(at + take * count, NONE);
        gpu.download_into(walks, row * count, &mut matrix[at..])?;
        row += take;
        if row == rows {
            // Every row is here (walks of up to FIRST_ROWS steps: one copy and no scan, the
            // sink's thread finds each walk's end).
            break;
        }
        // Row 0 holds the roots; a walk ends at the first NONE after it.
        for (r, values) in matrix[at..].chunks_exact(count).enumerate() {
            if at == 0 && r == 0 {
                continue;
            }
            for (done, &v) in ended.iter_mut().zip(values) {
                if !*done && v == NONE {
                    *done = true;
                    open -= 1;
                }
            }
        }
        chunk = chunk.saturating_mul(2);
    }
    Ok(matrix)
}

/// Device bytes a walk takes in a batch's matrix: a column of every level, a sample and a root.
fn matrix_bytes_per_walk(context: &Context<'_>) -> u64 {
    (u64::from(context.schedule.steps()) + 1) * 4 + 8
}

/// The walks of a batch whose matrix keeps every level: within `budget` bytes, at most
/// `samples` and the run's batch size.
fn matrix_walks(context: &Context<'_>, budget: u64, samples: u64) -> u64 {
    (budget / matrix_bytes_per_walk(context)).min(samples).min(context.batch_samples).min(u64::from(u32::MAX)).max(1)
}

/// Whether the sampler's declared length gives a walk's matrix column more than four times
/// the bytes of its ring ([`super::ring_walks`]): such walks run on the ring engine, since
/// rows sized by that length hold mostly levels a walk that stops at random (PPR) never
/// reaches. Measured on an H200 (`glp sample`, start to end): 500 PPR walks of 2^24 declared
/// steps on com-DBLP took 32.6 GB of device memory and 8.2 s as a matrix, 558 MB and 0.53 s
/// on the ring; DeepWalk walks that run their whole declared length, two runs each, matrix
/// then ring: com-DBLP, 1000 steps 711-737 and 901-960 ms, 2000 steps 1859-2212 and
/// 2338-2516 ms; R-MAT 22, 2^20 random roots, 600 steps 1423-1486 and 1222-1461 ms, 1000 steps
/// 2342-2576 and 1993-2126 ms (the host's conversion of the walks dominates both).
pub(super) fn declared_far_longer_than_a_ring(context: &Context<'_>) -> bool {
    let ring_bytes = super::ring_walks::bytes_per_walk(u64::from(super::ring_walks::RESIDENT_RING_ROWS));
    matrix_bytes_per_walk(context) > 4 * ring_bytes
}

/// Runs the walks of `initial` (one root each), handing each batch over as it completes.
pub(super) fn run(
    context: &Context<'_>,
    initial: &InitialSamples,
    handoff: &mut Handoff<WalkBatch>,
) -> Result<GpuSampleStats> {
    let rows = context.schedule.steps() as usize + 1;
    run_batches(context, initial, |first, columns, walks| {
        let matrix = download_reached_rows(context.gpu, walks, columns.len(), rows)?;
        let windows = vec![RowWindow::matrix(columns.len(), matrix)];
        handoff.send(WalkBatch { first, columns, windows })
    })
}

/// The packed edges a walk run reads (`None`: the CSR), among the graph's `packings`
/// (narrowest first) that `fit` (take at most half the memory allowed), as `requested` or,
/// left to glp, by this rule: the narrow packing (8 bytes an edge) when the graph's ids,
/// offsets and degrees fit it; the wide one (16) only when the column array is not held in L2
/// (`in_l2`): there the offsets' read is a hit and four times the bytes per edge would push the
/// graph out of L2, while twice keeps it in (com-DBLP, H100: DeepWalk 0.62 -> 0.52 ms narrow,
/// PPR 0.50 -> 0.55 wide). Hooks that read the `history` (second-order walks) take packed edges
/// only beyond L2: their walkers then keep the previous vertex's row too, and the membership
/// test finds the drawn vertex's row in its packed edge (node2vec p=2 q=0.5, H100: R-MAT 22
/// 30.9 -> 25.3 ms), while in L2 the plain kernel's reads are hits and its walkers take fewer
/// registers (com-DBLP 3.11 ms plain, 3.21 narrow; the warp-synchronous plain kernel of then
/// keeping the two rows in registers too, read from the offsets once a step, 3.12 -> 3.30 ms:
/// 72 registers, not 48; the resumed kernel of [`walk_kernel`] keeps them and gains).
pub(super) fn walk_packing(
    requested: Option<WalkPacking>,
    packings: &[Packing],
    fits: impl Fn(Packing) -> bool,
    in_l2: bool,
    history: bool,
) -> Option<Packing> {
    let first = |wanted: &dyn Fn(Packing) -> bool| packings.iter().copied().find(|&p| fits(p) && wanted(p));
    match requested {
        None => first(&|p| !in_l2 || (!history && p != Packing::Wide)),
        Some(WalkPacking::Plain | WalkPacking::Offsets) => None,
        Some(WalkPacking::Narrow) => first(&|p| p != Packing::Wide),
        Some(WalkPacking::Wide) => first(&|p| p == Packing::Wide),
    }
}

/// The walk kernel for `packing` and its walkers per thread. A hook with a loop (`single`:
/// node2vec's rejection) runs a thread's walkers one after the other whatever the unrolling:
/// one walker per thread, and more threads (node2vec on R-MAT 22: 43 ms with four walkers per
/// thread, 31 ms with one, H100). What bounds node2vec on a graph in L2 (ncu, com-DBLP, p=2
/// q=0.5, the plain kernel): issuing, not memory; a warp-synchronous step lasts as many
/// rejection rounds as its slowest walker needs (6.4 rounds a step for 1.6 attempts a walker),
/// so 8.5 of 32 threads were active, 1.85 G warp instructions with issue slots 64% busy and L2
/// 27% busy (H100). The plain one-walker kernel therefore resumes the hook's loop one
/// iteration per round (glp-codegen's `cuda::resumable`): a walker whose step ended begins the
/// next while the others go on (14.2 threads active, 1.24 G instructions, 2.87 -> 2.61 ms on an
/// H200; an earlier hand-written kernel flattened the same way measured 2.25 -> 2.11 ms on the
/// H100), computes a round's Philox block at one place and keeps the vertex before the transit
/// in a register (1.07 G instructions, 17.2 threads active, 2.60 -> 2.09 ms, H200). The packed kernels, used beyond L2 where walks are bound by memory, stay
/// warp-synchronous: resumed, a warp's walkers drift apart and their step-major writes cover
/// several rows (R-MAT 22: 17x the L2 write sectors, 21.7 -> 27.5 ms, H200). Bounding the plain
/// kernel to 40 registers (12 blocks per SM) lost (3.0 ms against 2.9, H100).
///
/// The resumable kernel's walker keeps its transit's row and the previous vertex's in
/// registers, with offsets of 32 bits (`rows_fit`: a graph of fewer than 2^32 edges, and not
/// [`WalkPacking::Offsets`]); its `_offsets` form reads them from the offsets at each use
/// (com-DBLP, H200: 1.95 ms that way, 1.76 ms with the rows kept).
pub(super) fn walk_kernel(packing: Option<Packing>, single: bool, rows_fit: bool) -> (&'static str, u32) {
    match (packing, single) {
        (None, true) if !rows_fit => (RESUMABLE_OFFSETS_WALK_KERNEL, 1),
        (Some(Packing::Wide), false) => ("glp_sample_walks_packed", WALKERS_PER_THREAD),
        (Some(Packing::Wide), true) => ("glp_sample_walks_packed_single", 1),
        (Some(Packing::Narrow { .. }), false) => ("glp_sample_walks_narrow", WALKERS_PER_THREAD),
        (Some(Packing::Narrow { .. }), true) => ("glp_sample_walks_narrow_single", 1),
        (None, true) => (RESUMABLE_WALK_KERNEL, 1),
        (None, false) => ("glp_sample_walks", WALKERS_PER_THREAD),
    }
}

/// Whether the plain one-walker kernel's walkers may keep their rows in registers: with
/// offsets of 32 bits, a graph of fewer than 2^32 edges (every offset, `num_edges` included,
/// then fits), unless the caller asked for the rows read from the offsets
/// ([`WalkPacking::Offsets`]).
fn rows_fit(requested: Option<WalkPacking>, num_edges: u64) -> bool {
    requested != Some(WalkPacking::Offsets) && num_edges <= u64::from(u32::MAX)
}

/// The walk kernels whose threads take their walks from a counter (its last argument, zeroed
/// before each launch), a warp's first 32 at once, then one as each walk ends.
const RESUMABLE_WALK_KERNEL: &str = "glp_sample_walks_single";
const RESUMABLE_OFFSETS_WALK_KERNEL: &str = "glp_sample_walks_single_offsets";

/// The most walks of a batch of [`RESUMABLE_WALK_KERNEL`]: its 32-bit counter ends at most at
/// the batch plus the threads launched (every thread's first take counts 1, every walk's end
/// takes once more), about twice the batch, which must not wrap it.
const RESUMABLE_BATCH_LIMIT: u64 = (u32::MAX / 4) as u64;
const _: () = assert!(2 * RESUMABLE_BATCH_LIMIT + WALK_THREADS as u64 <= u32::MAX as u64);

/// Runs the walks of `initial` (one root each) batch by batch, giving each batch to
/// `complete` as the kernel left it on the device: its first sample, each sample's column and
/// the step-major matrix (rows of as many entries as the batch has samples, in a buffer sized
/// for the largest batch; see [`Slots`]). A walk's levels after its first NONE are left
/// unwritten.
pub(super) fn run_batches(
    context: &Context<'_>,
    initial: &InitialSamples,
    mut complete: impl FnMut(u64, Vec<u32>, &DeviceBuffer<u32>) -> Result<()>,
) -> Result<GpuSampleStats> {
    let gpu = context.gpu;
    let steps = context.schedule.steps();
    let rows = u64::from(steps) + 1;
    let samples = initial.len() as u64;
    let per_walk = matrix_bytes_per_walk(context);
    if per_walk > context.budget {
        return Err(Error::TooLarge(format!(
            "a walk of {steps} steps needs {per_walk} bytes of device memory, more than the {} allowed",
            context.budget
        )));
    }
    let in_l2 = context.graph.targets_bytes() <= gpu.info().l2_bytes / 2;
    let history = context.sampler.features().contains(&"history");
    let fits = |packing: Packing| context.graph.packed_bytes(packing) <= context.budget / 2;
    let packing = walk_packing(context.walk_packing, &context.graph.packings(), fits, in_l2, history);
    let packed_bytes = packing.map(|packing| context.graph.packed_bytes(packing));
    let packed = match packing {
        Some(packing) => context.graph.packed_edges(gpu, &context.module.module, packing)?,
        None => 0,
    };
    let budget = context.budget - packed_bytes.unwrap_or(0);
    let single = !context.sampler.loop_sites().is_empty();
    let fit = rows_fit(context.walk_packing, context.graph.host().csr().num_edges());
    let (kernel, walkers_per_thread) = walk_kernel(packing, single, fit);
    // The resumable kernels' threads take their walks from a counter (their last argument).
    let counted = kernel == RESUMABLE_WALK_KERNEL || kernel == RESUMABLE_OFFSETS_WALK_KERNEL;
    let mut batch = matrix_walks(context, budget, samples);
    if counted {
        batch = batch.min(RESUMABLE_BATCH_LIMIT);
    }
    let walks: DeviceBuffer<u32> = gpu.alloc_zeros("walks", (batch * rows) as usize)?;
    let mut roots: DeviceBuffer<u32> = gpu.alloc_zeros("roots", batch as usize)?;
    let mut slot_samples: DeviceBuffer<u32> = gpu.alloc_zeros("walk samples", batch as usize)?;
    let shared = WalkShared::new(context)?;
    let mut next_walk: DeviceBuffer<u32> = gpu.alloc_zeros("next walk", 1)?;
    let kernel_name = kernel;
    let kernel = context.module.module.kernel(kernel)?;
    let csr = context.graph.host().csr();
    let mut stats = GpuSampleStats {
        engine: "walks",
        walk_kernel: kernel_name,
        device_bytes: walks.bytes() + roots.bytes() + slot_samples.bytes() + shared.bytes() + packed_bytes.unwrap_or(0),
        ..GpuSampleStats::default()
    };
    let mut first = 0u64;
    while first < samples {
        let count = batch.min(samples - first);
        let Slots { columns, samples: batch_samples, roots: batch_roots } =
            Slots::of(initial, csr, first, count, batch);
        gpu.write(&mut roots, &batch_roots)?;
        gpu.write(&mut slot_samples, &batch_samples)?;
        let per_block = u64::from(WALK_THREADS * walkers_per_thread);
        let shape =
            Shape { blocks: u32::try_from(count.div_ceil(per_block)).unwrap_or(u32::MAX), threads: WALK_THREADS };
        let args = shared.leading_args(context, &slot_samples, count, &roots).buffer(&walks).buffer(&shared.failed);
        let args = match packing {
            Some(Packing::Narrow { target_bits, offset_bits }) => {
                args.value(packed).value(target_bits).value(offset_bits)
            }
            Some(Packing::Wide) => args.value(packed),
            None if counted => {
                gpu.write(&mut next_walk, &[0])?;
                args.buffer(&next_walk)
            }
            None => args,
        };
        let start = gpu.record()?;
        gpu.launch(&kernel, shape, &args)?;
        let end = gpu.record()?;
        stats.kernel_ms += gpu.elapsed_ms(&start, &end)?;
        stats.batches += 1;
        shared.check(context, initial)?;
        complete(first, columns, &walks)?;
        first += count;
    }
    Ok(stats)
}

/// What both walk engines' kernels share: the steps' draw rules, the record of the smallest
/// sample whose hook gave a result the CPU refuses, the record of a hook loop past its budget,
/// and the graph's view pointing at the latter.
pub(super) struct WalkShared {
    unique: DeviceBuffer<u8>,
    pub failed: DeviceBuffer<u64>,
    fault: DeviceBuffer<u64>,
    pub view: SampleViewArgs,
}

impl WalkShared {
    pub(super) fn new(context: &Context<'_>) -> Result<Self> {
        let gpu = context.gpu;
        let unique: Vec<u8> = context.schedule.unique.iter().map(|&u| u8::from(u)).collect();
        let unique = gpu.upload("the steps' draw rules", &unique)?;
        let failed = gpu.upload("failed sample", &[u64::MAX])?;
        let fault = gpu.alloc_zeros::<u64>("fault record", 2)?;
        let view = SampleViewArgs { fault: fault.device_ptr(), ..context.view() };
        Ok(WalkShared { unique, failed, fault, view })
    }

    /// Bytes on the device.
    pub(super) fn bytes(&self) -> u64 {
        self.unique.bytes() + self.failed.bytes() + self.fault.bytes()
    }

    /// The arguments every walk kernel starts with (`params, graph, seed, samples, count,
    /// steps, unique_steps, roots`): `count` walks, slot i's sample `samples[i]` from
    /// `roots[i]`.
    pub(super) fn leading_args(
        &self,
        context: &Context<'_>,
        samples: &DeviceBuffer<u32>,
        count: u64,
        roots: &DeviceBuffer<u32>,
    ) -> KernelArgs {
        KernelArgs::new()
            .bytes(&context.module.params)
            .value(self.view)
            .value(context.seed)
            .buffer(samples)
            .value(count as u32)
            .value(context.schedule.steps())
            .buffer(&self.unique)
            .buffer(roots)
    }

    /// The fault record of the batch the kernels ran: `[code, id]`, code 0 when none
    /// (`HISTORY_FAULT`: a hook read its walk further back than the ring engine kept).
    pub(super) fn fault_record(&self, gpu: &Gpu) -> Result<Vec<u64>> {
        gpu.download(&self.fault)
    }

    /// Clears the records, for a batch run again.
    pub(super) fn reset(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.write(&mut self.failed, &[u64::MAX])?;
        gpu.write(&mut self.fault, &[0, 0])
    }

    /// The error of the batch the kernels ran, if they recorded one: a hook loop past its
    /// budget, or the smallest failed sample, replayed on the CPU for its message (the run
    /// stops at the first, so the records are reset only for a batch run again).
    pub(super) fn check(&self, context: &Context<'_>, initial: &InitialSamples) -> Result<()> {
        self.check_records(context, initial, &self.fault_record(context.gpu)?)
    }

    /// [`WalkShared::check`] with the fault record downloaded already.
    pub(super) fn check_records(&self, context: &Context<'_>, initial: &InitialSamples, record: &[u64]) -> Result<()> {
        if let Some(error) = context.module.loop_fault(record, self.view.loop_budget, "in a walk") {
            return Err(error);
        }
        let failed_sample = context.gpu.download(&self.failed)?[0];
        if failed_sample != u64::MAX {
            return Err(replayed_failure(context, initial, failed_sample));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_take_the_narrowest_packing_that_fits_and_second_order_walks_pack_only_beyond_l2() {
        let narrow = Packing::Narrow { target_bits: 22, offset_bits: 28 };
        let both = [narrow, Packing::Wide];
        let all = |_: Packing| true;
        // First-order walks: narrow whether in L2 or not; wide only beyond L2 when narrow
        // does not fit or does not exist.
        assert_eq!(walk_packing(None, &both, all, true, false), Some(narrow));
        assert_eq!(walk_packing(None, &both, all, false, false), Some(narrow));
        assert_eq!(walk_packing(None, &[Packing::Wide], all, true, false), None);
        assert_eq!(walk_packing(None, &[Packing::Wide], all, false, false), Some(Packing::Wide));
        let wide_only = |p: Packing| p == Packing::Wide;
        assert_eq!(walk_packing(None, &both, wide_only, false, false), Some(Packing::Wide));
        assert_eq!(walk_packing(None, &both, wide_only, true, false), None);
        // Second-order walks (history): the CSR in L2, packed edges beyond it.
        assert_eq!(walk_packing(None, &both, all, true, true), None);
        assert_eq!(walk_packing(None, &both, all, false, true), Some(narrow));
        assert_eq!(walk_packing(None, &[Packing::Wide], all, false, true), Some(Packing::Wide));
        // Nothing fits: the CSR.
        assert_eq!(walk_packing(None, &both, |_| false, false, false), None);
        // As requested, when it exists and fits.
        assert_eq!(walk_packing(Some(WalkPacking::Plain), &both, all, false, false), None);
        assert_eq!(walk_packing(Some(WalkPacking::Narrow), &both, all, true, true), Some(narrow));
        assert_eq!(walk_packing(Some(WalkPacking::Wide), &both, all, true, true), Some(Packing::Wide));
        assert_eq!(walk_packing(Some(WalkPacking::Narrow), &[Packing::Wide], all, true, false), None);
        assert_eq!(walk_packing(Some(WalkPacking::Wide), &both, |p| p != Packing::Wide, false, false), None);
    }

    #[test]
    fn looping_hooks_run_one_walker_per_thread_on_the_packings_single_kernel() {
        let narrow = Some(Packing::Narrow { target_bits: 1, offset_bits: 1 });
        assert_eq!(walk_kernel(None, false, true), ("glp_sample_walks", WALKERS_PER_THREAD));
        assert_eq!(walk_kernel(None, true, true), (RESUMABLE_WALK_KERNEL, 1));
        assert_eq!(walk_kernel(None, true, false), (RESUMABLE_OFFSETS_WALK_KERNEL, 1));
        assert_eq!(walk_kernel(narrow, false, true), ("glp_sample_walks_narrow", WALKERS_PER_THREAD));
        assert_eq!(walk_kernel(narrow, true, true), ("glp_sample_walks_narrow_single", 1));
        assert_eq!(walk_kernel(Some(Packing::Wide), false, true), ("glp_sample_walks_packed", WALKERS_PER_THREAD));
        assert_eq!(walk_kernel(Some(Packing::Wide), true, true), ("glp_sample_walks_packed_single", 1));
    }

    /// Rows of 32-bit offsets up to the last graph whose offsets all fit (2^32 - 1 edges), not
    /// one edge more, and never when the offsets' reads are asked for.
    #[test]
    fn rows_fit_in_32_bits_below_2_to_the_32_edges_unless_offsets_are_asked_for() {
        let last = u64::from(u32::MAX);
        for requested in [None, Some(WalkPacking::Plain), Some(WalkPacking::Narrow), Some(WalkPacking::Wide)] {
            assert!(rows_fit(requested, 0) && rows_fit(requested, last), "{requested:?}");
            assert!(!rows_fit(requested, last + 1), "{requested:?}");
        }
        assert!(!rows_fit(Some(WalkPacking::Offsets), 0));
        assert!(!rows_fit(Some(WalkPacking::Offsets), last));
    }
}
