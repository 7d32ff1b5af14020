//! The CPU engine: samples in parallel (rayon), each sample computed start to end by one
//! worker, outputs assembled in sample order.
//!
//! Samples are processed in batches ([`default_batch_samples`] by default): the workers compute a
//! batch's samples into their tasks' records, which are then copied once, side by side, into
//! the outcome they end in ([`SampleOutcome::append_parts`]). A streamed run ([`run_streamed`],
//! [`super::sink`]) copies them into the batch's own outcome and hands it to the run's sink on
//! the calling thread while the workers compute the next batch; so the working memory is two
//! batches' records and outcomes and each worker's scratch (its sample's transits, history and
//! combined neighbourhood), whatever the size of the run. Overlapping the sink matters as much
//! as the sampling: gathering a run into one outcome (com-DBLP, k-hop 25,10, 2 threads) took
//! 600 ms from start to end when the workers waited for the sink between batches, 430-470 ms
//! overlapped. A gathered run ([`run`], [`run_gathered`]) copies each batch straight into the
//! run's outcome instead, so that each sampled vertex is copied once, not twice (into the batch,
//! then by the sink into the whole): k-hop 25,10 and DeepWalk on com-DBLP, 2 threads, alternated
//! in one process, 4 to 10% less time. Every random number comes from the stream of (seed,
//! sample, step, lane) ([`crate::random::sample_stream`]), never from a worker's state, so the
//! outcome does not depend on the number of threads, their schedule or the batch size.

use super::edges::SampleGraph;
use super::outcome::{BatchParts, RecordParts, SampleOutcome, MAX_IMPLIED_STEPS};
use super::prefetch::{lies_in_two_lines, prefetch, prefetch_predicted_edges, prefetch_row};
use super::roots::InitialSamples;
use super::sampler::{Sampler, ALL_NEIGHBOURS, NONE, NONE_ENTRY};
use super::schedule::Schedule;
use super::sink::{Delivery, SampleSink, StreamSummary};
use super::spare::{emptied_with_room, Spare};
use super::view::{distinct_in_sorted, SampleState, SampleView, SortedCombined};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::host_ceiling::HostTier;
use crate::random::{LaneBlocks, Stream, FILL_WIDTH};
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use std::ops::Range;
use std::time::{Duration, Instant};

/// Samples per batch and worker thread by default ([`default_batch_samples`]).
pub const BATCH_SAMPLES_PER_THREAD: usize = 2048;

/// Samples per batch by default on the current rayon pool: [`BATCH_SAMPLES_PER_THREAD`] for
/// each worker, so that a batch keeps every worker busy and its serial parts (the wait for
/// its slowest task, the hand-over) stay the same share of its time whatever the thread
/// count, while its records remain a small part of the output. A fixed 4096 served 2 threads
/// well but not 16: on a 16-core Xeon, com-DBLP, DeepWalk ran at 111 M steps/s with batches
/// of 4096, 146 with 16384 and 171 with 65536, k-hop 25,10 at 109, 130 and 148 M sampled
/// vertices/s; on 2 cores 4096 to 16384 made no difference beyond the noise for DeepWalk and
/// k-hop lost a fifth at 16384.
pub fn default_batch_samples() -> usize {
    BATCH_SAMPLES_PER_THREAD.saturating_mul(rayon::current_num_threads())
}

/// A draw without replacement ([`Sampler::unique`]) that repeats a vertex is made again, at
/// most this many times per distinct vertex of the neighbourhood (plus this many) per draw:
/// for a uniform draw the chance that a draw which can still find a new vertex gives up is
/// below `e^-32`. A draw that gives up ends the step's draws from that neighbourhood: the
/// hook cannot reach a vertex it has not drawn yet (one that keeps returning the same vertex,
/// or weights of 0 on the vertices left), and the draws after it would only give up in
/// turn. So a step ends after at most `sample_size + UNIQUE_ATTEMPTS * (distinct + 1)` hook
/// calls per neighbourhood, whatever the hook does (short of looping inside itself). Defined
/// once, with the GPU engines' kernels.
pub use glp_codegen::kinds::sample::engine::UNIQUE_ATTEMPTS;

/// Parameters of a sampling run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleConfig {
    /// Key of every random number ([`crate::random::sample_stream`]).
    pub seed: u64,
}

