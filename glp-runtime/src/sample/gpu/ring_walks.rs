//! The ring walk engine: walks resumed launch after launch, each keeping only its last rows on
//! the device. It serves two cases: a graph whose edges stay in host memory, its partitions
//! copied to the device in turn ([`super::placement`]); and a graph in device memory whose
//! sampler declares walks far longer than a ring's rows (PPR with `--walk-length 16777216`),
//! for which the walk engine's matrix of every level would hold mostly levels the walks never
//! reach ([`super::walks::declared_far_longer_than_a_ring`]).
//!
//! A batch of walks runs in *passes*. A pass counts the walks waiting in each partition (the
//! partition of their transit's row, `glp_sample_walks_waiting`), then visits the partitions
//! that are not resident and hold waiting walks, in order: a partition whose waiting walks
//! make its copy worth it ([`COPY_BYTES_PER_WAITING_WALK`]) is copied into one of two staging
//! buffers on the copy stream, while the walks of the partition before advance in the other;
//! one with few waiting walks is read over the bus instead. Each visit's launch
//! (`glp_sample_walks_partitioned`) advances every walk whose row is in device memory (the
//! resident partitions and the visited one) until it leaves, so a walk moves on in every
//! later partition of the same pass. A graph in device memory is one partition, always
//! resident: a pass is one launch.
//!
//! Walks progress at different speeds, so each keeps its level and only its last rows on the
//! device, in a ring of [`RING_ROWS`] rows ([`RESIDENT_RING_ROWS`] in device memory); a row is
//! downloaded once every walk has passed it, and no walk runs more than the ring's rows ahead
//! of the slowest. The rows are gathered on the device for the walks still running, in windows
//! that narrow as walks end ([`super::walk_rows`]): a sampler may declare millions of steps and
//! stop its walks after a few hundred (PPR), and the host holds what the walks hold. They then
//! go to the sink's thread as the walk engine's matrix does.
//!
//! A hook may read its walk any number of steps back, which the ring keeps only for its last
//! levels. A read further back records `HISTORY_FAULT` in the view's fault
//! record: the batch's walks run again, and every batch after them, with a ring of every row
//! (fewer walks a batch). Second-order walks (node2vec: one step back) never pay for it.
//!
//! [`COPY_BYTES_PER_WAITING_WALK`]: super::placement::COPY_BYTES_PER_WAITING_WALK

use super::graph::HostEdges;
use super::placement::COPY_BYTES_PER_WAITING_WALK;
use super::walk_rows::{WalkBatch, WindowCollector};
use super::walks::{Slots, WalkShared};
use super::{Context, GpuSampleStats};
use crate::device::{CopyStream, DeviceBuffer, Gpu, KernelArgs, Shape};
use crate::error::{Error, Result};
use crate::sample::roots::InitialSamples;
use crate::sample::sink::Handoff;
use glp_codegen::kinds::sample::engine::WALK_THREADS;
use glp_codegen::kinds::sample::layout::HISTORY_FAULT;

/// Rows of the walks kept on the device over partitions: the most a walk may run ahead of the
/// slowest walk of its batch (a walk advances about 2.5 steps per pass on random partitions; a
/// ring of 16 rows stalls almost none).
pub const RING_ROWS: u32 = 16;

/// The same for a graph in device memory, whose walks all advance in every pass: a pass runs
/// them up to 63 levels on, and the rows are gathered for the walks still running at the
/// window's first row, so a window's rows past the walks' ends cost what the shorter ring
/// keeps short (PPR 0.01 with 2^24 steps declared on com-DBLP, H200: a ring of 256 rows
/// gathered a first window of 256 rows of every walk, 325 MB, for walks of 100 steps on
/// average: 288-327 ms of sampling, 993 MB of host memory).
pub const RESIDENT_RING_ROWS: u32 = 64;

/// A visit of a pass: a partition copied into a staging slot, or read over the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Visit {
    Copy { partition: u64, slot: usize },
    Bus { partition: u64 },
}

