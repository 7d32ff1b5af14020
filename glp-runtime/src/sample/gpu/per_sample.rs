//! The per-sample engine: any sampler, one thread per sample (see the [module docs](super)).
//!
//! A batch is one launch of `glp_sample_per_sample` over an arena where every sample has a
//! region of the same capacity for its history (the transits of every step), its combined
//! neighbourhood (collective samplers) and its added vertices. Capacities start at the
//! schedule's bound (what the sample could reach, from its roots, the draws per step and the
//! largest degree) capped at a few thousand entries; a sample that outgrows its region stops
//! with an overflow status and runs again in a later launch with four times the capacity it
//! lacked, until it fits or needs more memory than allowed.

use super::{replayed_failure, Context, GpuSampleStats};
use crate::device::{DeviceBuffer, KernelArg, KernelArgs, Shape};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::sample::engine::Record;
use crate::sample::outcome::SampleOutcome;
use crate::sample::roots::InitialSamples;
use crate::sample::sampler::ALL_NEIGHBOURS;
use crate::sample::schedule::Schedule;
use glp_codegen::kinds::sample::engine::{
    SampleBatchArgs, FAILED, OVERFLOW_COMBINED, OVERFLOW_HISTORY, OVERFLOW_OUT, PER_SAMPLE_THREADS,
    PER_SAMPLE_WARP_THREADS,
};
use glp_codegen::kinds::sample::layout::SampleViewArgs;
use std::collections::HashMap;

// SAFETY: `SampleBatchArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernel's `glp_sample_batch` from the same table, checking at
// compile time that it has no padding and that every field is as wide as its C type: the
// layout of `glp_sample_batch`, byte for byte.
unsafe impl KernelArg for SampleBatchArgs {}

/// The capacities regions start with, at most (entries): enough for the usual samplers'
/// samples (k-hop 25 x 10 adds 275 vertices) without reserving hubs' worth for every sample.
const START_HISTORY: u64 = 4096;
const START_OUT: u64 = 4096;
const START_COMBINED: u64 = 16384;

/// How much a capacity a sample outgrew grows for its next run.
const GROWTH: u64 = 4;

/// Entries of a sample's region, per part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Capacity {
    history: u64,
    combined: u64,
    out: u64,
}

impl Capacity {
    /// What a sample with at most `roots` roots can reach under `schedule` on a graph whose
    /// largest degree is `max_degree` (saturating: `u64::MAX` for "no bound").
    fn bound(schedule: &Schedule, roots: u64, max_degree: u64) -> Capacity {
        let mut transits = roots;
        let mut bound = Capacity { history: roots, combined: 0, out: 0 };
        let steps = schedule.sizes.len();
        for (step, &size) in schedule.sizes.iter().enumerate() {
            let draws = if size == ALL_NEIGHBOURS { max_degree } else { u64::from(size) };
            let entries = transits.saturating_mul(max_degree);
            let added = if !schedule.collective {
                transits.saturating_mul(draws)
            } else if size == ALL_NEIGHBOURS {
                entries
            } else {
                draws
            };
            if schedule.collective {
                bound.combined = bound.combined.max(entries);
            }
            bound.out = bound.out.saturating_add(added);
            if step + 1 < steps {
                transits = if schedule.replace { roots } else { added };
                bound.history = bound.history.saturating_add(transits);
            }
        }
        bound
    }

    /// The capacities a run starts with.
    fn start(bound: Capacity) -> Capacity {
        Capacity {
            history: bound.history.clamp(1, START_HISTORY),
            combined: bound.combined.clamp(1, START_COMBINED),
            out: bound.out.clamp(1, START_OUT),
        }
    }

    /// The capacities after overflows `bits`, within `bound`.
    fn grown(self, bits: u32, bound: Capacity) -> Capacity {
        let grow = |capacity: u64, bit: u32, limit: u64| {
            if bits & bit != 0 {
                capacity.saturating_mul(GROWTH).min(limit).max(capacity)
            } else {
                capacity
            }
        };
        Capacity {
            history: grow(self.history, OVERFLOW_HISTORY, bound.history),
            combined: grow(self.combined, OVERFLOW_COMBINED, bound.combined),
            out: grow(self.out, OVERFLOW_OUT, bound.out),
        }
    }

    /// Device bytes of one sample's region and bookkeeping (roots apart), or `None` beyond
    /// `u64`.
    fn bytes_per_sample(self, steps: u32, collective: bool, sorted: bool) -> Option<u64> {
        let combined_entry = if collective { 4 + 4 + 8 + if sorted { 4 } else { 0 } } else { 0 };
        self.history
            .checked_mul(4)?
            .checked_add((u64::from(steps) + 2).checked_mul(8)?)?
            .checked_add(self.combined.checked_mul(combined_entry)?)?
            .checked_add(self.out.checked_mul(16)?)?
            .checked_add(8 + 4 + 4 + 8)
    }
}

