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
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::sample::roots::InitialSamples;
use crate::sample::schedule::Schedule;
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

    /// The step ends, for a test to write ends that do not fit over them.
    #[cfg(test)]
    pub fn step_ends_mut(&mut self) -> &mut DeviceBuffer<u64> {
        &mut self.step_ends
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

/// The arena's buffers that take entries for every sample of a batch, as data: what each
/// holds, the bytes of an entry and the entries a sample takes. [`Arena::alloc`] and
/// [`Arena::pack`] allocate from this table and [`bytes_per_sample`] adds it up, so that the
/// batch size an engine picks from a memory budget counts what the arena takes. (The roots, as
/// many as the samples have, are apart; so are the one extra entry of the two offset arrays.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArenaBuffer {
    SampleIds,
    RootOffsets,
    History,
    HistoryStarts,
    Combined,
    CombinedSources,
    CombinedPrefix,
    CombinedSorted,
    Vertices,
    Sources,
    Positions,
    StepEnds,
    Lengths,
    Status,
    PackedOffsets,
    PackedVertices,
    PackedSources,
}

impl ArenaBuffer {
    const ALL: [ArenaBuffer; 17] = [
        ArenaBuffer::SampleIds,
        ArenaBuffer::RootOffsets,
        ArenaBuffer::History,
        ArenaBuffer::HistoryStarts,
        ArenaBuffer::Combined,
        ArenaBuffer::CombinedSources,
        ArenaBuffer::CombinedPrefix,
        ArenaBuffer::CombinedSorted,
        ArenaBuffer::Vertices,
        ArenaBuffer::Sources,
        ArenaBuffer::Positions,
        ArenaBuffer::StepEnds,
        ArenaBuffer::Lengths,
        ArenaBuffer::Status,
        ArenaBuffer::PackedOffsets,
        ArenaBuffer::PackedVertices,
        ArenaBuffer::PackedSources,
    ];

    /// What it holds: its device allocation's name.
    fn what(self) -> &'static str {
        match self {
            ArenaBuffer::SampleIds => "sample ids",
            ArenaBuffer::RootOffsets => "root offsets",
            ArenaBuffer::History => "sample histories",
            ArenaBuffer::HistoryStarts => "history starts",
            ArenaBuffer::Combined => "combined neighbourhoods",
            ArenaBuffer::CombinedSources => "combined sources",
            ArenaBuffer::CombinedPrefix => "combined prefix sums",
            ArenaBuffer::CombinedSorted => "sorted combined neighbourhoods",
            ArenaBuffer::Vertices => "added vertices",
            ArenaBuffer::Sources => "added vertices' transits",
            ArenaBuffer::Positions => "added vertices' transit positions",
            ArenaBuffer::StepEnds => "where the samples' steps end",
            ArenaBuffer::Lengths => "sample lengths",
            ArenaBuffer::Status => "sample status",
            ArenaBuffer::PackedOffsets => "record offsets",
            ArenaBuffer::PackedVertices => "packed records",
            ArenaBuffer::PackedSources => "packed records' transits",
        }
    }

    /// Bytes of an entry.
    fn entry_bytes(self) -> usize {
        match self {
            ArenaBuffer::RootOffsets
            | ArenaBuffer::HistoryStarts
            | ArenaBuffer::CombinedPrefix
            | ArenaBuffer::StepEnds
            | ArenaBuffer::Lengths
            | ArenaBuffer::PackedOffsets => 8,
            _ => 4,
        }
    }

    /// Entries a sample takes in regions of `capacity` under `schedule`, with a sorted copy of
    /// each combined neighbourhood when `sorted`: the packed records at most their region.
    fn entries(self, capacity: Capacity, schedule: &Schedule, sorted: bool) -> u64 {
        let combined = if schedule.collective { capacity.combined } else { 0 };
        match self {
            ArenaBuffer::SampleIds
            | ArenaBuffer::RootOffsets
            | ArenaBuffer::Lengths
            | ArenaBuffer::Status
            | ArenaBuffer::PackedOffsets => 1,
            ArenaBuffer::History => capacity.history,
            // Where each level starts (the roots', each step's, and the end).
            ArenaBuffer::HistoryStarts => u64::from(schedule.steps()) + 2,
            ArenaBuffer::Combined | ArenaBuffer::CombinedSources | ArenaBuffer::CombinedPrefix => combined,
            ArenaBuffer::CombinedSorted => {
                if sorted {
                    combined
                } else {
                    0
                }
            }
            ArenaBuffer::Vertices | ArenaBuffer::Sources | ArenaBuffer::PackedVertices | ArenaBuffer::PackedSources => {
                capacity.out
            }
            // Read by REPLACE's next level alone.
            ArenaBuffer::Positions => {
                if schedule.replace {
                    capacity.out
                } else {
                    0
                }
            }
            ArenaBuffer::StepEnds => u64::from(schedule.steps()),
        }
    }
}

