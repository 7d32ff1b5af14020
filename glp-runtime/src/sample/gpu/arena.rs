//! A batch's arena: every sample's region (history, combined neighbourhood, record) of the
//! same capacity, on the device, and its results downloaded. The per-sample engines run in it
//! all at once (one fused launch) or step by step (the transit-parallel engine, and `auto`'s
//! mix of engines). Its samples' records are then packed on the device ([`PackedRecords`]),
//! to be downloaded or numbered there.
//!
//! A record holds a vertex and its transit per vertex added, in step order, and no step per
//! vertex: each sample keeps where each of its steps ends (8 bytes a step instead of 4 a
//! vertex: k-hop 25,10 adds 275 vertices in 2 steps), downloaded as they are and handed to
//! `SampleOutcome::set_step_ends`, which keeps them so, as the CPU engine's outcomes do, for
//! samplers of at most `MAX_IMPLIED_STEPS` steps and gives every vertex its step beyond.

use super::per_sample::Capacity;
use super::Context;
use crate::device::{DeviceBuffer, Gpu, KernelArg, KernelArgs, Shape};
use crate::error::Result;
use crate::graph::VertexId;
use crate::sample::roots::InitialSamples;
use glp_codegen::kinds::sample::engine::{SampleBatchArgs, PER_SAMPLE_WARP_THREADS};

// SAFETY: `SampleBatchArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernel's `glp_sample_batch` from the same table, checking at
// compile time that it has no padding and that every field is as wide as its C type: the
// layout of `glp_sample_batch`, byte for byte.
unsafe impl KernelArg for SampleBatchArgs {}

/// The device buffers of a batch's arena.
pub(super) struct Arena {
    /// What the kernels read: the buffers' addresses and the capacities.
    pub args: SampleBatchArgs,
    buffers: Vec<DeviceBuffer<u32>>,
    wide: Vec<DeviceBuffer<u64>>,
    combined_prefix: DeviceBuffer<f64>,
    lengths: DeviceBuffer<u64>,
    status: DeviceBuffer<u32>,
    /// The records' vertices (their transits are among `buffers`).
    vertices: DeviceBuffer<u32>,
    /// Per sample and step: where the step's vertices end in its record.
    step_ends: DeviceBuffer<u64>,
}

/// A launch's results: the status of every sample, and the records of those whose status is
/// 0, packed one after the other on the device.
pub(super) struct PackedRecords {
    /// Per sample: 0 or its status bits.
    pub status: Vec<u32>,
    /// Where each sample's record starts in the arrays, then their length (empty for a sample
    /// whose status is not 0).
    offsets: Vec<u64>,
    /// The records' vertices and transits (`None` when they hold nothing).
    arrays: Option<[DeviceBuffer<u32>; 2]>,
    /// Per sample of the launch, `steps` words: where each of its steps ends in its record
    /// (the arena's, as the kernels left them; meaningless for a sample whose status is not
    /// 0).
    step_ends: DeviceBuffer<u64>,
    steps: u32,
}

/// Packed records downloaded: each sample's at [`PackedRecords::range`], its step ends at
/// [`PackedRecords::ends_range`].
pub(super) struct HostRecords {
    pub vertices: Vec<VertexId>,
    pub sources: Vec<VertexId>,
    pub step_ends: Vec<u64>,
}

impl PackedRecords {
    /// Where the record of the launch's `k`-th sample is in the arrays.
    pub fn range(&self, k: usize) -> std::ops::Range<usize> {
        self.offsets[k] as usize..self.offsets[k + 1] as usize
    }

    /// Where the step ends of the launch's `k`-th sample are.
    pub fn ends_range(&self, k: usize) -> std::ops::Range<usize> {
        let steps = self.steps as usize;
        k * steps..(k + 1) * steps
    }

    /// The device addresses of the `k`-th sample's record in the vertices' and transits'
    /// arrays (0 for an empty record), and of its step ends.
    pub fn addresses(&self, k: usize) -> [u64; 3] {
        let [vertices, sources] = match &self.arrays {
            Some(arrays) => arrays.each_ref().map(|array| array.device_ptr() + self.offsets[k] * 4),
            None => [0; 2],
        };
        [vertices, sources, self.step_ends.device_ptr() + self.ends_range(k).start as u64 * 8]
    }

    /// The records, downloaded.
    pub fn download(&self, gpu: &Gpu) -> Result<HostRecords> {
        let step_ends = gpu.download(&self.step_ends)?;
        match &self.arrays {
            Some([vertices, sources]) => {
                Ok(HostRecords { vertices: gpu.download(vertices)?, sources: gpu.download(sources)?, step_ends })
            }
            None => Ok(HostRecords { vertices: Vec::new(), sources: Vec::new(), step_ends }),
        }
    }
}