/// Runs `sampler` from every initial sample of `initial` on the current rayon pool: the
/// whole outcome, in sample order ([`run_gathered`] in batches of [`default_batch_samples`]).
///
/// Errors: a sampler with no step, a draw count of 0, an unknown sampling type or transit
/// policy, a graph without edges, a hook returning a vertex that is not a neighbour of its
/// transit (individual) or an entry outside the combined neighbourhood (collective), a
/// negative or non-finite combined weight, or a hook failure ([`Sampler::failure`]); the
/// message names the sampler, the hook, the sample and the step.
pub fn run<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    initial: &InitialSamples,
    config: &SampleConfig,
) -> Result<SampleOutcome> {
    run_gathered(graph, sampler, initial, config, default_batch_samples(), &mut |_| Ok(()))
}

/// [`run`] in batches of `batch_samples` (the last one smaller), each appended to the outcome
/// as soon as the workers have computed it, its samples [`run_streamed`]'s whatever the batch
/// size. After each batch `progress` is called on the calling thread with the number of
/// samples done; its error stops the run. Gathered so, the workers copy each sampled vertex
/// once, from their buffers into the outcome: a streamed run gathered by its sink copies it
/// twice, into the batch and then into the outcome (see [`SampleOutcome::append_parts`]).
/// After the first batch the outcome reserves room for the whole run at that batch's density
/// ([`SampleOutcome::reserve_like_held`]).
///
/// Errors: [`run`]'s, `progress`'s, and a batch size of 0.
pub fn run_gathered<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    initial: &InitialSamples,
    config: &SampleConfig,
    batch_samples: usize,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<SampleOutcome> {
    let run = Run::new(graph, sampler, initial, config)?;
    let start = Instant::now();
    let mut outcome = SampleOutcome::empty(0);
    for range in batch_ranges(initial.len(), batch_samples)? {
        let (first_batch, end) = (range.start == 0, range.end);
        run.batch(range, &mut outcome)?;
        if first_batch {
            outcome.reserve_like_held(initial.len() - end);
        }
        progress(end as u64)?;
    }
    outcome.elapsed = start.elapsed();
    Ok(outcome)
}

/// The batches of a run of `samples` samples: `batch_samples` each, the last one smaller.
/// Errors when a batch would hold no sample.
fn batch_ranges(samples: usize, batch_samples: usize) -> Result<impl Iterator<Item = Range<usize>>> {
    if batch_samples == 0 {
        return Err(Error::invalid("a batch of samples must hold at least 1 sample"));
    }
    Ok((0..samples).step_by(batch_samples).map(move |first| first..first.saturating_add(batch_samples).min(samples)))
}

/// [`run`] streamed: the samples go to `sink` in batches of `batch_samples` (the last one
/// smaller), in sample order, each as soon as it is complete (see [`super::sink`]). Smaller
/// batches keep fewer threads busy. The samples are [`run`]'s whatever the batch size.
///
/// Errors: [`run`]'s, and the sink's (which stop the run); a batch size of 0.
pub fn run_streamed<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    initial: &InitialSamples,
    config: &SampleConfig,
    batch_samples: usize,
    sink: &mut SampleSink<'_>,
) -> Result<StreamSummary> {
    let batches = batch_ranges(initial.len(), batch_samples)?;
    let run = Run::new(graph, sampler, initial, config)?;
    let start = Instant::now();
    let mut delivery = Delivery::new(sink);
    // The engine's time spent waiting for the sink after its own batch was done.
    let mut waited = Duration::ZERO;
    let mut done: Option<SampleOutcome> = None;
    for range in batches.map(Some).chain([None]) {
        // Batch `k + 1` runs on the pool while this thread hands batch `k` to the sink.
        let mut computed: Option<(Result<SampleOutcome>, Instant)> = None;
        let mut delivered: Option<(Result<()>, Instant, Instant)> = None;
        rayon::in_place_scope(|scope| {
            if let Some(range) = range {
                let (computed, run) = (&mut computed, &run);
                scope.spawn(move |_| {
                    let mut batch = SampleOutcome::empty(range.start as u64);
                    let batch = run.batch(range, &mut batch).map(|()| batch);
                    *computed = Some((batch, Instant::now()));
                });
            }
            if let Some(batch) = done.take() {
                let started = Instant::now();
                delivered = Some((delivery.deliver(batch), started, Instant::now()));
            }
        });
        if let Some((result, started, ended)) = delivered {
            result?;
            let computed_at = computed.as_ref().map_or(started, |(_, at)| *at).max(started);
            waited += ended.saturating_duration_since(computed_at);
        }
        done = match computed {
            Some((batch, _)) => Some(batch?),
            None => None,
        };
    }
    delivery.finish(initial.len() as u64, start.elapsed().saturating_sub(waited))
}

