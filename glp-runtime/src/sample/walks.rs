//! The CPU engine's walks: samplers with one transit per step ([`Schedule::is_walk`]) from one
//! root each (DeepWalk, node2vec, PPR, weighted walks), the GPU walk engine's scheme on a
//! core.
//!
//! A walk step is a chain of dependent reads (the transit's row, then a neighbour), so a
//! worker advances a group of [`WALKERS`] walks together, step by step: the walks' steps are
//! independent, and their misses overlap: a walk's next row offsets are prefetched as it
//! arrives, and before the hook calls of a step each walk's random block is drawn and the
//! edges a uniform draw would read from it are prefetched, so that the hook calls find their
//! reads in cache. The samples are the general engine's
//! ([`super::engine`]) exactly: the same hook calls with the same views and random streams,
//! the same checks, and on a refused result the error of the first such sample in sample
//! order.

use super::edges::SampleGraph;
use super::engine::check_neighbour;
use super::outcome::SampleOutcome;
use super::prefetch::{prefetch, prefetch_predicted_edges};
use super::roots::InitialSamples;
use super::sampler::{Sampler, NONE};
use super::schedule::Schedule;
use super::view::{SampleState, SampleView, SortedCombined};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::random::{sample_streams, Stream};
use rayon::prelude::*;
use std::ops::Range;

/// Walks a worker keeps in flight: enough independent chains of reads to overlap their
/// misses (the prefetches of one step get the time of the other walks' hook calls), few
/// enough that their walks stay in the core's cache (64 walks of 100 steps: 26 KB). A walk
/// that ends hands its place to the task's next sample, so the count stays up while walks
/// stop early (PPR). On 2 threads of this project's CI machine, 16 -> 64 took DeepWalk on
/// R-MAT 20 from 36 to 48 M steps/s and PPR from 28 to 37-44.
pub const WALKERS: usize = 64;

/// The walks of samples `samples` of `initial` (one root each), as an outcome in sample
/// order.
pub(super) fn run<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    plan: &Schedule,
    seed: u64,
    initial: &InitialSamples,
    samples: Range<usize>,
) -> Result<SampleOutcome> {
    let steps = plan.steps() as usize;
    // A walk's history: level l's transit at history[l], so level l starts at l.
    let starts: Vec<usize> = (0..=steps).collect();
    let step_numbers: Vec<u32> = (0..steps as u32).collect();
    // Tasks of several walkers' worth of samples, about four per thread.
    let task = (samples.len() / (4 * rayon::current_num_threads())).clamp(WALKERS, 16 * WALKERS);
    let tasks: Vec<Vec<std::result::Result<Vec<VertexId>, Error>>> = samples
        .clone()
        .step_by(task)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|first| {
            let samples = first..(first + task).min(samples.end);
            walk_task(graph, sampler, plan, seed, initial, samples, &starts)
        })
        .collect();
    let mut walks = Vec::with_capacity(samples.len());
    for walk in tasks.into_iter().flatten() {
        walks.push(walk?);
    }
    let mut outcome = SampleOutcome::with_roots_of(initial, samples);
    outcome.offsets = std::iter::once(0)
        .chain(walks.iter().scan(0u64, |end, walk| {
            *end += (walk.len() - 1) as u64;
            Some(*end)
        }))
        .collect();
    // The outcome's three arrays side by side, each written once where it ends up (appending
    // walk by walk to all three on one thread took a tenth of a DeepWalk run on 2 threads).
    let total = outcome.offsets.last().map_or(0, |&end| end as usize);
    let gather = |part: for<'a> fn(&'a [VertexId], &'a [u32]) -> &'a [u32]| {
        let mut out = Vec::with_capacity(total);
        for walk in &walks {
            out.extend_from_slice(part(walk, &step_numbers));
        }
        out
    };
    let (vertices, (sources, steps)) = rayon::join(
        || gather(|walk, _| &walk[1..]),
        || rayon::join(|| gather(|walk, _| &walk[..walk.len() - 1]), || gather(|walk, steps| &steps[..walk.len() - 1])),
    );
    (outcome.vertices, outcome.sources, outcome.steps) = (vertices, sources, steps);
    Ok(outcome)
}

/// A walk in flight: its sample and its vertices from the root on.
struct Walker {
    sample: usize,
    walk: Vec<VertexId>,
}

