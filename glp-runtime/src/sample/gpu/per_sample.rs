//! Samples in batches over an arena ([`arena`](super::arena)): any sampler, on the
//! sample-parallel engine in one launch per batch (a thread or a warp per sample) or step by
//! step ([`steps`](super::steps): transit-parallel steps, or `auto`'s mix).
//!
//! Every sample of a batch has a region of the same capacity for its history (the transits of
//! every step), its combined neighbourhood (collective samplers) and its added vertices. Capacities start at the
//! schedule's bound (what the sample could reach, from its roots, the draws per step and the
//! largest degree) capped at a few thousand entries; a sample that outgrows its region stops
//! with an overflow status and runs again in a later launch with four times the capacity it
//! lacked, until it fits or needs more memory than allowed.

use super::arena::{self, Arena, PackedRecords};
use super::choice::Plan;
use super::steps;
use super::{replayed_failure, Context, GpuSampleStats};
use crate::device::{DeviceBuffer, Gpu, KernelArgs, Shape};
use crate::error::{Error, Result};
use crate::sample::outcome::SampleOutcome;
use crate::sample::roots::InitialSamples;
use crate::sample::sampler::ALL_NEIGHBOURS;
use crate::sample::schedule::Schedule;
use crate::sample::sink::Handoff;
use glp_codegen::kinds::sample::engine::{
    FAILED, OVERFLOW_COMBINED, OVERFLOW_HISTORY, OVERFLOW_OUT, PER_SAMPLE_THREADS, PER_SAMPLE_WARP_THREADS,
};
use glp_codegen::kinds::sample::layout::SampleViewArgs;
use std::collections::HashMap;

/// The capacities regions start with, at most (entries): enough for the usual samplers'
/// samples (k-hop 25 x 10 adds 275 vertices) without reserving hubs' worth for every sample.
const START_HISTORY: u64 = 4096;
const START_OUT: u64 = 4096;
const START_COMBINED: u64 = 16384;

/// How much a capacity a sample outgrew grows for its next run.
const GROWTH: u64 = 4;

/// Entries of a sample's region, per part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Capacity {
    pub history: u64,
    pub combined: u64,
    pub out: u64,
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
}

/// The kernel of a fused launch (every step of a batch's samples in one launch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fused {
    /// `glp_sample_per_sample`: a thread per sample (collective samplers, and samplers whose
    /// every step draws without replacement: their draws are sequential).
    PerSample,
    /// `glp_sample_per_sample_warp`: a warp per sample, whose threads share the draws of the
    /// individual steps with replacement (each independent of the others).
    Warp,
    /// `glp_sample_per_sample_draws`: the same kernel for samplers whose every step is such a
    /// step and whose transits are ADDED (k-hop with replacement), in fewer registers: it has
    /// no REPLACE levels and writes no transit positions.
    Draws,
}

impl Fused {
    fn of(schedule: &Schedule) -> Fused {
        let draws_with_replacement = schedule.unique.contains(&false);
        match (schedule.collective, draws_with_replacement, schedule.unique.contains(&true)) {
            (false, true, false) if !schedule.replace => Fused::Draws,
            (false, true, _) => Fused::Warp,
            _ => Fused::PerSample,
        }
    }

    fn kernel(self) -> &'static str {
        match self {
            Fused::PerSample => "glp_sample_per_sample",
            Fused::Warp => "glp_sample_per_sample_warp",
            Fused::Draws => "glp_sample_per_sample_draws",
        }
    }

    /// The engine's name in statistics (both warp kernels are one engine).
    fn engine(self) -> &'static str {
        match self {
            Fused::PerSample => "per-sample",
            Fused::Warp | Fused::Draws => "warp-per-sample",
        }
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
    /// The kernel of fused launches.
    fused: Fused,
    plan: Plan,
    stats: GpuSampleStats,
}

/// A batch's samples' records as the engine left them on the device: each sample's in the
/// packed records of the launch that completed it (the batch's own, or one that ran it again
/// with larger regions).
pub(super) struct BatchRecords {
    /// The run's index of the batch's first sample.
    pub first: usize,
    /// The batch's launches' records: its own launch's, then those of its samples run again.
    pub launches: Vec<PackedRecords>,
    /// Per sample of the batch, in order: the launch that completed it and its index there.
    pub at: Vec<(usize, usize)>,
}

impl BatchRecords {
    /// The batch's samples, downloaded: their records as the CPU engine's, with their steps
    /// implied by where each step ends.
    fn download(&self, gpu: &Gpu, initial: &InitialSamples, steps: u32) -> Result<SampleOutcome> {
        let records = self.launches.iter().map(|launch| launch.download(gpu)).collect::<Result<Vec<_>>>()?;
        let mut outcome = SampleOutcome::with_roots_of(initial, self.first..self.first + self.at.len());
        let added = self.at.iter().map(|&(launch, k)| self.launches[launch].range(k).len()).sum();
        let (mut sources, mut step_ends) =
            (Vec::with_capacity(added), Vec::with_capacity(self.at.len() * steps as usize));
        for &(launch, k) in &self.at {
            let (host, packed) = (&records[launch], &self.launches[launch]);
            let range = packed.range(k);
            outcome.push_vertices(&host.vertices[range.clone()]);
            sources.extend_from_slice(&host.sources[range]);
            step_ends.extend_from_slice(&host.step_ends[packed.ends_range(k)]);
        }
        outcome.set_step_ends(sources, steps, step_ends)?;
        Ok(outcome)
    }
}

