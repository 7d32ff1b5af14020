//! Graphs whose edges stay in host memory: every built-in sampler gives the CPU's samples bit
//! for bit when the edges are read over the bus (zero-copy) or, for walks, copied to the
//! device partition by partition; budgets are set so that graphs of a few thousand edges are
//! cut into dozens of partitions, few of them resident. Skipped without a GPU, failed with
//! `GLP_REQUIRE_GPU=1`.

mod common;

use common::{degree_mix, load, with_integer_weights};
use glp::device::Gpu;
use glp::graph::{Csr, VertexId};
use glp::sample::gpu::{DeviceSampleGraph, GpuEngine, GpuSampleConfig, GpuSampleStats, Placement};
use glp::sample::{
    self, CompiledSampler, InitialSamples, SampleConfig, SampleGraph, SampleOutcome, SampleView, Sampler, NONE,
};
use glp::samplers::{Ppr, BUILT_IN};

fn assert_same(context: &str, cpu: &SampleOutcome, gpu: &SampleOutcome) {
    assert_eq!(cpu.offsets, gpu.offsets, "{context}: sample lengths");
    assert_eq!(cpu.vertices, gpu.vertices, "{context}: vertices");
    assert_eq!(cpu.sources(), gpu.sources(), "{context}: transits");
    assert_eq!(cpu.steps(), gpu.steps(), "{context}: steps");
}

/// Runs `sampler` from `initial` on the CPU and on `gpu` with the graph placed as `placement`
/// within `budget` bytes, the run within `run_memory` (`None`: most of the free memory);
/// asserts the samples are the same and returns the GPU's statistics.
fn same_as_cpu(
    gpu: &Gpu,
    context: &str,
    csr: &Csr,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    (placement, budget, engine): (Placement, u64, GpuEngine),
    run_memory: Option<u64>,
) -> GpuSampleStats {
    let graph = SampleGraph::detecting_symmetry(csr).unwrap();
    let cpu = sample::run(&graph, sampler, initial, &SampleConfig { seed: 3 }).unwrap();
    let device = DeviceSampleGraph::place(gpu, &graph, placement, Some(budget))
        .unwrap_or_else(|e| panic!("{context}: placing the graph: {e}"));
    assert_eq!(device.placement(), placement, "{context}");
    // Part of the edges must stay in host memory, or nothing is read over the bus or copied.
    let (resident, partitions) = device.resident_partitions().unwrap();
    assert!(resident < partitions, "{context}: all {partitions} partitions are resident");
    let config = GpuSampleConfig { seed: 3, engine, device_memory: run_memory, ..GpuSampleConfig::default() };
    let (outcome, stats) =
        sample::gpu::run(gpu, &device, sampler, initial, &config).unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_same(context, &cpu, &outcome);
    assert_eq!(stats.placement, placement.name(), "{context}");
    stats
}

/// email-Eu-core with integer weights (1,005 vertices, 32,128 stored edges, rows up to 345)
/// under 64 KiB, and a graph with hubs of 3,000 and 1,500 neighbours under 160 KiB: about 30
/// partitions of 1,024 or 2,048 edges, a handful resident.
fn graphs() -> Vec<(&'static str, Csr, u64)> {
    vec![
        ("email-Eu-core, integer weights", with_integer_weights(&load("email-Eu-core.txt").csr), 64 << 10),
        ("hubs of 3000 and 1500", degree_mix(&[3000, 1500], &[1, 2, 5, 9], 4000, 11, 50, 20), 160 << 10),
    ]
}

