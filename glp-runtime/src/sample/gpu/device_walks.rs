//! Walks kept on the device: the walk engine's batches turned, on the device, into one array
//! of rows of input ids, which a caller hands on without a copy to the host (the Python
//! package gives it to PyTorch through DLPack).
//!
//! The rows are the host output's ([`crate::sample::SampleOutcome::walks`]): row `s` is sample
//! `s`'s walk from its root, -1 past its end, as wide as the longest walk; the array keeps
//! `steps + 1` entries per row (its stride) and says how many of them the longest walk fills
//! ([`DeviceWalks::width`]), so a strided view of that width is exactly the host's array.

use super::device_ids::DeviceIds;
use super::{walks, with_context, Context, GpuSampleConfig, GpuSampleStats};
use crate::device::{DeviceBuffer, Gpu, KernelArgs, Shape};
use crate::error::Result;
use crate::graph::VertexIds;
use crate::sample::compiled::CompiledSampler;
use crate::sample::roots::InitialSamples;
use std::time::{Duration, Instant};

use super::DeviceSampleGraph;

/// Threads per block of the rows' conversion (a warp per walk).
const ROW_THREADS: u32 = 256;

/// Walks on the device, one row per sample.
pub struct DeviceWalks {
    /// Row `s` (entries `s * stride ..`): sample `s`'s walk as input ids from its root, -1
    /// past its end.
    pub rows: DeviceBuffer<i64>,
    /// Rows (samples).
    pub samples: u64,
    /// Entries per row: the walks' steps + 1.
    pub stride: u64,
    /// The longest walk's vertices: the entries of each row that the host's array holds.
    pub width: u64,
    /// Vertices the walks added (their roots apart), as the host outcome's
    /// [`sampled_vertices`](crate::sample::SampleOutcome::sampled_vertices).
    pub sampled_vertices: u64,
    /// Time of the sampling and of the rows' conversion (the host outcome's `elapsed` is the
    /// sampling's alone).
    pub elapsed: Duration,
}

/// Runs the walks of `sampler` from `initial` on `gpu`, as [`super::run`] does, and keeps
/// them on the device as rows of input ids (`ids`, the graph's). `Ok(None)` when the run is
/// not one the walk engine takes on the device (a sampler that is not a walk from one root,
/// the transit-parallel engine asked for, a graph whose edges stream in partitions), or when
/// rows as long as the sampler declares would take more than half the device memory the run
/// may use (the walk engine keeps the rest for its batches), or when that length is far
/// beyond a ring's (`walks::declared_far_longer_than_a_ring`: PPR with `--walk-length
/// 16777216` declares rows of 2^24 entries while its walks end after a few hundred steps;
/// on an H200, 500 such rows fit in half its memory, 67 GB for walks of about 100 steps):
/// the caller then runs [`super::run_streamed`], whose rows on the host are as long as the
/// longest walk.
///
/// Errors: [`super::run`]'s.
pub fn run_walks_on_device(
    gpu: &Gpu,
    graph: &DeviceSampleGraph<'_>,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    ids: &VertexIds,
    config: &GpuSampleConfig,
) -> Result<Option<(DeviceWalks, GpuSampleStats)>> {
    if graph.host_edges().is_some_and(|host| host.plan().staging == 2) {
        return Ok(None);
    }
    let samples = initial.len() as u64;
    with_context(gpu, graph, sampler, initial, config, 0, |context, run| {
        // The rows are allocated before the walks run, so they are as long as declared.
        let stride = u64::from(context.schedule.steps()) + 1;
        let reserved = samples.saturating_mul(stride).saturating_mul(8).saturating_add(DeviceIds::bytes(ids));
        if !run.fused_walks || reserved > context.budget / 2 || walks::declared_far_longer_than_a_ring(context) {
            return Ok(None);
        }
        let context = &Context { budget: context.budget - reserved, ..*context };
        let entries = samples * stride;
        let start = Instant::now();
        let rows: DeviceBuffer<i64> = gpu.alloc_zeros("walk rows", entries as usize)?;
        let ids = DeviceIds::upload(gpu, ids)?;
        let longest: DeviceBuffer<u32> = gpu.alloc_zeros("longest walk", 1)?;
        let added: DeviceBuffer<u64> = gpu.alloc_zeros("added vertices", 1)?;
        let kernel = context.module.module.kernel("glp_sample_walk_rows")?;
        let mut columns: Option<DeviceBuffer<u32>> = None;
        let stats = walks::run_batches(context, initial, |first, mut batch_columns, matrix| {
            let count = batch_columns.len() as u64;
            // The columns' buffer has room for the largest batch (the matrix's capacity).
            let capacity = matrix.len() as u64 / stride;
            batch_columns.resize(capacity as usize, 0);
            let on_device = match &mut columns {
                Some(on_device) => on_device,
                None => columns.insert(gpu.alloc_zeros("walk columns", capacity as usize)?),
            };
            gpu.write(on_device, &batch_columns)?;
            // The matrix's rows hold the batch's walks alone: `count` entries each.
            let args = KernelArgs::new()
                .buffer(matrix)
                .value(count)
                .buffer(on_device)
                .value(count)
                .value(stride as u32)
                .value(first)
                .value(ids.first_id)
                .value(ids.table())
                .buffer(&rows)
                .buffer(&longest)
                .buffer(&added);
            gpu.launch(&kernel, Shape::covering(count * 32, ROW_THREADS)?, &args)
        })?;
        let width = u64::from(gpu.download(&longest)?[0]);
        let sampled_vertices = gpu.download(&added)?[0];
        gpu.synchronize()?;
        let stats = GpuSampleStats {
            placement: graph.placement().name(),
            device_bytes: reserved + stats.device_bytes,
            ..stats
        };
        let walks = DeviceWalks { rows, samples, stride, width, sampled_vertices, elapsed: start.elapsed() };
        Ok(Some((walks, stats)))
    })
}