/// What every batch of a run reads, and the buffers it hands on from batch to batch.
pub(super) struct Run<'r, S: ?Sized> {
    pub(super) graph: &'r SampleGraph<'r>,
    pub(super) sampler: &'r S,
    pub(super) plan: Schedule,
    pub(super) seed: u64,
    pub(super) initial: &'r InitialSamples,
    /// The general engine's tasks whose samples were appended.
    tasks: Spare<Task>,
    /// The walk engine's tasks' vertex buffers, their walks appended.
    pub(super) walk_buffers: Spare<Vec<VertexId>>,
    /// The graph's column array lies beyond the L3 ([`HostTier::of_array_here`]): the walk
    /// engine then learns whether to prefetch for membership tests
    /// ([`super::prefetch::TestPrediction`]).
    pub(super) rows_beyond_cache: bool,
}

impl<'r, S: Sampler + ?Sized> Run<'r, S> {
    /// The run of `sampler` from `initial`. Errors: [`Schedule::of`]'s.
    pub(super) fn new(
        graph: &'r SampleGraph<'r>,
        sampler: &'r S,
        initial: &'r InitialSamples,
        config: &SampleConfig,
    ) -> Result<Self> {
        let plan = Schedule::of(graph, sampler)?;
        let rows_beyond_cache =
            HostTier::of_array_here(std::mem::size_of_val(graph.csr().targets()) as u64) == HostTier::Dram;
        Ok(Run {
            graph,
            sampler,
            plan,
            seed: config.seed,
            initial,
            tasks: Spare::new(),
            walk_buffers: Spare::new(),
            rows_beyond_cache,
        })
    }

    /// The samples `range`, run on the current rayon pool, appended to `into` (whose samples
    /// end where `range` starts): a batch of its own when the run is streamed, the run's whole
    /// outcome when it is gathered. The workers' buffers are copied once, into `into`
    /// ([`SampleOutcome::append_parts`]). Errors: [`run`]'s.
    fn batch(&self, range: Range<usize>, into: &mut SampleOutcome) -> Result<()> {
        let Run { graph, sampler, ref plan, seed, initial, .. } = *self;
        if plan.is_walk() && initial.one_root_each() {
            super::walks::run(self, range, into)?;
        } else {
            let (batch_start, batch_end) = (range.start, range.end);
            let csr = graph.csr();
            let tasks: Vec<Result<Task>> = (batch_start..batch_end)
                .step_by(SAMPLES_PER_TASK)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map_init(Scratch::default, |scratch, first| {
                    let end = (first + SAMPLES_PER_TASK).min(batch_end);
                    let mut task =
                        Task::for_samples(self.tasks.take(), plan, (first..end).map(|i| initial.roots(i).len()));
                    for i in first..end {
                        // The next samples' roots, their offsets two samples ahead and their
                        // edges one ahead, so that a sample starts on rows in the cache.
                        if i + 2 < end {
                            initial.roots(i + 2).iter().for_each(|&r| prefetch(csr.offsets(), r as usize));
                        }
                        if i + 1 < end {
                            initial.roots(i + 1).iter().for_each(|&r| prefetch_row(csr, r));
                        }
                        let record = &mut task.record;
                        sample_one(graph, sampler, plan, seed, i as u32, initial.roots(i), scratch, record)?;
                        task.ends.push(task.record.vertices.len());
                    }
                    Ok(task)
                })
                .collect();
            let tasks = tasks.into_iter().collect::<Result<Vec<Task>>>()?;
            // The tasks' records are their samples' in order: the batch is their pieces.
            let mut ends = Vec::with_capacity(range.len());
            let mut base = 0u64;
            for task in &tasks {
                ends.extend(task.ends.iter().map(|&end| base + end as u64));
                base += task.record.vertices.len() as u64;
            }
            let pieces = |part: fn(&Record) -> &[u32]| tasks.iter().map(|task| part(&task.record)).collect::<Vec<_>>();
            let records = if implies_steps(plan) {
                RecordParts::Stepped {
                    sources: pieces(|record| &record.sources),
                    step_count: plan.steps(),
                    step_ends: tasks.iter().map(|task| &task.record.step_ends[..]).collect(),
                }
            } else {
                RecordParts::Held { sources: pieces(|record| &record.sources), steps: pieces(|record| &record.steps) }
            };
            let (root_offsets, roots) = initial.rows(range);
            into.append_parts(BatchParts {
                first: batch_start as u64,
                root_offsets,
                roots,
                ends: &ends,
                vertices: pieces(|record| &record.vertices),
                records,
            })?;
            self.tasks.keep(tasks);
        }
        if let Some(error) = sampler.failure() {
            return Err(error);
        }
        Ok(())
    }
}

