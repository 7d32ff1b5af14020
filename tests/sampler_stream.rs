//! Streamed sampling runs: the batches a sink receives follow each other, hold the whole
//! run's samples whatever the batch size (as do runs gathered batch by batch), and a sink's,
//! a progress report's or a hook's error stops the run with that error; subgraphs numbered batch by batch are the whole run's. The GPU tests skip
//! without a GPU.

mod common;

use glp::gen::{planted_partition, CommunityParams};
use glp::graph::{Csr, VertexId};
use glp::sample::gpu::{self, DeviceSampleGraph, GpuEngine, GpuSampleConfig};
use glp::sample::{
    self, CompiledSampler, InitialSamples, SampleConfig, SampleGraph, SampleOutcome, SampleView, Sampler,
    StreamSummary, SubgraphNumbering,
};
use glp::samplers::{ClusterGcn, DeepWalk, KHop, Layer, MultiRootWalk, Ppr};
use glp::Error;

/// A graph of a few hundred vertices in communities (k-hop neighbourhoods overlap).
fn graph() -> Csr {
    let params = CommunityParams {
        num_vertices: 300,
        avg_degree: 8.0,
        max_degree: 40,
        min_community: 20,
        max_community: 60,
        seed: 5,
        ..CommunityParams::default()
    };
    planted_partition(&params).unwrap().0.csr
}

/// The samplers streamed, each with its initial samples (several roots where it takes them).
fn cases(n: usize) -> Vec<(&'static str, Box<dyn Sampler>, InitialSamples)> {
    let every = InitialSamples::every_vertex(n).unwrap();
    let groups = |per: usize| {
        let offsets: Vec<u64> = (0..=n / per).map(|i| (i * per) as u64).collect();
        InitialSamples::groups(offsets, (0..(n / per * per) as VertexId).collect(), n).unwrap()
    };
    vec![
        ("deepwalk", Box::new(DeepWalk { length: 9 }), every.clone()),
        ("ppr", Box::new(Ppr { termination: 0.3, max_length: 20 }), every.clone()),
        ("khop", Box::new(KHop { hops: 2, fanout_1: 4, fanout_2: 3, fanout_3: 0, fanout_4: 0, replace: true }), every),
        ("layer", Box::new(Layer { layers: 2, size: 9 }), groups(8)),
        ("cluster-gcn", Box::new(ClusterGcn), groups(25)),
        ("multi-root-walk", Box::new(MultiRootWalk { length: 12 }), InitialSamples::random(40, 5, n, 3).unwrap()),
    ]
}

/// The batches of a streamed run, and its summary.
fn streamed(
    graph: &SampleGraph<'_>,
    sampler: &dyn Sampler,
    initial: &InitialSamples,
    batch: usize,
) -> glp::Result<(Vec<SampleOutcome>, StreamSummary)> {
    let mut batches = Vec::new();
    let summary = sample::run_streamed(graph, sampler, initial, &SampleConfig { seed: 17 }, batch, &mut |b| {
        batches.push(b);
        Ok(())
    })?;
    Ok((batches, summary))
}

/// Checks that `batches` follow each other from sample 0 with at most `batch` samples each,
/// and returns them gathered into one outcome.
fn gathered(context: &str, batches: Vec<SampleOutcome>, batch: usize) -> SampleOutcome {
    let mut next = 0u64;
    let mut whole = SampleOutcome::empty(0);
    for b in batches {
        assert_eq!(b.first, next, "{context}: batches follow each other");
        assert!(b.num_samples() >= 1 && b.num_samples() <= batch, "{context}: {} samples", b.num_samples());
        next += b.num_samples() as u64;
        whole.append(b).unwrap();
    }
    whole
}

fn assert_same_samples(context: &str, a: &SampleOutcome, b: &SampleOutcome) {
    assert_eq!((a.first, &a.root_offsets, &a.roots), (b.first, &b.root_offsets, &b.roots), "{context}: roots");
    assert_eq!((&a.offsets, &a.vertices), (&b.offsets, &b.vertices), "{context}: vertices");
    assert_eq!((a.sources(), a.steps()), (b.sources(), b.steps()), "{context}: edges");
}