/// A batch's results, downloaded.
struct BatchResult {
    status: Vec<u32>,
    lengths: Vec<u64>,
    vertices: Vec<VertexId>,
    sources: Vec<VertexId>,
    steps: Vec<u32>,
    /// The output region's capacity (the stride of the three arrays above).
    out: u64,
}

impl BatchResult {
    /// The record of the batch's `k`-th sample.
    fn range(&self, k: usize) -> std::ops::Range<usize> {
        let start = k * self.out as usize;
        start..start + self.lengths[k] as usize
    }
}

/// What stays the same across a run's batches.
struct Run<'c, 'r> {
    context: &'c Context<'r>,
    initial: &'c InitialSamples,
    sizes: DeviceBuffer<u32>,
    unique: DeviceBuffer<u8>,
    fault: DeviceBuffer<u64>,
    /// The hooks call `combined_count`, or some step draws without replacement: collective
    /// samples sort their combined neighbourhoods.
    sorted: bool,
    bound: Capacity,
    /// A warp per sample (`glp_sample_per_sample_warp`): some step draws from each transit
    /// independently (individual, with replacement), which the warp's threads share.
    warp: bool,
    stats: GpuSampleStats,
}

/// Runs the samples of `initial`.
pub(super) fn run(context: &Context<'_>, initial: &InitialSamples) -> Result<(SampleOutcome, GpuSampleStats)> {
    let gpu = context.gpu;
    let schedule = context.schedule;
    let max_roots = (0..initial.len()).map(|i| initial.roots(i).len() as u64).max().unwrap_or(1);
    let unique: Vec<u8> = schedule.unique.iter().map(|&u| u8::from(u)).collect();
    let warp = !schedule.collective && schedule.unique.contains(&false);
    let mut run = Run {
        context,
        initial,
        sizes: gpu.upload("the steps' draw counts", &schedule.sizes)?,
        unique: gpu.upload("the steps' draw rules", &unique)?,
        fault: gpu.alloc_zeros("fault record", 2)?,
        sorted: schedule.collective
            && (context.sampler.features().contains(&"combined_count") || schedule.unique.contains(&true)),
        bound: Capacity::bound(schedule, max_roots, context.graph.max_degree()),
        warp,
        stats: GpuSampleStats {
            engine: if warp { "warp-per-sample" } else { "per-sample" },
            ..GpuSampleStats::default()
        },
    };
    let capacity = Capacity::start(run.bound);
    let batch = run.batch_size(capacity, initial.len() as u64)?;
    let mut outcome = SampleOutcome::with_roots(initial);
    let ids: Vec<u32> = (0..initial.len() as u32).collect();
    for chunk in ids.chunks(batch) {
        let result = run.launch(chunk, capacity)?;
        run.check_failures(chunk, &result)?;
        let overflowed: Vec<(u32, u32)> = chunk
            .iter()
            .zip(&result.status)
            .filter(|(_, &status)| status != 0)
            .map(|(&id, &status)| (id, status))
            .collect();
        let mut rerun = run.rerun(overflowed, capacity)?;
        for (k, &id) in chunk.iter().enumerate() {
            match rerun.remove(&id) {
                Some(record) => outcome.push(&record.vertices, &record.sources, &record.steps),
                None => {
                    let range = result.range(k);
                    outcome.push(&result.vertices[range.clone()], &result.sources[range.clone()], &result.steps[range])
                }
            }
        }
    }
    Ok((outcome, run.stats))
}

impl Run<'_, '_> {
    /// Samples per launch at `capacity` (at most `samples`).
    fn batch_size(&self, capacity: Capacity, samples: u64) -> Result<usize> {
        let schedule = self.context.schedule;
        let per_sample = capacity
            .bytes_per_sample(schedule.steps(), schedule.collective, self.sorted)
            .filter(|&bytes| bytes <= self.context.budget)
            .ok_or_else(|| {
                Error::TooLarge(format!(
                    "sampler `{}`: a sample needs regions of {} history, {} combined and {} added entries, more than \
                     the {} bytes of device memory allowed",
                    schedule.name, capacity.history, capacity.combined, capacity.out, self.context.budget
                ))
            })?;
        Ok((self.context.budget / per_sample).min(samples).clamp(1, u64::from(u32::MAX)) as usize)
    }