/// Sample `sample` (from `roots`) computed alone, as [`run`] computes it: another engine
/// that finds a sample it cannot complete (a hook's result the engine refuses) replays it
/// here for the CPU's exact error; `Ok` holds the sample's added vertices, sources and
/// steps.
pub(crate) fn replay_sample<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    schedule: &Schedule,
    seed: u64,
    sample: u32,
    roots: &[VertexId],
) -> Result<(Vec<VertexId>, Vec<VertexId>, Vec<u32>)> {
    let mut record = Record::default();
    sample_one(graph, sampler, schedule, seed, sample, roots, &mut Scratch::default(), &mut record)?;
    if let Some(error) = sampler.failure() {
        return Err(error);
    }
    Ok((record.vertices, record.sources, record.steps))
}

/// Samples' results one after the other: the vertices each added, the transit each was drawn
/// from, and the step that added it, one per vertex or (for a sampler of at most
/// [`MAX_IMPLIED_STEPS`] steps, [`implies_steps`]) implied by where each step's vertices end
/// ([`SampleOutcome`]'s implied steps).
#[derive(Debug, Default)]
struct Record {
    vertices: Vec<VertexId>,
    sources: Vec<VertexId>,
    /// Each vertex's step, unless implied.
    steps: Vec<u32>,
    /// With the steps implied: for each sample and each step, the vertices the sample added up
    /// to the end of that step.
    step_ends: Vec<u64>,
    implied_steps: bool,
}

impl Record {
    #[inline(always)]
    fn push(&mut self, v: VertexId, source: VertexId, step: u32) {
        self.vertices.push(v);
        self.sources.push(source);
        if !self.implied_steps {
            self.steps.push(step);
        }
    }
}

/// Whether the CPU engine leaves the steps of `plan`'s samples implied (see [`Record`]).
fn implies_steps(plan: &Schedule) -> bool {
    plan.steps() <= MAX_IMPLIED_STEPS
}

/// Samples a worker computes in one go, into one [`Task`]: enough that a task's buffers
/// serve many samples, few enough that the workers share out a batch evenly.
const SAMPLES_PER_TASK: usize = 32;

/// The samples of one task: their records one after the other, and where each ends.
#[derive(Default)]
struct Task {
    record: Record,
    ends: Vec<usize>,
}

/// The most entries a task's record reserves ahead (256 KiB an array, at most 24 KiB per
/// sample of a batch in all, 16 KiB when the steps are implied; a task of k-hop 25,10 takes
/// 8,800): the bound ignores degrees,
/// so draws without replacement may stay far below it, and past it (large fan-outs) the
/// arrays grow as they fill.
const TASK_RESERVE: u64 = 1 << 16;

impl Task {
    /// A task for samples with these root counts, in `spare`'s buffers when there is one (its
    /// contents dropped), its record's arrays reserved for the vertices the schedule bounds
    /// them to (up to [`TASK_RESERVE`]), so that they do not grow, copying what they hold,
    /// while the samples fill them.
    fn for_samples(spare: Option<Task>, plan: &Schedule, root_counts: impl Iterator<Item = usize>) -> Self {
        let bound = root_counts
            .map(|roots| plan.vertices_bound(roots as u64).unwrap_or(0))
            .fold(0u64, u64::saturating_add)
            .min(TASK_RESERVE) as usize;
        let implied_steps = implies_steps(plan);
        let mut task = spare.unwrap_or_default();
        let Task { record, ends } = &mut task;
        emptied_with_room(&mut record.vertices, bound);
        emptied_with_room(&mut record.sources, bound);
        emptied_with_room(&mut record.steps, if implied_steps { 0 } else { bound });
        emptied_with_room(
            &mut record.step_ends,
            if implied_steps { SAMPLES_PER_TASK * plan.steps() as usize } else { 0 },
        );
        record.implied_steps = implied_steps;
        emptied_with_room(ends, SAMPLES_PER_TASK);
        task
    }
}

/// A worker's buffers, reused from sample to sample.
#[derive(Default)]
struct Scratch {
    sorted_roots: Vec<VertexId>,
    transits: Vec<VertexId>,
    history: Vec<VertexId>,
    history_starts: Vec<usize>,
    combined: Vec<VertexId>,
    combined_sources: Vec<u32>,
    combined_prefix: Vec<f64>,
    combined_sorted: SortedCombined,
    /// Vertices drawn from the current neighbourhood (draws without replacement).
    drawn: FxHashSet<VertexId>,
    /// The lanes' streams of the current step, filled ahead.
    lane_streams: LaneStreams,
    /// REPLACE: (transit position, vertex) of this step's additions.
    replaced: Vec<(u32, VertexId)>,
    seen: FxHashSet<VertexId>,
}

