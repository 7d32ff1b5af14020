//! The CPU engine's walks: samplers with one transit per step ([`Schedule::is_walk`]) from one
//! root each (DeepWalk, node2vec, PPR, weighted walks), the GPU walk engine's scheme on a
//! core.
//!
//! A walk step is a chain of dependent reads (the transit's row, then a neighbour), so a
//! worker advances a group of [`WALKERS`] walks together, step by step: the walks' steps are
//! independent, and their misses overlap: a walk's next row offsets are prefetched as it
//! arrives, and before the hook calls of a step each walk's random block is drawn and the
//! edges a uniform draw would read from it are prefetched, so that the hook calls find their
//! reads in cache; on a graph whose edges lie beyond the L3, a hook that tests candidates
//! against the walk's previous vertex (node2vec) finds the lines of its first candidate's
//! test prefetched too ([`super::prefetch::TestPrediction`]). The samples are the general
//! engine's ([`super::engine`]) exactly: the same hook calls with the same views and random
//! streams, the same checks, and on a refused result the error of the first such sample in
//! sample order.

use super::engine::{check_neighbour, Run};
use super::outcome::{BatchParts, RecordParts, SampleOutcome};
use super::prefetch::{prefetch, prefetch_tests, EdgePrediction, TestPrediction};
use super::sampler::{Sampler, NONE};
use super::spare::emptied_with_room;
use super::view::{SampleState, SampleView, SortedCombined};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::random::{sample_streams, Stream};
use rayon::prelude::*;
use std::ops::Range;

/// Walks a worker keeps in flight: enough independent chains of reads to overlap their
/// misses (the prefetches of one step get the time of the other walks' hook calls), few
/// enough that their walks stay in the core's cache and their prefetches in the core's miss
/// buffers (a profile of 64 showed the prefetch instructions themselves waiting). A walk that
/// ends hands its place to the task's next sample, so the count stays up while walks stop
/// early (PPR). On 2 threads of this project's development machine (AMD EPYC, Zen 4), 16 ->
/// 64 took DeepWalk on R-MAT 20 from 36 to 48 M steps/s; 64 -> 32, alternated four times in
/// one run (medians): DeepWalk on com-DBLP 55.8 -> 64.9, on R-MAT 20 24.2 -> 28.8, PPR 47.8
/// -> 52.2 and 22.8 -> 26.4, node2vec unchanged (17.5 -> 18.6, 6.2 -> 6.1); 24 and 48 were
/// no better than 32, 128 worse than 64.
pub const WALKERS: usize = 32;

/// The walk length (vertices) a task reserves room for, for each of its samples, before its
/// walks tell how long they are.
const RESERVED_STEPS: usize = 256;

/// The walks of samples `samples` of `initial` (one root each), appended in sample order to
/// `into` (whose samples end where `samples` starts).
pub(super) fn run<S: Sampler + ?Sized>(
    run: &Run<'_, S>,
    samples: Range<usize>,
    into: &mut SampleOutcome,
) -> Result<()> {
    // Tasks of several walkers' worth of samples, about four per thread. (Two per thread, up
    // to 64 walkers' worth, so that PPR's walks, which end at random, drain their slots
    // less often: com-DBLP, 2 threads, medians of 5 alternated three times, PPR 232-237 ->
    // 243-262 ms and DeepWalk 311-382 -> 358-431 ms, the threads' shares of a batch uneven.)
    let task = (samples.len() / (4 * rayon::current_num_threads())).clamp(WALKERS, 16 * WALKERS);
    let mut tasks: Vec<TaskWalks> = samples
        .clone()
        .step_by(task)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|first| walk_task(run, first..(first + task).min(samples.end)))
        .collect();
    // The walks in sample order, each its vertices from the root on; the first error in
    // sample order stops the run.
    if let Some((_, error)) = tasks.iter_mut().find_map(|task| task.error.take()) {
        return Err(error);
    }
    // Each walk's vertices after its root are a piece of the batch, copied into the outcome by
    // the workers side by side (their transits and steps are implied). One thread appending
    // them while the others waited took a tenth of a batch's time on 16 threads.
    let walks: Vec<&[VertexId]> =
        tasks.iter().flat_map(|task| task.spans.iter().map(|span| &task.vertices[span.start + 1..span.end])).collect();
    let ends: Vec<u64> = walks
        .iter()
        .scan(0u64, |end, walk| {
            *end += walk.len() as u64;
            Some(*end)
        })
        .collect();
    let (root_offsets, roots) = run.initial.rows(samples.clone());
    into.append_parts(BatchParts {
        first: samples.start as u64,
        root_offsets,
        roots,
        ends: &ends,
        vertices: walks,
        records: RecordParts::Walks,
    })?;
    run.walk_buffers.keep(tasks.into_iter().map(|task| task.vertices));
    Ok(())
}