#[test]
fn streamed_batches_hold_the_whole_runs_samples_whatever_their_size() {
    let csr = graph();
    let graph = SampleGraph::new(&csr).unwrap();
    for (name, sampler, initial) in cases(csr.num_vertices()) {
        let whole = sample::run(&graph, sampler.as_ref(), &initial, &SampleConfig { seed: 17 }).unwrap();
        assert!(whole.sampled_vertices() > 0, "{name}: samples something");
        for batch in [1, 3, 64, 100_000] {
            let context = format!("{name}, batches of {batch}");
            let (batches, summary) = streamed(&graph, sampler.as_ref(), &initial, batch).unwrap();
            assert_eq!(batches.len(), initial.len().div_ceil(batch), "{context}: batch count");
            let gathered = gathered(&context, batches, batch);
            assert_same_samples(&context, &gathered, &whole);
            assert_eq!(summary.samples, initial.len() as u64, "{context}");
            assert_eq!(summary.sampled_vertices, whole.sampled_vertices(), "{context}");
            // Gathered batch by batch straight into one outcome: the same samples, progress
            // reported after each batch.
            let mut done = Vec::new();
            let config = SampleConfig { seed: 17 };
            let direct = sample::run_gathered(&graph, sampler.as_ref(), &initial, &config, batch, &mut |d| {
                done.push(d);
                Ok(())
            })
            .unwrap();
            assert_same_samples(&format!("{context}, gathered"), &direct, &whole);
            let expected: Vec<u64> =
                (1..=initial.len().div_ceil(batch)).map(|k| (k * batch).min(initial.len()) as u64).collect();
            assert_eq!(done, expected, "{context}: progress");
        }
    }
}

#[test]
fn a_sinks_error_stops_the_run_and_is_its_error() {
    let csr = graph();
    let graph = SampleGraph::new(&csr).unwrap();
    let initial = InitialSamples::every_vertex(csr.num_vertices()).unwrap();
    let mut calls = 0;
    let error =
        sample::run_streamed(&graph, &DeepWalk { length: 5 }, &initial, &SampleConfig::default(), 10, &mut |b| {
            calls += 1;
            if b.first == 20 {
                return Err(Error::invalid("the disk is full"));
            }
            Ok(())
        })
        .unwrap_err();
    assert_eq!(error.to_string(), "the disk is full");
    assert_eq!(calls, 3, "batches 0, 10 and 20 reached the sink; none after the error");
    // A gathered run's progress report stops it the same way.
    let mut reports = 0;
    let error =
        sample::run_gathered(&graph, &DeepWalk { length: 5 }, &initial, &SampleConfig::default(), 10, &mut |d| {
            reports += 1;
            if d == 30 {
                return Err(Error::invalid("interrupted"));
            }
            Ok(())
        })
        .unwrap_err();
    assert_eq!((error.to_string().as_str(), reports), ("interrupted", 3));
    let zero =
        sample::run_streamed(&graph, &DeepWalk { length: 5 }, &initial, &SampleConfig::default(), 0, &mut |_| Ok(()));
    assert!(zero.unwrap_err().to_string().contains("at least 1 sample"));
    let zero =
        sample::run_gathered(&graph, &DeepWalk { length: 5 }, &initial, &SampleConfig::default(), 0, &mut |_| Ok(()));
    assert!(zero.unwrap_err().to_string().contains("at least 1 sample"));
}

/// A walk whose hook leaves the graph's edges at sample 37's first step.
struct FailsAt37;
impl Sampler for FailsAt37 {
    fn steps(&self) -> u32 {
        3
    }
    fn sample_size(&self, _step: u32) -> u32 {
        1
    }
    fn next(&self, view: &SampleView<'_>, sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let first = view.edge(transit, 0);
        if sample == 37 {
            // The vertex after the transit's first neighbour: on the cycle below, the
            // transit itself, which is not its own neighbour.
            (first + 1) % view.num_vertices()
        } else {
            first
        }
    }
}

#[test]
fn a_hooks_error_in_a_later_batch_is_the_whole_runs_error_after_the_batches_before() {
    // A cycle of 60 vertices (each linked to the next and the previous).
    let n = 60u32;
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for v in 0..n {
        let mut row = [(v + n - 1) % n, (v + 1) % n];
        row.sort_unstable();
        targets.extend_from_slice(&row);
        offsets.push(targets.len() as u64);
    }
    let csr = Csr::new(offsets, targets, None).unwrap();
    let graph = SampleGraph::new(&csr).unwrap();
    let initial = InitialSamples::every_vertex(n as usize).unwrap();
    let whole = sample::run(&graph, &FailsAt37, &initial, &SampleConfig::default()).unwrap_err().to_string();
    // Sample 37's transit 37 has the neighbours 36 and 38: the hook returns 37.
    assert!(whole.contains("`next` returned vertex 37, which is not a neighbour of its transit 37"), "{whole}");
    assert!(whole.contains("(sample 37, step 0, lane 0)"), "{whole}");
    let mut delivered = Vec::new();
    let streamed = sample::run_streamed(&graph, &FailsAt37, &initial, &SampleConfig::default(), 4, &mut |b| {
        delivered.push(b.first);
        Ok(())
    });
    assert_eq!(streamed.unwrap_err().to_string(), whole);
    assert_eq!(delivered, (0..36).step_by(4).collect::<Vec<u64>>(), "the batches before sample 37's");
}