/// The walks of samples `samples`, in sample order, each its vertices from the root on, or
/// the error that stopped it: [`WALKERS`] walks advance together, one step each per round,
/// and a walk that ends makes room for the next sample.
fn walk_task<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    plan: &Schedule,
    seed: u64,
    initial: &InitialSamples,
    samples: Range<usize>,
    starts: &[usize],
) -> Vec<std::result::Result<Vec<VertexId>, Error>> {
    let csr = graph.csr();
    let steps = plan.steps() as usize;
    let mut results: Vec<std::result::Result<Vec<VertexId>, Error>> = Vec::with_capacity(samples.len());
    results.resize_with(samples.len(), || Ok(Vec::new()));
    let mut pending = samples.clone();
    let start = |pending: &mut Range<usize>| {
        pending.next().map(|sample| {
            let root = initial.roots(sample)[0];
            prefetch(csr.offsets(), root as usize);
            let mut walk = Vec::with_capacity(steps + 1);
            walk.push(root);
            Walker { sample, walk }
        })
    };
    let mut walkers: Vec<Option<Walker>> = (0..WALKERS.min(samples.len())).map(|_| start(&mut pending)).collect();
    let no_combined = SortedCombined::default();
    // Each walker's (sample, step), and its stream for the step with the first block drawn
    // before the hook calls (a slot without a walker draws a block it never uses).
    let mut keys: Vec<(u32, u32)> = vec![(0, 0); walkers.len()];
    let mut streams: Vec<Stream> = vec![Stream::new(seed, 0); walkers.len()];
    while walkers.iter().any(Option::is_some) {
        for (walker, key) in walkers.iter().zip(keys.iter_mut()) {
            if let Some(Walker { sample, walk }) = walker {
                *key = (*sample as u32, (walk.len() - 1) as u32);
            }
        }
        sample_streams(seed, 0, &keys, &mut streams);
        for (walker, stream) in walkers.iter().zip(&streams) {
            if let Some(Walker { walk, .. }) = walker {
                prefetch_predicted_edges(csr, walk[walk.len() - 1], stream);
            }
        }
        for (slot, stream) in walkers.iter_mut().zip(&streams) {
            let Some(Walker { sample, walk }) = slot else { continue };
            let level = walk.len() - 1;
            let step = level as u32;
            let t = walk[level];
            let mut ended = true;
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
                            walk.push(v);
                            prefetch(csr.offsets(), v as usize);
                            ended = walk.len() == steps + 1;
                        }
                        Err(error) => results[*sample - samples.start] = Err(error),
                    }
                }
            }
            if ended {
                let Walker { sample, walk } = slot.take().expect("the walker is in flight");
                if let Ok(done) = &mut results[sample - samples.start] {
                    *done = walk;
                }
                *slot = start(&mut pending);
            }
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build_csr, BuildOptions, DuplicateEdges, EdgeList};
    use crate::sample::engine::replay_sample;
    use crate::sample::InterpretedSampler;

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
        let (sources, targets): (Vec<u32>, Vec<u32>) =
            (0..3000).map(|_| (next(n - 20), next(n - 20))).filter(|(s, _)| s % 13 != 5).unzip();
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

    #[test]
    fn walks_are_the_general_engines_samples_and_errors() {
        let csr = graph();
        let graph = SampleGraph::new(&csr).unwrap();
        let n = csr.num_vertices();
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
            for seed in [0, 9] {
                let walks = run(&graph, &sampler, &plan, seed, &initial, 5..n);
                let general: Vec<Result<_>> =
                    (5..n).map(|i| replay_sample(&graph, &sampler, &plan, seed, i as u32, initial.roots(i))).collect();
                match walks {
                    Ok(outcome) => {
                        assert_eq!(outcome.num_samples(), n - 5);
                        for (k, expected) in general.into_iter().enumerate() {
                            let (vertices, sources, steps) = expected.unwrap();
                            let got = outcome.sample(k);
                            assert_eq!(got.roots, initial.roots(k + 5), "{name}: sample {}", k + 5);
                            assert_eq!(
                                (got.vertices, got.sources, got.steps),
                                (&vertices[..], &sources[..], &steps[..])
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
        assert_eq!(failed, ["off by one", "off by one"], "only the bad hook fails, with both seeds");
    }
}