impl Arena {
    /// The arena of samples `ids` of `initial` with regions of `capacity`, with a sorted copy
    /// of each collective sample's combined neighbourhood when `sorted`.
    pub fn alloc(
        context: &Context<'_>,
        initial: &InitialSamples,
        ids: &[u32],
        capacity: Capacity,
        sorted: bool,
        sizes: &DeviceBuffer<u32>,
        unique: &DeviceBuffer<u8>,
    ) -> Result<Arena> {
        let (gpu, schedule) = (context.gpu, context.schedule);
        let samples = ids.len();
        let mut root_offsets = Vec::with_capacity(samples + 1);
        let mut roots = Vec::new();
        let mut sorted_roots = Vec::new();
        root_offsets.push(0u64);
        for &id in ids {
            let own = initial.roots(id as usize);
            roots.extend_from_slice(own);
            let start = sorted_roots.len();
            sorted_roots.extend_from_slice(own);
            sorted_roots[start..].sort_unstable();
            root_offsets.push(roots.len() as u64);
        }
        let alloc_u32 = |what: &str, per_sample: u64| gpu.alloc_zeros::<u32>(what, samples * per_sample as usize);
        let sample_ids = gpu.upload("sample ids", ids)?;
        let roots = gpu.upload("roots", &roots)?;
        let sorted_roots = gpu.upload("sorted roots", &sorted_roots)?;
        let root_offsets = gpu.upload("root offsets", &root_offsets)?;
        let history = alloc_u32("sample histories", capacity.history)?;
        let history_starts = gpu.alloc_zeros::<u64>("history starts", samples * (schedule.sizes.len() + 2))?;
        let combined_entries = if schedule.collective { capacity.combined } else { 0 };
        let combined = alloc_u32("combined neighbourhoods", combined_entries)?;
        let combined_sources = alloc_u32("combined sources", combined_entries)?;
        let combined_prefix = gpu.alloc_zeros::<f64>("combined prefix sums", samples * combined_entries as usize)?;
        let combined_sorted = alloc_u32("sorted combined neighbourhoods", if sorted { combined_entries } else { 0 })?;
        let vertices = alloc_u32("added vertices", capacity.out)?;
        let sources = alloc_u32("added vertices' transits", capacity.out)?;
        let step_ends = gpu.alloc_zeros::<u64>("where the samples' steps end", samples * schedule.sizes.len())?;
        // Read by REPLACE's next level alone.
        let positions =
            alloc_u32("added vertices' transit positions", if schedule.replace { capacity.out } else { 0 })?;
        let lengths = gpu.alloc_zeros::<u64>("sample lengths", samples)?;
        let status = alloc_u32("sample status", 1)?;
        let args = SampleBatchArgs {
            sample_ids: sample_ids.device_ptr(),
            root_offsets: root_offsets.device_ptr(),
            roots: roots.device_ptr(),
            sorted_roots: sorted_roots.device_ptr(),
            sizes: sizes.device_ptr(),
            unique_steps: unique.device_ptr(),
            history: history.device_ptr(),
            history_starts: history_starts.device_ptr(),
            combined: combined.device_ptr(),
            combined_sources: combined_sources.device_ptr(),
            combined_prefix: combined_prefix.device_ptr(),
            combined_sorted: if sorted { combined_sorted.device_ptr() } else { 0 },
            vertices: vertices.device_ptr(),
            sources: sources.device_ptr(),
            positions: if schedule.replace { positions.device_ptr() } else { 0 },
            step_ends: step_ends.device_ptr(),
            lengths: lengths.device_ptr(),
            status: status.device_ptr(),
            cap_history: capacity.history,
            cap_combined: combined_entries,
            cap_out: capacity.out,
            samples: samples as u32,
            steps: schedule.steps(),
            collective: u32::from(schedule.collective),
            replace: u32::from(schedule.replace),
            sort_combined: u32::from(sorted),
            rows_distinct: u32::from(context.graph.rows_distinct()),
        };
        Ok(Arena {
            args,
            buffers: vec![
                sample_ids,
                roots,
                sorted_roots,
                history,
                combined,
                combined_sources,
                combined_sorted,
                positions,
                sources,
            ],
            wide: vec![root_offsets, history_starts],
            combined_prefix,
            lengths,
            status,
            vertices,
            step_ends,
        })
    }

    /// Device bytes the arena holds.
    pub fn bytes(&self) -> u64 {
        let narrow: u64 = self.buffers.iter().map(DeviceBuffer::bytes).sum();
        let wide: u64 = self.wide.iter().map(DeviceBuffer::bytes).sum();
        narrow
            + wide
            + self.combined_prefix.bytes()
            + self.lengths.bytes()
            + self.status.bytes()
            + self.vertices.bytes()
            + self.step_ends.bytes()
    }

    /// The batch's results: the status and length of every sample, then the records of
    /// those whose status is 0, packed on the device (`glp_sample_compact_records`) so that
    /// only what they hold stays there or crosses the bus (k-hop 25,10 on com-DBLP: 24.5M
    /// entries of the 87M the regions hold), with the samples' step ends. The rest of the
    /// arena is freed.
    pub fn pack(self, context: &Context<'_>) -> Result<PackedRecords> {
        let gpu = context.gpu;
        let status = gpu.download(&self.status)?;
        let lengths = gpu.download(&self.lengths)?;
        let mut offsets = Vec::with_capacity(lengths.len() + 1);
        let mut total = 0u64;
        offsets.push(0u64);
        for (&len, &state) in lengths.iter().zip(&status) {
            // A region holds at most `cap_out` entries: a longer length is not read past it.
            total += if state == 0 { len.min(self.args.cap_out) } else { 0 };
            offsets.push(total);
        }
        let (step_ends, steps) = (self.step_ends, self.args.steps);
        if total == 0 {
            return Ok(PackedRecords { status, offsets, arrays: None, step_ends, steps });
        }
        let device_offsets = gpu.upload("record offsets", &offsets)?;
        let vertices = gpu.alloc_zeros::<u32>("packed records", total as usize)?;
        let sources = gpu.alloc_zeros::<u32>("packed records' transits", total as usize)?;
        let args = KernelArgs::new().value(self.args).buffer(&device_offsets).buffer(&vertices).buffer(&sources);
        let shape = Shape::covering(lengths.len() as u64 * 32, PER_SAMPLE_WARP_THREADS)?;
        gpu.launch(&context.module.module.kernel("glp_sample_compact_records")?, shape, &args)?;
        Ok(PackedRecords { status, offsets, arrays: Some([vertices, sources]), step_ends, steps })
    }
}