/// Runs the samples of `initial`, handing each batch over as it completes.
pub(super) fn run(
    context: &Context<'_>,
    initial: &InitialSamples,
    plan: Plan,
    handoff: &mut Handoff<SampleOutcome>,
) -> Result<GpuSampleStats> {
    let steps = context.schedule.steps();
    run_batches(context, initial, plan, |batch| handoff.send(batch.download(context.gpu, initial, steps)?))
}

/// Runs the samples of `initial` batch by batch, giving each batch's records to `complete`
/// on the device, in sample order.
pub(super) fn run_batches(
    context: &Context<'_>,
    initial: &InitialSamples,
    plan: Plan,
    mut complete: impl FnMut(BatchRecords) -> Result<()>,
) -> Result<GpuSampleStats> {
    let gpu = context.gpu;
    let schedule = context.schedule;
    let max_roots = (0..initial.len()).map(|i| initial.roots(i).len() as u64).max().unwrap_or(1);
    let unique: Vec<u8> = schedule.unique.iter().map(|&u| u8::from(u)).collect();
    let fused = Fused::of(schedule);
    let mut run = Run {
        context,
        initial,
        sizes: gpu.upload("the steps' draw counts", &schedule.sizes)?,
        unique: gpu.upload("the steps' draw rules", &unique)?,
        fault: gpu.alloc_zeros("fault record", 2)?,
        sorted: schedule.collective
            && (context.sampler.features().contains(&"combined_count") || schedule.unique.contains(&true)),
        bound: Capacity::bound(schedule, max_roots, context.graph.max_degree()),
        fused,
        stats: GpuSampleStats {
            engine: match &plan {
                Plan::Steps(_) => "step-by-step",
                Plan::Fused => fused.engine(),
            },
            step_engines: match &plan {
                Plan::Steps(engines) => engines.iter().map(|e| e.name()).collect(),
                Plan::Fused => Vec::new(),
            },
            ..GpuSampleStats::default()
        },
        plan,
    };
    let capacity = Capacity::start(run.bound);
    let batch = run.batch_size(capacity, initial.len() as u64)?;
    let ids: Vec<u32> = (0..initial.len() as u32).collect();
    for chunk in ids.chunks(batch) {
        let records = run.launch(chunk, capacity)?;
        run.check_failures(chunk, &records.status)?;
        let overflowed: Vec<(u32, u32)> = chunk
            .iter()
            .zip(&records.status)
            .filter(|(_, &status)| status != 0)
            .map(|(&id, &status)| (id, status))
            .collect();
        let mut launches = vec![records];
        let mut rerun = run.rerun(overflowed, capacity, &mut launches)?;
        let at = chunk.iter().enumerate().map(|(k, id)| rerun.remove(id).unwrap_or((0, k))).collect();
        complete(BatchRecords { first: chunk[0] as usize, launches, at })?;
    }
    Ok(run.stats)
}

impl Run<'_, '_> {
    /// Samples per launch at `capacity` (at most `samples`).
    fn batch_size(&self, capacity: Capacity, samples: u64) -> Result<usize> {
        let schedule = self.context.schedule;
        let engines = match &self.plan {
            Plan::Steps(engines) => &engines[..],
            Plan::Fused => &[],
        };
        let num_vertices = self.context.graph.host().csr().num_vertices() as u64;
        let (step_bytes, fixed) = steps::extra_bytes(engines, capacity, num_vertices).unwrap_or((u64::MAX, 0));
        let budget = self.context.budget.saturating_sub(fixed);
        let per_sample = arena::bytes_per_sample(capacity, schedule, self.sorted)
            .and_then(|bytes| bytes.checked_add(step_bytes))
            .filter(|&bytes| bytes <= budget)
            .ok_or_else(|| {
                Error::TooLarge(format!(
                    "sampler `{}`: a sample needs regions of {} history, {} combined and {} added entries, more than \
                     the {} bytes of device memory allowed",
                    schedule.name, capacity.history, capacity.combined, capacity.out, self.context.budget
                ))
            })?;
        // A transit-parallel step's entries (at most a history region per sample) are counted
        // in 32 bits.
        let most = if step_bytes > 0 { u64::from(u32::MAX) / capacity.history.max(1) } else { u64::from(u32::MAX) };
        Ok((budget / per_sample).min(samples).min(most).min(self.context.batch_samples).max(1) as usize)
    }