/// The sampler `name`'s hook error prefix.
fn hook_error(plan: &Schedule, hook: &str, what: String, sample: u32, step: u32, lane: u64) -> Error {
    Error::Program(format!("sampler `{}`: `{hook}` {what} (sample {sample}, step {step}, lane {lane})", plan.name))
}

/// Sample `sample` from `roots`, appended to `record`.
#[allow(clippy::too_many_arguments)]
fn sample_one<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    plan: &Schedule,
    seed: u64,
    sample: u32,
    roots: &[VertexId],
    scratch: &mut Scratch,
    record: &mut Record,
) -> Result<()> {
    let csr = graph.csr();
    let Scratch {
        sorted_roots,
        transits,
        history,
        history_starts,
        combined,
        combined_sources,
        combined_prefix,
        combined_sorted,
        drawn,
        lane_streams,
        replaced,
        seen,
    } = scratch;
    sorted_roots.clear();
    sorted_roots.extend_from_slice(roots);
    sorted_roots.sort_unstable();
    transits.clear();
    transits.extend_from_slice(roots);
    history.clear();
    history_starts.clear();
    let (sample_start, ends_start) = (record.vertices.len(), record.step_ends.len());
    for step in 0..plan.steps() {
        if transits.is_empty() {
            break;
        }
        history_starts.push(history.len());
        history.extend_from_slice(transits);
        let size = plan.sizes[step as usize];
        let unique = plan.unique[step as usize];
        let added_start = record.vertices.len();
        replaced.clear();
        combined.clear();
        combined_sources.clear();
        combined_prefix.clear();
        combined_sorted.reset();
        let base = SampleState {
            roots,
            sorted_roots,
            history,
            history_starts,
            combined: &[],
            combined_sources: &[],
            combined_prefix: &[],
            combined_sorted,
        };
        if plan.collective {
            for (pos, &t) in transits.iter().enumerate() {
                combined.extend_from_slice(csr.neighbors(t));
                combined_sources.extend(std::iter::repeat_n(pos as u32, csr.degree(t)));
            }
            {
                let view =
                    SampleView::new(graph, SampleState { combined, combined_sources, ..base }, seed, sample, step);
                let mut sum = 0.0;
                for (i, &v) in combined.iter().enumerate() {
                    let t = transits[combined_sources[i] as usize];
                    let w = sampler.combined_weight(&view, sample, t, v, step);
                    if !(w.is_finite() && w >= 0.0) {
                        return Err(hook_error(
                            plan,
                            "combined_weight",
                            format!("returned {w} for the edge {t} -> {v}; weights must be finite and non-negative"),
                            sample,
                            step,
                            i as u64,
                        ));
                    }
                    sum += w;
                    combined_prefix.push(sum);
                }
            }
            let view = SampleView::new(
                graph,
                SampleState { combined, combined_sources, combined_prefix, ..base },
                seed,
                sample,
                step,
            );
            let len = combined.len() as u64;
            let lanes = if size == ALL_NEIGHBOURS { len } else { size as u64 };
            let distinct = if unique { combined_sorted.distinct(combined) } else { u64::MAX };
            drawn.clear();
            let mut exhausted = false;
            for lane in 0..lanes {
                if exhausted || drawn.len() as u64 >= distinct {
                    break;
                }
                let lane32 = lane_index(plan, sample, step, lane)?;
                view.start_lane(lane32);
                let mut attempts = 0;
                loop {
                    let e = sampler.next_entry(&view, sample, lane32, step);
                    if e == NONE_ENTRY {
                        break;
                    }
                    if e >= len {
                        return Err(hook_error(
                            plan,
                            "next_entry",
                            format!("returned entry {e}, outside the combined neighbourhood of {len} entries"),
                            sample,
                            step,
                            lane,
                        ));
                    }
                    let v = combined[e as usize];
                    if unique && !drawn.insert(v) {
                        attempts += 1;
                        if attempts > UNIQUE_ATTEMPTS * (distinct + 1) {
                            exhausted = true;
                            break;
                        }
                        continue;
                    }
                    let pos = combined_sources[e as usize];
                    record.push(v, transits[pos as usize], step);
                    if plan.replace {
                        replaced.push((pos, v));
                    }
                    break;
                }
            }
        } else {
            let view = SampleView::new(graph, base, seed, sample, step);
            // The transits' rows are fetched side by side before any draw: their offsets in one
            // pass, then the lines of their edges (once the first offsets arrive, the others
            // have too), so that a step waits about one miss per pass, not two per transit.
            for &t in transits.iter() {
                prefetch(csr.offsets(), t as usize);
            }
            for &t in transits.iter() {
                prefetch_row(csr, t);
            }
            lane_streams.start(seed, sample, step);
            let mut lane_base = 0u64;
            for (pos, &t) in transits.iter().enumerate() {
                let row = csr.neighbors(t);
                let lanes = if size == ALL_NEIGHBOURS { row.len() as u64 } else { size as u64 };
                let distinct = if unique { distinct_in_sorted(row) } else { u64::MAX };
                // A longer row than the two lines fetched above: the edges its first draws
                // are predicted to read.
                if !lies_in_two_lines(row) {
                    if let Ok(first) = u32::try_from(lane_base) {
                        for lane in (first..=u32::MAX).take(lanes.min(FILL_WIDTH as u64) as usize) {
                            prefetch_predicted_edges(csr, t, &lane_streams.stream(lane));
                        }
                    }
                }
                drawn.clear();
                let mut exhausted = false;
                for j in 0..lanes {
                    if exhausted || drawn.len() as u64 >= distinct {
                        break;
                    }
                    let lane = lane_index(plan, sample, step, lane_base + j)?;
                    view.start_lane_with(lane_streams.stream(lane));
                    let mut attempts = 0;
                    loop {
                        let v = sampler.next(&view, sample, t, j as u32, step);
                        if v == NONE {
                            break;
                        }
                        check_neighbour(&view, row, plan, (t, v), sample, step, lane_base + j)?;
                        if unique && !drawn.insert(v) {
                            attempts += 1;
                            if attempts > UNIQUE_ATTEMPTS * (distinct + 1) {
                                exhausted = true;
                                break;
                            }
                            continue;
                        }
                        record.push(v, t, step);
                        if plan.replace {
                            replaced.push((pos as u32, v));
                        }
                        if step + 1 < plan.steps() {
                            prefetch(csr.offsets(), v as usize); // a transit of the next step, likely
                        }
                        break;
                    }
                }
                lane_base += lanes;
            }
        }
        if record.implied_steps {
            record.step_ends.push((record.vertices.len() - sample_start) as u64);
        }
        if step + 1 == plan.steps() {
            break; // no step grows from the last one's transits
        }
        if plan.replace {
            if replaced.is_empty() {
                transits.clear();
            }
            for &(pos, v) in replaced.iter() {
                transits[pos as usize] = v;
            }
        } else {
            transits.clear();
            push_distinct(&record.vertices[added_start..], transits, seen);
        }
    }
    if record.implied_steps {
        // The steps not taken (no transit left) end where the last one taken did.
        let added = (record.vertices.len() - sample_start) as u64;
        record.step_ends.resize(ends_start + plan.steps() as usize, added);
    }
    Ok(())
}