/// The visits of a pass, given the walks waiting in each partition: the partitions that are not
/// resident and hold waiting walks, in order, copied when the copy is worth it, the copies
/// alternating between the two staging slots.
fn plan_pass(host: &HostEdges, waiting: &[u32]) -> Vec<Visit> {
    let mut copies = 0;
    let mut visits = Vec::new();
    for (p, &walks) in waiting.iter().enumerate() {
        let partition = p as u64;
        if walks == 0 || host.is_resident(partition) {
            continue;
        }
        let bytes = host.copied_range(partition).len() as u64 * 4;
        if u64::from(walks) * COPY_BYTES_PER_WAITING_WALK >= bytes {
            visits.push(Visit::Copy { partition, slot: copies % 2 });
            copies += 1;
        } else {
            visits.push(Visit::Bus { partition });
        }
    }
    visits
}

/// A pass over `host`'s partitions given the walks `waiting` in each: the visits of
/// [`plan_pass`], each a `walk` launch (its argument: the partition read over the bus, or
/// `u64::MAX`), copies on `copies` two ahead of the launches.
fn visit_pass(
    gpu: &Gpu,
    host: &HostEdges,
    copies: &CopyStream<'_>,
    waiting: &[u32],
    walk: &dyn Fn(u64) -> Result<()>,
    stats: &mut GpuSampleStats,
) -> Result<()> {
    let visits = plan_pass(host, waiting);
    if visits.is_empty() {
        // Every waiting walk is in a resident partition or at an empty row.
        host.publish(gpu)?;
        return walk(u64::MAX);
    }
    let copy_visits: Vec<(u64, usize)> = visits
        .iter()
        .filter_map(|v| match *v {
            Visit::Copy { partition, slot } => Some((partition, slot)),
            Visit::Bus { .. } => None,
        })
        .collect();
    let mut ready = Vec::with_capacity(copy_visits.len());
    let staging = host.staging();
    for &(partition, slot) in copy_visits.iter().take(2) {
        copies.copy(host.targets(), host.copied_range(partition), &staging[slot])?;
        ready.push(copies.record()?);
    }
    let mut copied = 0;
    for visit in visits {
        match visit {
            Visit::Copy { partition, slot } => {
                gpu.wait_for(&ready[copied])?;
                host.point(partition, Some(slot));
                host.publish(gpu)?;
                walk(u64::MAX)?;
                host.point(partition, None);
                stats.copied_bytes += host.copied_range(partition).len() as u64 * 4;
                if let Some(&(next, next_slot)) = copy_visits.get(copied + 2) {
                    copies.wait_for(&gpu.record()?)?;
                    copies.copy(host.targets(), host.copied_range(next), &staging[next_slot])?;
                    ready.push(copies.record()?);
                }
                copied += 1;
            }
            Visit::Bus { partition } => {
                host.publish(gpu)?;
                walk(partition)?;
                stats.bus_visits += 1;
            }
        }
    }
    Ok(())
}

/// Device bytes a walk takes with a ring of `ring_rows` rows: the ring and the rows gathered
/// from it, then a level, a partition, a sample, a root and a column of the running walks.
pub(super) fn bytes_per_walk(ring_rows: u64) -> u64 {
    ring_rows * 8 + 20
}

/// Walks per batch for a ring of `ring_rows` rows, within the memory left beside the graph.
fn batch_walks(context: &Context<'_>, samples: u64, ring_rows: u64) -> Result<u64> {
    let per_walk = bytes_per_walk(ring_rows);
    if per_walk > context.budget {
        return Err(Error::TooLarge(format!(
            "a walk over a ring of {ring_rows} rows needs {per_walk} bytes of device memory, more than the {} left beside the graph",
            context.budget
        )));
    }
    Ok((context.budget / per_walk).min(samples).min(context.batch_samples).min(u64::from(u32::MAX)).max(1))
}