#[test]
fn walks_over_partitions_copied_in_turn_match_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("walks_over_partitions_copied_in_turn_match_the_cpu") else { return };
    for (graph_name, csr, budget) in graphs() {
        // 3,000 walks in batches of a thousand or more: dozens of walks wait in each partition,
        // so partitions are copied. 40 walks: a few per partition, read over the bus.
        for (roots, run_memory) in [(3000, 2 * budget), (40, budget)] {
            let initial = InitialSamples::random(roots, 1, csr.num_vertices(), 9).unwrap();
            for name in ["deepwalk", "weighted-deepwalk", "ppr", "node2vec"] {
                let sampler = (BUILT_IN.iter().find(|b| b.name == name).unwrap().sampler)();
                let context = format!("{name} on {graph_name}, partitions, {roots} walks");
                let placed = (Placement::Partitions, budget, GpuEngine::Auto);
                let stats = same_as_cpu(&gpu, &context, &csr, sampler.as_ref(), &initial, placed, Some(run_memory));
                assert_eq!(stats.engine, "partitioned-walks", "{context}");
                assert!(stats.passes > 1, "{context}: {stats:?}");
                if roots == 3000 {
                    assert!(stats.copied_bytes > 0 && stats.batches > 1, "{context}: {stats:?}");
                } else {
                    assert!(stats.bus_visits > 0, "{context}: {stats:?}");
                }
            }
        }
    }
}

/// Walks that may run 2^24 steps (PPR stopping 0.2% of the time: a few thousand at most) over
/// partitions: each batch's rows come back as its walks reach them, not as the declared steps
/// would size them.
#[test]
fn walks_over_partitions_that_may_run_millions_of_steps_match_the_cpu() {
    let name = "walks_over_partitions_that_may_run_millions_of_steps_match_the_cpu";
    let Some(gpu) = common::gpu_or_skip(name) else { return };
    let (graph_name, csr, budget) = graphs().swap_remove(0);
    let initial = InitialSamples::random(3000, 1, csr.num_vertices(), 5).unwrap();
    let sampler = Ppr { termination: 0.002, max_length: 1 << 24 };
    let context = format!("PPR of up to 2^24 steps on {graph_name}, partitions");
    let placed = (Placement::Partitions, budget, GpuEngine::Auto);
    let stats = same_as_cpu(&gpu, &context, &csr, &sampler, &initial, placed, Some(2 * budget));
    assert_eq!(stats.engine, "partitioned-walks", "{context}");
    assert!(stats.batches > 1 && stats.copied_bytes > 0, "{context}: {stats:?}");
}

/// The same walks with their edges read over the bus: the walk engine's matrix sized by the
/// declared steps (small batches within the memory allowed), each batch's rows downloaded in
/// chunks until its walks have ended, not as the declared steps would size them.
#[test]
fn walks_over_the_bus_that_may_run_millions_of_steps_match_the_cpu() {
    let name = "walks_over_the_bus_that_may_run_millions_of_steps_match_the_cpu";
    let Some(gpu) = common::gpu_or_skip(name) else { return };
    let (graph_name, csr, budget) = graphs().swap_remove(0);
    let initial = InitialSamples::random(300, 1, csr.num_vertices(), 5).unwrap();
    let sampler = Ppr { termination: 0.002, max_length: 1 << 24 };
    let context = format!("PPR of up to 2^24 steps on {graph_name}, zero-copy");
    let placed = (Placement::ZeroCopy, budget, GpuEngine::Auto);
    // Room for 40 walks of every level beside the graph's resident part.
    let run_memory = budget + 40 * ((u64::from(sampler.max_length) + 1) * 4 + 8);
    let stats = same_as_cpu(&gpu, &context, &csr, &sampler, &initial, placed, Some(run_memory));
    assert_eq!(stats.engine, "walks", "{context}");
    assert!(stats.batches > 1, "{context}: {stats:?}");
}

/// A walk whose step depends on where it stood `back` steps ago: an edge index shifted by that
/// vertex.
#[derive(Debug, Clone, Copy)]
struct LongMemoryWalk {
    length: u32,
    back: u32,
}