/// Device bytes one sample of a batch takes in an arena of regions of `capacity` under
/// `schedule` (with a sorted copy of its combined neighbourhood when `sorted`), its roots
/// apart: what [`Arena::alloc`] and [`Arena::pack`] allocate ([`ArenaBuffer`]), or `None`
/// beyond `u64`.
pub(super) fn bytes_per_sample(capacity: Capacity, schedule: &Schedule, sorted: bool) -> Option<u64> {
    ArenaBuffer::ALL.iter().try_fold(0u64, |sum, buffer| {
        sum.checked_add(buffer.entries(capacity, schedule, sorted).checked_mul(buffer.entry_bytes() as u64)?)
    })
}

/// Refuses (an engine's bug) to hold `buffer` in entries of `T` unless they are its width.
fn check_width<T>(buffer: ArenaBuffer) -> Result<()> {
    if std::mem::size_of::<T>() == buffer.entry_bytes() {
        return Ok(());
    }
    Err(Error::invalid(format!("internal: the arena's {} held in entries of another width", buffer.what())))
}

/// Entries of `buffer`, of `T`, for `samples` samples of `per_sample` entries each: refused
/// unless `T` is its width ([`check_width`]), or beyond `usize`.
fn entries_of<T>(buffer: ArenaBuffer, samples: usize, per_sample: u64) -> Result<usize> {
    check_width::<T>(buffer)?;
    usize::try_from(per_sample)
        .ok()
        .and_then(|per_sample| samples.checked_mul(per_sample))
        .ok_or_else(|| Error::TooLarge(format!("the arena's {} for {samples} samples", buffer.what())))
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
        let entries = |buffer: ArenaBuffer| buffer.entries(capacity, schedule, sorted);
        let alloc_u32 = |buffer: ArenaBuffer| {
            gpu.alloc_zeros::<u32>(buffer.what(), entries_of::<u32>(buffer, samples, entries(buffer))?)
        };
        let alloc_u64 = |buffer: ArenaBuffer| {
            gpu.alloc_zeros::<u64>(buffer.what(), entries_of::<u64>(buffer, samples, entries(buffer))?)
        };
        check_width::<u32>(ArenaBuffer::SampleIds)?;
        let sample_ids = gpu.upload(ArenaBuffer::SampleIds.what(), ids)?;
        let roots = gpu.upload("roots", &roots)?;
        let sorted_roots = gpu.upload("sorted roots", &sorted_roots)?;
        check_width::<u64>(ArenaBuffer::RootOffsets)?;
        let root_offsets = gpu.upload(ArenaBuffer::RootOffsets.what(), &root_offsets)?;
        let history = alloc_u32(ArenaBuffer::History)?;
        let history_starts = alloc_u64(ArenaBuffer::HistoryStarts)?;
        let combined = alloc_u32(ArenaBuffer::Combined)?;
        let combined_sources = alloc_u32(ArenaBuffer::CombinedSources)?;
        let combined_prefix = gpu.alloc_zeros::<f64>(
            ArenaBuffer::CombinedPrefix.what(),
            entries_of::<f64>(ArenaBuffer::CombinedPrefix, samples, entries(ArenaBuffer::CombinedPrefix))?,
        )?;
        let combined_sorted = alloc_u32(ArenaBuffer::CombinedSorted)?;
        let vertices = alloc_u32(ArenaBuffer::Vertices)?;
        let sources = alloc_u32(ArenaBuffer::Sources)?;
        let step_ends = alloc_u64(ArenaBuffer::StepEnds)?;
        let positions = alloc_u32(ArenaBuffer::Positions)?;
        let lengths = alloc_u64(ArenaBuffer::Lengths)?;
        let status = alloc_u32(ArenaBuffer::Status)?;
        let combined_entries = entries(ArenaBuffer::Combined);
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
        check_width::<u64>(ArenaBuffer::PackedOffsets)?;
        let device_offsets = gpu.upload(ArenaBuffer::PackedOffsets.what(), &offsets)?;
        // At most `cap_out` entries a sample, as `ArenaBuffer::entries` counts them.
        let packed = |buffer: ArenaBuffer| {
            check_width::<u32>(buffer)?;
            gpu.alloc_zeros::<u32>(buffer.what(), total as usize)
        };
        let vertices = packed(ArenaBuffer::PackedVertices)?;
        let sources = packed(ArenaBuffer::PackedSources)?;
        let args = KernelArgs::new().value(self.args).buffer(&device_offsets).buffer(&vertices).buffer(&sources);
        let shape = Shape::covering(lengths.len() as u64 * 32, PER_SAMPLE_WARP_THREADS)?;
        gpu.launch(&context.module.module.kernel("glp_sample_compact_records")?, shape, &args)?;
        Ok(PackedRecords { status, offsets, arrays: Some([vertices, sources]), step_ends, steps })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_takes_the_bytes_of_its_regions_and_bookkeeping() {
        // k-hop 25,10: a history of 26 (4 bytes each), 4 level starts and 2 step ends (8 each),
        // 275 added vertices and transits (4 each) packed into as many again, and its id (4),
        // root offset (8), length (8), status (4) and packed record's offset (8).
        let k_hop = Capacity { history: 26, combined: 1000, out: 275 };
        let expected = 26 * 4 + 6 * 8 + 275 * (4 + 4) * 2 + 4 + 8 + 8 + 4 + 8;
        assert_eq!(bytes_per_sample(k_hop, &Schedule::of_sizes(&[25, 10], false, false), true), Some(expected));
        // Collective with REPLACE and a sorted copy: a combined entry is a vertex, its source,
        // its prefix sum and its sorted copy (4 + 4 + 8 + 4); a record entry has a position.
        let layer = Capacity { history: 66, combined: 640, out: 96 };
        let collective = Schedule::of_sizes(&[64, 32], true, true);
        let record = 96 * (4 + 4 + 4) + 96 * 8;
        let expected = 66 * 4 + 6 * 8 + 640 * 20 + record + 32;
        assert_eq!(bytes_per_sample(layer, &collective, true), Some(expected));
        assert_eq!(bytes_per_sample(layer, &collective, false), Some(expected - 640 * 4));
        // Beyond u64: none.
        let huge = Capacity { history: u64::MAX / 2, combined: 1, out: 1 };
        assert_eq!(bytes_per_sample(huge, &collective, false), None);
    }

    #[test]
    fn a_buffer_is_held_in_entries_of_its_width() {
        assert!(entries_of::<u32>(ArenaBuffer::History, 3, 7).is_ok_and(|n| n == 21));
        assert!(entries_of::<u64>(ArenaBuffer::History, 3, 7).is_err());
        assert!(entries_of::<f64>(ArenaBuffer::CombinedPrefix, 3, 7).is_ok());
        assert!(entries_of::<u32>(ArenaBuffer::StepEnds, 3, 7).is_err());
        assert!(entries_of::<u32>(ArenaBuffer::Vertices, usize::MAX, 2).is_err());
    }
}