/// Appends to `transits` the distinct vertices of `added` in the order they first appear
/// (the next step's transits). Up to [`SMALL_DISTINCT`] vertices go through a table of
/// twice as many slots on the stack (open addressing, Fibonacci hashing), more through
/// `seen`: k-hop 25,10's first hop adds 25, and the hash set's inserts took 7% of its time
/// on com-DBLP (one thread, 407 -> 385 ms with the table).
fn push_distinct(added: &[VertexId], transits: &mut Vec<VertexId>, seen: &mut FxHashSet<VertexId>) {
    if added.len() <= 1 {
        transits.extend_from_slice(added); // nothing to tell apart: no table to clear
        return;
    }
    if added.len() > SMALL_DISTINCT {
        seen.clear();
        transits.extend(added.iter().filter(|&&v| seen.insert(v)));
        return;
    }
    let mut slots = [NONE; DISTINCT_SLOTS]; // NONE is no vertex: an empty slot
    for &v in added {
        let mut slot = distinct_slot(v);
        loop {
            if slots[slot] == NONE {
                slots[slot] = v;
                transits.push(v);
                break;
            }
            if slots[slot] == v {
                break;
            }
            slot = (slot + 1) % DISTINCT_SLOTS;
        }
    }
}

/// The most vertices [`push_distinct`] tells apart in its table on the stack.
const SMALL_DISTINCT: usize = 32;

/// The slots of [`push_distinct`]'s table: twice its vertices, a power of two.
const DISTINCT_SLOTS: usize = 2 * SMALL_DISTINCT;
const _: () = assert!(DISTINCT_SLOTS.is_power_of_two());

/// The first slot [`push_distinct`] tries for `v`: the top bits of `v` times 2^32 / phi.
#[inline(always)]
fn distinct_slot(v: VertexId) -> usize {
    (v.wrapping_mul(0x9E37_79B9) >> (VertexId::BITS - DISTINCT_SLOTS.trailing_zeros())) as usize
}