#[test]
fn subgraphs_numbered_batch_by_batch_are_the_whole_runs() {
    let csr = graph();
    let graph = SampleGraph::new(&csr).unwrap();
    for (name, sampler, initial) in cases(csr.num_vertices()) {
        let whole = sample::run(&graph, sampler.as_ref(), &initial, &SampleConfig { seed: 17 }).unwrap();
        let expected = whole.subgraphs().unwrap();
        let (batches, _) = streamed(&graph, sampler.as_ref(), &initial, 7).unwrap();
        let mut numbering = SubgraphNumbering::new();
        let pieces: Vec<_> = batches.iter().map(|b| numbering.add(b).unwrap()).collect();
        let starts = numbering.hop_starts();
        let (mut node, mut batch): (Vec<VertexId>, Vec<u64>) = (Vec::new(), Vec::new());
        let (mut row, mut col): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
        for hop in 0..numbering.num_sampled_nodes().len() {
            for p in &pieces {
                node.extend(p.node.get(hop).into_iter().flatten().copied());
                batch.extend(p.batch.get(hop).into_iter().flatten().copied());
            }
        }
        for step in 0..numbering.num_sampled_edges().len() {
            for p in &pieces {
                row.extend(p.row.get(step).into_iter().flatten().map(|v| starts[v.hop as usize] + v.index));
                col.extend(p.col.get(step).into_iter().flatten().map(|v| starts[v.hop as usize] + v.index));
            }
        }
        assert_eq!(node, expected.node, "{name}");
        assert_eq!(batch, expected.batch, "{name}");
        assert_eq!(row, expected.row, "{name}");
        assert_eq!(col, expected.col, "{name}");
        assert_eq!(numbering.num_sampled_nodes(), expected.num_sampled_nodes, "{name}");
        assert_eq!(numbering.num_sampled_edges(), expected.num_sampled_edges, "{name}");
    }
}

#[test]
fn gpu_batches_stream_the_cpu_samples_in_order() {
    let Some(gpu) = common::gpu_or_skip("gpu_batches_stream_the_cpu_samples_in_order") else { return };
    let csr = graph();
    let graph = SampleGraph::new(&csr).unwrap();
    let device = DeviceSampleGraph::upload(&gpu, &graph).unwrap();
    let n = csr.num_vertices();
    let every = InitialSamples::every_vertex(n).unwrap();
    let khop = KHop { hops: 2, fanout_1: 4, fanout_2: 3, fanout_3: 0, fanout_4: 0, replace: true };
    let samplers: [(&str, &dyn CompiledSampler); 3] =
        [("deepwalk", &DeepWalk { length: 9 }), ("ppr", &Ppr { termination: 0.3, max_length: 20 }), ("khop", &khop)];
    for (name, sampler) in samplers {
        let cpu = sample::run(&graph, sampler, &every, &SampleConfig { seed: 17 }).unwrap();
        for engine in [GpuEngine::SampleParallel, GpuEngine::TransitParallel] {
            let context = format!("{name} on {engine:?}, batches of 7");
            let config = GpuSampleConfig { seed: 17, engine, batch_samples: Some(7), ..GpuSampleConfig::default() };
            let mut batches = Vec::new();
            let (stats, summary) = gpu::run_streamed(&gpu, &device, sampler, &every, &config, &mut |b| {
                batches.push(b);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{context}: {e}"));
            assert!(stats.batches >= n.div_ceil(7) as u32, "{context}: {} launches", stats.batches);
            assert_eq!(summary.samples, n as u64, "{context}");
            assert_same_samples(&context, &gathered(&context, batches, 7), &cpu);
        }
    }
    // A sink's error is the run's.
    let config = GpuSampleConfig { seed: 17, batch_samples: Some(7), ..GpuSampleConfig::default() };
    let error = gpu::run_streamed(&gpu, &device, &DeepWalk { length: 9 }, &every, &config, &mut |b| {
        if b.first >= 14 {
            return Err(Error::invalid("the disk is full"));
        }
        Ok(())
    })
    .unwrap_err();
    assert_eq!(error.to_string(), "the disk is full");
}