/// Runs the walks of `initial` (one root each) over `host`'s partitions (`None`: a graph in
/// device memory, one partition always resident), handing each batch over as it completes.
/// The walks keep their last rows on the device; a batch whose hooks read further back
/// (`HISTORY_FAULT`) runs again, and the batches after it run, with every row kept.
pub(super) fn run(
    context: &Context<'_>,
    initial: &InitialSamples,
    host: Option<&HostEdges>,
    handoff: &mut Handoff<WalkBatch>,
) -> Result<GpuSampleStats> {
    let mut shared = WalkShared::new(context)?;
    let every_row = (u64::from(context.schedule.steps()) + 1).next_power_of_two();
    let engine = if host.is_some() { "partitioned-walks" } else { "ring-walks" };
    let mut stats = GpuSampleStats { engine, ..GpuSampleStats::default() };
    let mut ring_rows = u64::from(if host.is_some() { RING_ROWS } else { RESIDENT_RING_ROWS }).min(every_row);
    let mut first = 0;
    while let Some(rerun) = run_from(context, initial, host, &shared, ring_rows, first, handoff, &mut stats)? {
        if ring_rows == every_row {
            return Err(Error::Gpu("walks that keep every row recorded a read beyond their history".into()));
        }
        shared.reset(context.gpu)?;
        stats.rerun_samples += rerun.1;
        (ring_rows, first) = (every_row, rerun.0);
    }
    if let Some(host) = host {
        host.publish(context.gpu)?;
    }
    Ok(stats)
}