/// The streams of a step's lanes, computed [`FILL_WIDTH`] at a time ([`LaneBlocks`]) in
/// windows aligned to [`FILL_WIDTH`]: the engine asks for lanes in increasing order (a
/// transit's first lanes to prefetch their edges, then each lane as it draws), and the lanes a
/// transit's prefetch asks for span at most two windows, so holding the last window of even
/// and of odd index computes each window once. (One window from the lane asked for on
/// computed two per transit of k-hop's second hop: its prefetch ran ten lanes ahead of its
/// draws, and each evicted the other's window.)
#[derive(Default)]
struct LaneStreams {
    seed: u64,
    sample: u32,
    step: u32,
    windows: [Option<LaneBlocks>; 2],
}

impl LaneStreams {
    /// Forgets the lanes computed so far: the next are of (`seed`, `sample`, `step`).
    fn start(&mut self, seed: u64, sample: u32, step: u32) {
        (self.seed, self.sample, self.step) = (seed, sample, step);
        self.windows = [None, None];
    }

    /// The stream of lane `lane`, its first block drawn: from the window held, else from its
    /// window computed.
    #[inline(always)]
    fn stream(&mut self, lane: u32) -> Stream {
        let width = FILL_WIDTH as u32;
        let slot = &mut self.windows[(lane / width % 2) as usize];
        match slot {
            Some(blocks) if blocks.holds(lane) => blocks.stream(lane),
            _ => {
                let first = lane - lane % width;
                slot.insert(LaneBlocks::new(self.seed, self.sample, self.step, first)).stream(lane)
            }
        }
    }
}

/// Whether `next`'s result `v`, drawn from transit `t` whose neighbours are `row`, is one of
/// them: at once when it is the edge the hook read last, else by a search; the hook's error
/// when it is not.
#[inline(always)]
pub(super) fn check_neighbour(
    view: &SampleView<'_>,
    row: &[VertexId],
    plan: &Schedule,
    (t, v): (VertexId, VertexId),
    sample: u32,
    step: u32,
    lane: u64,
) -> Result<()> {
    if view.read_edge(t, v) || in_row(row, v) {
        return Ok(());
    }
    let what = format!("returned vertex {v}, which is not a neighbour of its transit {t}");
    Err(hook_error(plan, "next", what, sample, step, lane))
}

/// Whether the sorted `row` holds `v`: [`check_neighbour`]'s search, out of line so that its
/// fast path stays small where it is inlined.
#[inline(never)]
fn in_row(row: &[VertexId], v: VertexId) -> bool {
    row.binary_search(&v).is_ok()
}

/// The stream lane of draw `lane` of a step; draws are numbered in `u32`.
fn lane_index(plan: &Schedule, sample: u32, step: u32, lane: u64) -> Result<u32> {
    u32::try_from(lane).map_err(|_| {
        Error::invalid(format!("sampler `{}`: sample {sample} makes more than 2^32 draws at step {step}", plan.name))
    })
}