    /// The first failed sample of a launch (of samples `ids`, whose statuses are `status`),
    /// replayed on the CPU for its error.
    fn check_failures(&self, ids: &[u32], status: &[u32]) -> Result<()> {
        match ids.iter().zip(status).filter(|(_, &s)| s & FAILED != 0).map(|(&id, _)| id).min() {
            Some(id) => Err(replayed_failure(self.context, self.initial, u64::from(id))),
            None => Ok(()),
        }
    }

    /// Runs `overflowed` samples (id, status bits) again with grown capacities until each
    /// fits, each launch's records appended to `launches`; where each sample's record is
    /// (launch, index there), by id.
    fn rerun(
        &mut self,
        mut overflowed: Vec<(u32, u32)>,
        mut capacity: Capacity,
        launches: &mut Vec<PackedRecords>,
    ) -> Result<HashMap<u32, (usize, usize)>> {
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
                self.check_failures(chunk, &result.status)?;
                for (k, (&id, &status)) in chunk.iter().zip(&result.status).enumerate() {
                    if status != 0 {
                        overflowed.push((id, status));
                    } else {
                        records.insert(id, (launches.len(), k));
                    }
                }
                launches.push(result);
            }
        }
        Ok(records)
    }

    /// The samples `ids` with regions of `capacity`: one fused launch or step by step.
    fn launch(&mut self, ids: &[u32], capacity: Capacity) -> Result<PackedRecords> {
        let context = self.context;
        let gpu = context.gpu;
        let arena = Arena::alloc(context, self.initial, ids, capacity, self.sorted, &self.sizes, &self.unique)?;
        self.stats.device_bytes = self.stats.device_bytes.max(arena.bytes());
        let view = SampleViewArgs { fault: self.fault.device_ptr(), ..context.view() };
        match &self.plan {
            Plan::Steps(engines) => steps::run(context, &arena, capacity, view, engines, &mut self.stats)?,
            Plan::Fused => {
                let samples = ids.len() as u64;
                let shape = match self.fused {
                    Fused::PerSample => Shape::covering(samples, PER_SAMPLE_THREADS)?,
                    Fused::Warp | Fused::Draws => Shape::covering(samples * 32, PER_SAMPLE_WARP_THREADS)?,
                };
                let kernel = context.module.module.kernel(self.fused.kernel())?;
                let args =
                    KernelArgs::new().bytes(&context.module.params).value(view).value(arena.args).value(context.seed);
                let start = gpu.record()?;
                gpu.launch(&kernel, shape, &args)?;
                let end = gpu.record()?;
                self.stats.kernel_ms += gpu.elapsed_ms(&start, &end)?;
            }
        }
        self.stats.batches += 1;
        let record = gpu.download(&self.fault)?;
        if let Some(error) = context.module.loop_fault(&record, view.loop_budget, "in a sample") {
            return Err(error);
        }
        arena.pack(context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_launches_take_a_warp_per_sample_when_some_step_draws_with_replacement() {
        assert_eq!(Fused::of(&Schedule::of_sizes(&[25, 10], false, false)), Fused::Draws);
        assert_eq!(
            Fused::of(&Schedule::of_sizes(&[1, 1], false, true)),
            Fused::Warp,
            "REPLACE levels: not the draws kernel"
        );
        let mut mixed = Schedule::of_sizes(&[25, 10], false, false);
        mixed.unique[1] = true;
        assert_eq!(Fused::of(&mixed), Fused::Warp);
        mixed.unique[0] = true;
        assert_eq!(Fused::of(&mixed), Fused::PerSample);
        assert_eq!(Fused::of(&Schedule::of_sizes(&[64, 32], true, false)), Fused::PerSample);
    }

    #[test]
    fn the_bound_of_k_hop_is_its_fan_out_products() {
        // One root, fan-outs 25 then 10: 25 + 250 added; history 1 + 25 transits.
        let bound = Capacity::bound(&Schedule::of_sizes(&[25, 10], false, false), 1, 1000);
        assert_eq!(bound, Capacity { history: 26, combined: 0, out: 275 });
    }

    #[test]
    fn the_bound_of_a_collective_layer_sampler_is_its_sizes_and_the_largest_rows() {
        // Two roots, 64 then 32 draws from the combined neighbourhood, degree at most 10:
        // combined at most max(2, 64) x 10 entries.
        let bound = Capacity::bound(&Schedule::of_sizes(&[64, 32], true, false), 2, 10);
        assert_eq!(bound, Capacity { history: 2 + 64, combined: 640, out: 96 });
    }

    #[test]
    fn replace_keeps_the_transit_count_and_all_neighbours_saturates() {
        let bound = Capacity::bound(&Schedule::of_sizes(&[1, 1, 1], false, true), 3, 5);
        assert_eq!(bound, Capacity { history: 9, combined: 0, out: 9 });
        let all = Capacity::bound(&Schedule::of_sizes(&[ALL_NEIGHBOURS; 40], false, false), 1, u64::MAX / 2);
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