/// [`run`] from walk `first` on, with rings of `ring_rows` rows: `Some((first, walks))` when
/// the batch of `walks` walks from `first` read its history beyond the ring (nothing of it
/// handed over), `None` once every walk is handed over.
#[allow(clippy::too_many_arguments)]
fn run_from(
    context: &Context<'_>,
    initial: &InitialSamples,
    host: Option<&HostEdges>,
    shared: &WalkShared,
    ring_rows: u64,
    mut first: u64,
    handoff: &mut Handoff<WalkBatch>,
    stats: &mut GpuSampleStats,
) -> Result<Option<(u64, u64)>> {
    let gpu = context.gpu;
    let steps = context.schedule.steps();
    let samples = initial.len() as u64;
    let batch = batch_walks(context, samples, ring_rows)?;
    let ring_mask = (ring_rows - 1) as u32;
    let partitions = host.map_or(1, |host| host.plan().partitions as usize);
    let ring: DeviceBuffer<u32> = gpu.alloc_zeros("walk rows", (batch * ring_rows) as usize)?;
    let mut roots: DeviceBuffer<u32> = gpu.alloc_zeros("roots", batch as usize)?;
    let mut slot_samples: DeviceBuffer<u32> = gpu.alloc_zeros("walk samples", batch as usize)?;
    let levels: DeviceBuffer<u32> = gpu.alloc_zeros("walk levels", batch as usize)?;
    let parts: DeviceBuffer<u32> = gpu.alloc_zeros("walk partitions", batch as usize)?;
    let mut alive: DeviceBuffer<u32> = gpu.alloc_zeros("running walks", batch as usize)?;
    let window: DeviceBuffer<u32> = gpu.alloc_zeros("walk rows gathered", (batch * ring_rows) as usize)?;
    let mut waiting: DeviceBuffer<u32> = gpu.alloc_zeros("waiting walks", partitions + 3)?;
    let module = &context.module.module;
    let (start_kernel, walk_kernel, waiting_kernel, window_kernel) = (
        module.kernel("glp_sample_walks_partitioned_start")?,
        module.kernel("glp_sample_walks_partitioned")?,
        module.kernel("glp_sample_walks_waiting")?,
        module.kernel("glp_sample_walk_window")?,
    );
    let csr = context.graph.host().csr();
    let view = shared.view;
    let copies = gpu.copy_stream()?;
    stats.device_bytes = stats.device_bytes.max(
        ring.bytes()
            + roots.bytes()
            + slot_samples.bytes()
            + levels.bytes()
            + parts.bytes()
            + alive.bytes()
            + window.bytes()
            + waiting.bytes()
            + shared.bytes(),
    );
    // Per partition the walks waiting there, then the lowest level of a running walk, the
    // walks at an empty row, the highest level of any walk.
    let mut idle_waiting = vec![0u32; partitions + 3];
    idle_waiting[partitions] = u32::MAX;
    while first < samples {
        let count = batch.min(samples - first);
        let slots = Slots::of(initial, csr, first, count, batch);
        gpu.write(&mut roots, &slots.roots)?;
        gpu.write(&mut slot_samples, &slots.samples)?;
        let shape = Shape::covering(count, WALK_THREADS)?;
        let start = gpu.record()?;
        let args = KernelArgs::new()
            .value(view)
            .buffer(&roots)
            .value(count as u32)
            .value(steps)
            .buffer(&ring)
            .buffer(&levels)
            .buffer(&parts);
        gpu.launch(&start_kernel, shape, &args)?;
        // The rows every walk has passed, downloaded as they complete (of the walks still
        // running): the batch's rows follow its walks' lengths, whatever the steps the sampler
        // declares.
        let mut collector = WindowCollector::new(count as usize);
        let mut alive_changed = true;
        loop {
            gpu.write(&mut waiting, &idle_waiting)?;
            let args = KernelArgs::new()
                .buffer(&levels)
                .buffer(&parts)
                .value(count as u32)
                .value(partitions as u32)
                .buffer(&waiting);
            gpu.launch(&waiting_kernel, shape, &args)?;
            let counts = gpu.download(&waiting)?;
            let (lowest, highest) = (counts[partitions], counts[partitions + 2]);
            // Rows every walk has passed (every row written once none runs).
            let complete = u64::from(if lowest == u32::MAX { highest } else { lowest });
            let next_row = collector.next_row() as u64;
            if next_row <= complete {
                if alive_changed {
                    let mut padded = collector.alive().to_vec();
                    padded.resize(batch as usize, 0);
                    gpu.write(&mut alive, &padded)?;
                }
                let (rows, width) = (complete + 1 - next_row, collector.alive().len() as u64);
                let args = KernelArgs::new()
                    .buffer(&ring)
                    .value(count)
                    .value(ring_mask)
                    .value(next_row as u32)
                    .value(rows as u32)
                    .buffer(&alive)
                    .value(width)
                    .buffer(&window);
                gpu.launch(&window_kernel, Shape::covering(rows * width, WALK_THREADS)?, &args)?;
                collector.download_rows(rows as usize, |out| gpu.download_into(&window, 0, out))?;
                alive_changed = collector.narrow();
            }
            let next_row = collector.next_row() as u64;
            if lowest == u32::MAX {
                break;
            }
            // A walk at level l writes row l + 1, which must not reach the oldest row not yet
            // downloaded (next_row) around the ring.
            let level_cap = (next_row + ring_rows - 1).min(u64::from(steps)) as u32;
            let walk = |bus_partition: u64| {
                let args = shared
                    .leading_args(context, &slot_samples, count, &roots)
                    .buffer(&ring)
                    .value(ring_mask)
                    .buffer(&levels)
                    .buffer(&parts)
                    .value(level_cap)
                    .value(bus_partition)
                    .buffer(&shared.failed);
                gpu.launch(&walk_kernel, shape, &args)
            };
            match host {
                Some(host) => visit_pass(gpu, host, &copies, &counts[..partitions], &walk, stats)?,
                None => walk(u64::MAX)?,
            }
            stats.passes += 1;
        }
        let end = gpu.record()?;
        stats.kernel_ms += gpu.elapsed_ms(&start, &end)?;
        stats.batches += 1;
        let record = shared.fault_record(gpu)?;
        if record[0] == HISTORY_FAULT {
            return Ok(Some((first, count)));
        }
        shared.check_records(context, initial, &record)?;
        handoff.send(WalkBatch { first, columns: slots.columns, windows: collector.finish() })?;
        first += count;
    }
    Ok(None)
}