/// Asserts that sample `k` of `outcome` holds the added vertices, sources and steps that
/// [`replay_sample`] gave for it (`what` names the case in a failure).
#[cfg(test)]
pub(super) fn assert_sample_replayed(
    outcome: &SampleOutcome,
    k: usize,
    (vertices, sources, steps): &(Vec<VertexId>, Vec<VertexId>, Vec<u32>),
    what: &str,
) {
    let got = outcome.sample(k);
    assert_eq!((got.vertices, &*got.sources, &*got.steps), (&vertices[..], &sources[..], &steps[..]), "{what}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::sample_stream;

    /// A run whose steps are implied (at most [`MAX_IMPLIED_STEPS`] steps) gives each sample
    /// the steps a replay holding one step per vertex gives it, samples that stop early (sinks
    /// of a directed graph, hops that add nothing) and collective steps included; a run of
    /// more steps holds them and gives the same.
    #[test]
    fn implied_steps_are_the_steps_a_sample_replayed_alone_holds() {
        use crate::graph::{build_csr, BuildOptions, DuplicateEdges, EdgeList};
        use crate::sample::InterpretedSampler;
        // A directed graph of 200 vertices: every third has no out-edge, some none at all.
        let n = 200u32;
        let (sources, targets): (Vec<u32>, Vec<u32>) =
            (0..n).flat_map(|v| [(v, (v * 7 + 3) % n), (v, (v * 13 + 5) % n)]).filter(|&(s, _)| s % 3 != 1).unzip();
        let edges = EdgeList { num_vertices: n as usize, sources, targets, weights: None };
        let options = BuildOptions { symmetrise: false, drop_self_loops: true, duplicates: DuplicateEdges::Collapse };
        let csr = build_csr(&edges, &options).unwrap();
        let graph = SampleGraph::new(&csr).unwrap();
        let hops = "fn sample_size(&self, step: u32) -> u32 { 3 - step % 2 }
            fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
                let d = view.degree(t); if d == 0 { return NONE; } view.edge(t, view.random_below(d)) }";
        let layers = "fn sample_size(&self, _step: u32) -> u32 { 4 }
            fn sampling(&self) -> u32 { COLLECTIVE }
            fn combined_weight(&self, _v: &SampleView, _s: u32, _t: VertexId, _u: VertexId, _st: u32) -> f64 { 1.0 }
            fn next_entry(&self, view: &SampleView, _s: u32, _l: u32, _st: u32) -> u64 { view.combined_pick() }";
        let initial = InitialSamples::random(150, 2, n as usize, 3).unwrap();
        for (name, hooks, steps) in [("hops", hops, 3), ("layers", layers, 2), ("hops", hops, MAX_IMPLIED_STEPS + 1)] {
            let source = format!(
                "struct S {{ length: u32 }}
                impl Sampler for S {{ fn steps(&self) -> u32 {{ self.length }} {hooks} }}"
            );
            let sampler = InterpretedSampler::from_source("s.rs", &source, &[&format!("length={steps}")]).unwrap();
            let plan = Schedule::of(&graph, &sampler).unwrap();
            assert_eq!(implies_steps(&plan), steps <= MAX_IMPLIED_STEPS);
            let outcome = run(&graph, &sampler, &initial, &SampleConfig { seed: 5 }).unwrap();
            let mut stopped_early = 0;
            for i in 0..initial.len() {
                let replayed = replay_sample(&graph, &sampler, &plan, 5, i as u32, initial.roots(i)).unwrap();
                assert_sample_replayed(&outcome, i, &replayed, &format!("{name}: sample {i}"));
                let held = &replayed.2;
                stopped_early += usize::from(held.last().is_none_or(|&last| last + 1 < steps));
            }
            assert!(stopped_early > 0, "{name}: some samples stop before the last step");
        }
    }

    /// The distinct vertices in the order they first appear, through the table on the stack
    /// (colliding slots, slots wrapping around) and through the hash set, against a scan.
    #[test]
    fn push_distinct_keeps_each_vertex_once_in_first_seen_order() {
        let mut seen = FxHashSet::default();
        let mut state = 7u32;
        // Vertices whose first slot is the last: they wrap around to the first slots.
        let last_slot: Vec<VertexId> = (0..).filter(|&v| distinct_slot(v) == DISTINCT_SLOTS - 1).take(12).collect();
        let mut cases: Vec<Vec<VertexId>> = vec![
            vec![],
            vec![5],
            vec![3, 3, 3],
            (0..32).rev().collect(),
            last_slot.iter().chain(&last_slot).copied().collect(),
            (0..64).map(|i| i * 64).collect(),
        ];
        for len in [2, 17, 32, 33, 100] {
            cases.push(
                (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                        state >> 27 // 32 values: many repeats
                    })
                    .collect(),
            );
        }
        for added in cases {
            let mut expected: Vec<VertexId> = Vec::new();
            for &v in &added {
                if !expected.contains(&v) {
                    expected.push(v);
                }
            }
            let mut transits = vec![99];
            push_distinct(&added, &mut transits, &mut seen);
            assert_eq!(transits[1..], expected[..], "{added:?}");
        }
    }

    /// Whatever lanes the engine asks for and in whatever order (a transit's prefetch ahead of
    /// its draws, windows skipped, lanes asked again, the last lanes below `u32::MAX`), each is
    /// its own stream of (seed, sample, step, lane), words past its first block included.
    #[test]
    fn lane_streams_give_every_lane_its_sample_stream() {
        let (seed, sample, step) = (11u64, 7u32, 1u32);
        let mut lanes = LaneStreams::default();
        lanes.start(seed, sample, step);
        let asked: Vec<u32> = (0..10)
            .chain(10..26) // a prefetch window across two aligned windows
            .chain(10..20) // the draws behind it
            .chain([47, 3, 200, 31, 32, 15])
            .chain(u32::MAX - 20..=u32::MAX)
            .collect();
        for lane in asked {
            let (mut ours, mut reference) = (lanes.stream(lane), sample_stream(seed, sample, step, lane));
            for _ in 0..6 {
                assert_eq!(ours.next_u32(), reference.next_u32(), "lane {lane}");
            }
        }
        // A new step forgets the windows of the last.
        lanes.start(seed, sample, step + 1);
        assert_eq!(lanes.stream(5).next_u32(), sample_stream(seed, sample, step + 1, 5).next_u32());
    }
}