    /// The first failed sample of a launch, replayed on the CPU for its error.
    fn check_failures(&self, ids: &[u32], result: &BatchResult) -> Result<()> {
        match ids.iter().zip(&result.status).filter(|(_, &s)| s & FAILED != 0).map(|(&id, _)| id).min() {
            Some(id) => Err(replayed_failure(self.context, self.initial, u64::from(id))),
            None => Ok(()),
        }
    }

    /// Runs `overflowed` samples (id, status bits) again with grown capacities until each
    /// fits; their records by id.
    fn rerun(&mut self, mut overflowed: Vec<(u32, u32)>, mut capacity: Capacity) -> Result<HashMap<u32, Record>> {
        let mut records = HashMap::new();
        while !overflowed.is_empty() {
            let bits = overflowed.iter().fold(0, |bits, &(_, status)| bits | status);
            let grown = capacity.grown(bits, self.bound);
            if grown == capacity {
                return Err(Error::Gpu(format!(
                    "sampler `{}`: sample {} outgrew the bound of its regions",
                    self.context.schedule.name, overflowed[0].0
                )));
            }
            capacity = grown;
            self.stats.rerun_samples += overflowed.len() as u64;
            let ids: Vec<u32> = overflowed.iter().map(|&(id, _)| id).collect();
            let batch = self.batch_size(capacity, ids.len() as u64)?;
            overflowed.clear();
            for chunk in ids.chunks(batch) {
                let result = self.launch(chunk, capacity)?;
                self.check_failures(chunk, &result)?;
                for (k, (&id, &status)) in chunk.iter().zip(&result.status).enumerate() {
                    if status != 0 {
                        overflowed.push((id, status));
                        continue;
                    }
                    let range = result.range(k);
                    records.insert(
                        id,
                        Record {
                            vertices: result.vertices[range.clone()].to_vec(),
                            sources: result.sources[range.clone()].to_vec(),
                            steps: result.steps[range].to_vec(),
                        },
                    );
                }
            }
        }
        Ok(records)
    }