#[glp::sampler]
impl Sampler for LongMemoryWalk {
    fn steps(&self) -> u32 {
        self.length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let degree = view.degree(transit);
        if degree == 0 {
            return NONE;
        }
        let long_ago = view.previous_vertex(self.back, 0);
        let shift = if long_ago == NONE { 0 } else { long_ago as u64 + 1 };
        view.edge(transit, (view.random_below(degree) + shift) % degree)
    }
}

/// A hook that reads its walk further back than the partitioned walks' ring keeps gets the
/// CPU's walks: the batches run again with every row kept.
#[test]
fn walks_over_partitions_that_read_far_back_match_the_cpu() {
    let name = "walks_over_partitions_that_read_far_back_match_the_cpu";
    let Some(gpu) = common::gpu_or_skip(name) else { return };
    for (graph_name, csr, budget) in graphs() {
        let initial = InitialSamples::random(3000, 1, csr.num_vertices(), 6).unwrap();
        // 24 steps back: deeper than the ring's 16 rows.
        let sampler = LongMemoryWalk { length: 60, back: 24 };
        let context = format!("a walk reading 24 steps back on {graph_name}, partitions");
        let placed = (Placement::Partitions, budget, GpuEngine::Auto);
        let stats = same_as_cpu(&gpu, &context, &csr, &sampler, &initial, placed, Some(2 * budget));
        assert_eq!(stats.engine, "partitioned-walks", "{context}");
        assert!(stats.rerun_samples > 0, "{context}: no batch ran again: {stats:?}");
    }
}

#[test]
fn every_sampler_reads_edges_over_the_bus_as_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("every_sampler_reads_edges_over_the_bus_as_the_cpu") else { return };
    // email-Eu-core only: the hub graph's longest row (3,000) sets partitions so large that a
    // budget holding one keeps every partition resident without staging buffers.
    for (graph_name, csr, budget) in graphs().into_iter().take(1) {
        let initial = InitialSamples::random(400, 1, csr.num_vertices(), 4).unwrap();
        for built_in in BUILT_IN {
            let sampler = (built_in.sampler)();
            for engine in [GpuEngine::Auto, GpuEngine::TransitParallel] {
                let context = format!("{} on {graph_name}, zero-copy, {engine:?}", built_in.name);
                let placed = (Placement::ZeroCopy, budget, engine);
                let stats = same_as_cpu(&gpu, &context, &csr, sampler.as_ref(), &initial, placed, None);
                assert_eq!(stats.copied_bytes, 0, "{context}");
            }
        }
    }
}

#[test]
fn placements_beyond_the_budget_are_refused_with_what_fits() {
    let Some(gpu) = common::gpu_or_skip("placements_beyond_the_budget_are_refused_with_what_fits") else { return };
    let csr = load("email-Eu-core.txt").csr;
    let graph = SampleGraph::new(&csr).unwrap();
    let error = |placement, budget| match DeviceSampleGraph::place(&gpu, &graph, placement, Some(budget)) {
        Ok(_) => panic!("{placement:?} within {budget} bytes was accepted"),
        Err(e) => e.to_string(),
    };
    let device = error(Placement::Device, 64 << 10);
    assert!(device.contains("--placement partitions or zero-copy"), "{device}");
    let offsets = error(Placement::Partitions, 8 << 10);
    assert!(offsets.contains("per-vertex arrays") && offsets.contains("--device-memory"), "{offsets}");
    let row = error(Placement::ZeroCopy, 18 << 10);
    assert!(row.contains("longest row (345 edges)"), "{row}");
    // The auto placement keeps a graph that fits on the device, and cuts one that does not.
    let fits = DeviceSampleGraph::place(&gpu, &graph, Placement::Auto, None).unwrap();
    assert_eq!(fits.placement(), Placement::Device);
    let cut = DeviceSampleGraph::place(&gpu, &graph, Placement::Auto, Some(64 << 10)).unwrap();
    assert_eq!(cut.placement(), Placement::Partitions);
}