/// The walks of a task's samples: their vertices one walk after the other in the order the
/// walks ended (which is not the samples' order when walks stop early), where each sample's
/// walk lies there, in sample order, and the error of the first sample (in sample order)
/// whose hook result the engine refused, with that sample.
struct TaskWalks {
    vertices: Vec<VertexId>,
    spans: Vec<Range<usize>>,
    error: Option<(usize, Error)>,
}

/// A walk in flight: its sample and its vertices from the root on, in a buffer the slot
/// reuses walk after walk.
struct Walker {
    sample: usize,
    walk: Vec<VertexId>,
}

/// The walks of samples `samples` ([`TaskWalks`]): [`WALKERS`] walks advance together, one
/// step each per round, and a walk that ends makes room for the next sample.
fn walk_task<S: Sampler + ?Sized>(run: &Run<'_, S>, samples: Range<usize>) -> TaskWalks {
    let Run { graph, sampler, ref plan, seed, initial, .. } = *run;
    let csr = graph.csr();
    let steps = plan.steps() as usize;
    // Room for every walk at full length up to a bound (walks that may take millions of steps
    // and stop early grow the buffer as they need).
    let room = samples.len() * (steps + 1).min(RESERVED_STEPS);
    let mut vertices = run.walk_buffers.take().unwrap_or_default();
    emptied_with_room(&mut vertices, room);
    let mut done = TaskWalks { vertices, spans: vec![0..0; samples.len()], error: None };
    let mut pending = samples.clone();
    let slots = WALKERS.min(samples.len());
    // A slot's buffer holds its walk in flight and is reused by the next: it grows to the
    // longest walk the slot has held, never to `steps + 1` up front (a walk that may take 16M
    // steps and stops after 100 costs 100 entries).
    let mut walkers: Vec<Walker> = (0..slots).map(|_| Walker { sample: usize::MAX, walk: Vec::new() }).collect();
    let mut in_flight = 0;
    let start = |walker: &mut Walker, pending: &mut Range<usize>| match pending.next() {
        Some(sample) => {
            let root = initial.roots(sample)[0];
            prefetch(csr.offsets(), root as usize);
            walker.sample = sample;
            walker.walk.clear();
            walker.walk.push(root);
            true
        }
        None => {
            walker.walk.clear();
            false
        }
    };
    for walker in &mut walkers {
        in_flight += usize::from(start(walker, &mut pending));
    }
    let no_combined = SortedCombined::default();
    // A walk's history: level l's transit at history[l], so level l starts at l (as long as
    // the longest walk so far needs).
    let mut starts: Vec<usize> = vec![0];
    // Each walker's (sample, step), and its stream for the step with the first block drawn
    // before the hook calls (a slot without a walker draws a block it never uses).
    let mut keys: Vec<(u32, u32)> = vec![(0, 0); slots];
    let mut streams: Vec<Stream> = vec![Stream::new(seed, 0); slots];
    let mut prediction = EdgePrediction::default();
    let mut tests = TestPrediction::new(run.rows_beyond_cache);
    let mut tested = Vec::with_capacity(slots);
    while in_flight > 0 {
        for (walker, key) in walkers.iter().zip(keys.iter_mut()) {
            *key = (walker.sample as u32, walker.walk.len().saturating_sub(1) as u32);
        }
        sample_streams(seed, 0, &keys, &mut streams);
        for (walker, stream) in walkers.iter().zip(&streams) {
            if let Some(&t) = walker.walk.last() {
                prediction.prefetch(csr, t, stream);
            }
        }
        if tests.prefetched() {
            let moves = walkers.iter().enumerate().filter_map(|(slot, walker)| match walker.walk[..] {
                [.., previous, t] => Some((slot, previous, t)),
                _ => None,
            });
            prefetch_tests(graph, moves, &streams, &mut tested);
        }
        for (walker, stream) in walkers.iter_mut().zip(&streams) {
            let Walker { sample, walk } = walker;
            let Some(&t) = walk.last() else { continue };
            let level = walk.len() - 1;
            let step = level as u32;
            let mut ended = true;
            if starts.len() <= level {
                starts.push(level);
            }
            // A draw without replacement from an empty row, which the general engine does
            // not make, ends the walk.
            if !(plan.unique[level] && csr.degree(t) == 0) {
                let state = SampleState {
                    roots: &walk[..1],
                    sorted_roots: &walk[..1],
                    history: walk,
                    history_starts: &starts[..=level],
                    combined: &[],
                    combined_sources: &[],
                    combined_prefix: &[],
                    combined_sorted: &no_combined,
                };
                let sample32 = *sample as u32;
                let view = SampleView::with_stream(graph, state, seed, sample32, step, stream.clone());
                let v = sampler.next(&view, sample32, t, 0, step);
                if v != NONE {
                    match check_neighbour(&view, csr.neighbors(t), plan, (t, v), sample32, step, 0) {
                        Ok(()) => {
                            if prediction.learning() {
                                prediction.learn(csr, t, stream, v);
                            }
                            if tests.learning() {
                                tests.learn(&walk[..], view.last_test());
                            }
                            walk.push(v);
                            prefetch(csr.offsets(), v as usize);
                            ended = walk.len() == steps + 1;
                        }
                        Err(error) => {
                            if done.error.as_ref().is_none_or(|(first, _)| *sample < *first) {
                                done.error = Some((*sample, error));
                            }
                        }
                    }
                }
            }
            if ended {
                let at = done.vertices.len();
                done.vertices.extend_from_slice(walk);
                done.spans[*sample - samples.start] = at..done.vertices.len();
                if !start(walker, &mut pending) {
                    in_flight -= 1;
                }
            }
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build_csr, BuildOptions, DuplicateEdges, EdgeList};
    use crate::sample::edges::SampleGraph;
    use crate::sample::engine::{assert_sample_replayed, replay_sample};
    use crate::sample::roots::InitialSamples;
    use crate::sample::schedule::Schedule;
    use crate::sample::{InterpretedSampler, SampleConfig};
    use glp_codegen::kinds::sample::layout::SHORT_ROW;

    /// A directed graph of 300 vertices with hubs, sinks (no out-edges) and isolated vertices.
    fn graph() -> crate::graph::Csr {
        let n = 300u32;
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |bound: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = (state % u64::from(bound)) as u32;
            x % (x % 37 + 1) + x / 41 * 41 % bound
        };
        // Random edges, and a hub (vertex 4) with edges to and from 150 vertices: rows longer
        // than SHORT_ROW.
        let hub = (100..250).flat_map(|u| [(4, u), (u, 4)]);
        let (sources, targets): (Vec<u32>, Vec<u32>) =
            (0..3000).map(|_| (next(n - 20), next(n - 20))).filter(|(s, _)| s % 13 != 5).chain(hub).unzip();
        let edges = EdgeList { num_vertices: n as usize, sources, targets, weights: None };
        let options = BuildOptions { symmetrise: false, drop_self_loops: true, duplicates: DuplicateEdges::Collapse };
        build_csr(&edges, &options).unwrap()
    }

    /// Walk samplers as files: uniform, second order (history, membership, a rejection loop),
    /// stopping at random, drawing without replacement, and one whose result is sometimes not
    /// a neighbour.
    const SAMPLERS: [(&str, &str); 5] = [
        (
            "uniform",
            "fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
            let d = view.degree(t); if d == 0 { return NONE; } view.edge(t, view.random_below(d)) }",
        ),
        (
            "second order",
            "fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
            let d = view.degree(t); if d == 0 { return NONE; }
            let back = view.previous_vertex(2, 0);
            let mut chosen = NONE;
            while chosen == NONE {
                let x = view.edge(t, view.random_below(d));
                let keep = if back == NONE || view.contains(back, x) { 1.0 } else { 0.5 };
                if view.random_f64() < keep { chosen = x; }
            }
            chosen }",
        ),
        (
            "stopping",
            "fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
            if view.random_f64() < 0.1 { return NONE; }
            let d = view.degree(t); if d == 0 { return NONE; } view.edge(t, view.random_below(d)) }",
        ),
        (
            "unique",
            "fn unique(&self, _step: u32) -> bool { true }
            fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
            view.edge(t, view.random_below(view.degree(t))) }",
        ),
        (
            "off by one",
            "fn next(&self, view: &SampleView, sample: u32, t: VertexId, _l: u32, step: u32) -> VertexId {
            let d = view.degree(t); if d == 0 { return NONE; }
            if sample % 7 == 3 && step == 4 { return view.edge(t, 0) + 1; }
            view.edge(t, view.random_below(d)) }",
        ),
    ];

    /// The walks of samples `samples`, as an outcome of their own, the graph's rows taken for
    /// rows beyond the cache (membership tests prefetched for) or not.
    fn walks_of(
        graph: &SampleGraph<'_>,
        sampler: &InterpretedSampler,
        seed: u64,
        initial: &InitialSamples,
        samples: Range<usize>,
        rows_beyond_cache: bool,
    ) -> Result<SampleOutcome> {
        let mut run_of = Run::new(graph, sampler, initial, &SampleConfig { seed })?;
        run_of.rows_beyond_cache = rows_beyond_cache;
        let mut outcome = SampleOutcome::empty(samples.start as u64);
        run(&run_of, samples, &mut outcome).map(|()| outcome)
    }

    /// With and without the membership tests' prefetches (the second order sampler learns
    /// them: it tests every candidate against the previous vertex, and the graph has rows
    /// longer than SHORT_ROW for them to be made for).
    #[test]
    fn walks_are_the_general_engines_samples_and_errors() {
        let csr = graph();
        let graph = SampleGraph::new(&csr).unwrap();
        let n = csr.num_vertices();
        assert!((0..n as VertexId).any(|v| csr.degree(v) as u64 > SHORT_ROW), "rows to prefetch tests for");
        let initial = InitialSamples::every_vertex(n).unwrap();
        let mut failed = Vec::new();
        for (name, hooks) in SAMPLERS {
            let source = format!(
                "struct Walk {{ length: u32 }}
                impl Sampler for Walk {{
                    fn steps(&self) -> u32 {{ self.length }}
                    fn sample_size(&self, _step: u32) -> u32 {{ 1 }}
                    {hooks}
                }}"
            );
            let sampler = InterpretedSampler::from_source("walk.rs", &source, &["length=12"]).unwrap();
            let plan = Schedule::of(&graph, &sampler).unwrap();
            assert!(plan.is_walk());
            for (seed, rows_beyond_cache) in [(0, false), (9, false), (0, true), (9, true)] {
                let walks = walks_of(&graph, &sampler, seed, &initial, 5..n, rows_beyond_cache);
                let general: Vec<Result<_>> =
                    (5..n).map(|i| replay_sample(&graph, &sampler, &plan, seed, i as u32, initial.roots(i))).collect();
                match walks {
                    Ok(outcome) => {
                        assert_eq!(outcome.num_samples(), n - 5);
                        for (k, expected) in general.into_iter().enumerate() {
                            assert_eq!(outcome.sample(k).roots, initial.roots(k + 5), "{name}: sample {}", k + 5);
                            assert_sample_replayed(
                                &outcome,
                                k,
                                &expected.unwrap(),
                                &format!("{name}: sample {}", k + 5),
                            );
                        }
                    }
                    Err(error) => {
                        let first = general.into_iter().find_map(|r| r.err()).expect("the general engine fails too");
                        assert_eq!(error.to_string(), first.to_string(), "{name}");
                        assert!(error.to_string().contains("which is not a neighbour of its transit"), "{error}");
                        failed.push(name);
                    }
                }
            }
        }
        assert_eq!(failed, ["off by one"; 4], "only the bad hook fails, with both seeds, prefetched for or not");
    }

    /// Walks that may take the most steps a sampler may declare (2^24) and stop at random,
    /// some after more steps than a task reserves room for: the general engine's samples. (The
    /// engine once reserved the declared length for every walk, 64 MB each, and took 21 s
    /// for 0.8 s of walks on com-DBLP.)
    #[test]
    fn walks_that_may_run_millions_of_steps_cost_the_steps_they_take() {
        // A ring with chords: no sinks, so walks end only when the hook stops them.
        let n = 200u32;
        let (sources, targets): (Vec<u32>, Vec<u32>) =
            (0..n).flat_map(|v| [(v, (v + 1) % n), (v, (v * 7 + 3) % n)]).filter(|(s, t)| s != t).unzip();
        let edges = EdgeList { num_vertices: n as usize, sources, targets, weights: None };
        let options = BuildOptions { symmetrise: true, drop_self_loops: true, duplicates: DuplicateEdges::Collapse };
        let csr = build_csr(&edges, &options).unwrap();
        let graph = SampleGraph::new(&csr).unwrap();
        let n = csr.num_vertices();
        let initial = InitialSamples::every_vertex(n).unwrap();
        let source = "struct Walk { length: u32 }
            impl Sampler for Walk {
                fn steps(&self) -> u32 { self.length }
                fn sample_size(&self, _step: u32) -> u32 { 1 }
                fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
                    if view.random_f64() < 0.004 { return NONE; }
                    let d = view.degree(t); if d == 0 { return NONE; } view.edge(t, view.random_below(d)) }
            }";
        let sampler = InterpretedSampler::from_source("walk.rs", source, &["length=16777216"]).unwrap();
        let plan = Schedule::of(&graph, &sampler).unwrap();
        let outcome = walks_of(&graph, &sampler, 3, &initial, 0..n, false).unwrap();
        let longest = (0..n).map(|k| outcome.sample(k).vertices.len()).max().unwrap();
        assert!(longest > RESERVED_STEPS, "a walk outgrows the reserved room ({longest} steps)");
        for k in 0..n {
            let replayed = replay_sample(&graph, &sampler, &plan, 3, k as u32, initial.roots(k)).unwrap();
            assert_sample_replayed(&outcome, k, &replayed, &format!("sample {k}"));
        }
    }
}