    /// One launch over the samples `ids` with regions of `capacity`.
    fn launch(&mut self, ids: &[u32], capacity: Capacity) -> Result<BatchResult> {
        let context = self.context;
        let (gpu, schedule) = (context.gpu, context.schedule);
        let samples = ids.len();
        let mut root_offsets = Vec::with_capacity(samples + 1);
        let mut roots = Vec::new();
        let mut sorted_roots = Vec::new();
        root_offsets.push(0u64);
        for &id in ids {
            let own = self.initial.roots(id as usize);
            roots.extend_from_slice(own);
            let start = sorted_roots.len();
            sorted_roots.extend_from_slice(own);
            sorted_roots[start..].sort_unstable();
            root_offsets.push(roots.len() as u64);
        }
        let alloc_u32 = |what: &str, per_sample: u64| gpu.alloc_zeros::<u32>(what, samples * per_sample as usize);
        let sample_ids = gpu.upload("sample ids", ids)?;
        let root_offsets = gpu.upload("root offsets", &root_offsets)?;
        let roots = gpu.upload("roots", &roots)?;
        let sorted_roots = gpu.upload("sorted roots", &sorted_roots)?;
        let history = alloc_u32("sample histories", capacity.history)?;
        let history_starts = gpu.alloc_zeros::<u64>("history starts", samples * (schedule.sizes.len() + 2))?;
        let combined_entries = if schedule.collective { capacity.combined } else { 0 };
        let combined = alloc_u32("combined neighbourhoods", combined_entries)?;
        let combined_sources = alloc_u32("combined sources", combined_entries)?;
        let combined_prefix = gpu.alloc_zeros::<f64>("combined prefix sums", samples * combined_entries as usize)?;
        let combined_sorted =
            if self.sorted { Some(alloc_u32("sorted combined neighbourhoods", combined_entries)?) } else { None };
        let vertices = alloc_u32("added vertices", capacity.out)?;
        let sources = alloc_u32("added vertices' transits", capacity.out)?;
        let steps = alloc_u32("added vertices' steps", capacity.out)?;
        let positions = alloc_u32("added vertices' transit positions", capacity.out)?;
        let lengths = gpu.alloc_zeros::<u64>("sample lengths", samples)?;
        let status = alloc_u32("sample status", 1)?;
        let held = [
            sample_ids.bytes(),
            root_offsets.bytes(),
            roots.bytes(),
            sorted_roots.bytes(),
            history.bytes(),
            history_starts.bytes(),
            combined.bytes(),
            combined_sources.bytes(),
            combined_prefix.bytes(),
            combined_sorted.as_ref().map_or(0, DeviceBuffer::bytes),
            vertices.bytes() * 4,
            lengths.bytes(),
            status.bytes(),
        ];
        self.stats.device_bytes = self.stats.device_bytes.max(held.iter().sum());
        let batch = SampleBatchArgs {
            sample_ids: sample_ids.device_ptr(),
            root_offsets: root_offsets.device_ptr(),
            roots: roots.device_ptr(),
            sorted_roots: sorted_roots.device_ptr(),
            sizes: self.sizes.device_ptr(),
            unique_steps: self.unique.device_ptr(),
            history: history.device_ptr(),
            history_starts: history_starts.device_ptr(),
            combined: combined.device_ptr(),
            combined_sources: combined_sources.device_ptr(),
            combined_prefix: combined_prefix.device_ptr(),
            combined_sorted: combined_sorted.as_ref().map_or(0, DeviceBuffer::device_ptr),
            vertices: vertices.device_ptr(),
            sources: sources.device_ptr(),
            out_steps: steps.device_ptr(),
            positions: positions.device_ptr(),
            lengths: lengths.device_ptr(),
            status: status.device_ptr(),
            cap_history: capacity.history,
            cap_combined: combined_entries,
            cap_out: capacity.out,
            samples: samples as u32,
            steps: schedule.steps(),
            collective: u32::from(schedule.collective),
            replace: u32::from(schedule.replace),
            sort_combined: u32::from(self.sorted),
            rows_distinct: u32::from(context.graph.rows_distinct()),
        };
        let view = SampleViewArgs { fault: self.fault.device_ptr(), ..context.graph.view() };
        let (kernel, shape) = if self.warp {
            ("glp_sample_per_sample_warp", Shape::covering(samples as u64 * 32, PER_SAMPLE_WARP_THREADS)?)
        } else {
            ("glp_sample_per_sample", Shape::covering(samples as u64, PER_SAMPLE_THREADS)?)
        };
        let kernel = context.module.module.kernel(kernel)?;
        let args = KernelArgs::new().bytes(&context.module.params).value(view).value(batch).value(context.seed);
        let start = gpu.record()?;
        gpu.launch(&kernel, shape, &args)?;
        let end = gpu.record()?;
        self.stats.kernel_ms += gpu.elapsed_ms(&start, &end)?;
        self.stats.batches += 1;
        let record = gpu.download(&self.fault)?;
        if let Some(error) = context.module.loop_fault(&record, view.loop_budget, "in a sample") {
            return Err(error);
        }
        Ok(BatchResult {
            status: gpu.download(&status)?,
            lengths: gpu.download(&lengths)?,
            vertices: gpu.download(&vertices)?,
            sources: gpu.download(&sources)?,
            steps: gpu.download(&steps)?,
            out: capacity.out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(sizes: Vec<u32>, collective: bool, replace: bool) -> Schedule {
        let unique = vec![false; sizes.len()];
        Schedule { name: "test".into(), sizes, unique, collective, replace }
    }

    #[test]
    fn the_bound_of_k_hop_is_its_fan_out_products() {
        // One root, fan-outs 25 then 10: 25 + 250 added; history 1 + 25 transits.
        let bound = Capacity::bound(&schedule(vec![25, 10], false, false), 1, 1000);
        assert_eq!(bound, Capacity { history: 26, combined: 0, out: 275 });
    }

    #[test]
    fn the_bound_of_a_collective_layer_sampler_is_its_sizes_and_the_largest_rows() {
        // Two roots, 64 then 32 draws from the combined neighbourhood, degree at most 10:
        // combined at most max(2, 64) x 10 entries.
        let bound = Capacity::bound(&schedule(vec![64, 32], true, false), 2, 10);
        assert_eq!(bound, Capacity { history: 2 + 64, combined: 640, out: 96 });
    }

    #[test]
    fn replace_keeps_the_transit_count_and_all_neighbours_saturates() {
        let bound = Capacity::bound(&schedule(vec![1, 1, 1], false, true), 3, 5);
        assert_eq!(bound, Capacity { history: 9, combined: 0, out: 9 });
        let all = Capacity::bound(&schedule(vec![ALL_NEIGHBOURS; 40], false, false), 1, u64::MAX / 2);
        assert_eq!(all.out, u64::MAX);
    }

    #[test]
    fn capacities_start_capped_and_grow_only_where_they_overflowed_within_the_bound() {
        let bound = Capacity { history: 10, combined: 1 << 40, out: 20_000 };
        let start = Capacity::start(bound);
        assert_eq!(start, Capacity { history: 10, combined: START_COMBINED, out: START_OUT });
        let grown = start.grown(OVERFLOW_OUT, bound);
        assert_eq!(grown, Capacity { out: 16384, ..start });
        assert_eq!(grown.grown(OVERFLOW_OUT, bound).out, 20_000);
        assert_eq!(start.grown(OVERFLOW_HISTORY, bound), start, "the history is at its bound: no growth");
    }
}
