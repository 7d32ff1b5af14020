//! Subgraphs numbered on the device (`glp::sample::gpu::run_subgraphs_on_device`) equal the
//! host numbering (`SampleOutcome::subgraphs`, PyG's disjoint subgraphs) of the CPU engine's
//! samples for the same seed, array for array: every built-in sampler, with one and three
//! roots per sample, on both engines, in one batch and in many (local ids are numbered over
//! all of them), with input ids a range and a table, with samples that outgrow their first
//! region and samples that run out of transits before their last step, in the same run.
//! Skipped without a GPU unless `GLP_REQUIRE_GPU=1`.

mod common;

use common::{degree_mix, load, out_tree, small_with_dead_end, some_sample_stops_after, with_integer_weights};
use glp::device::Gpu;
use glp::graph::{Csr, VertexIds};
use glp::sample::gpu::{run_subgraphs_on_device, DeviceSampleGraph, DeviceSubgraphs, GpuEngine, GpuSampleConfig};
use glp::sample::{self, CompiledSampler, InitialSamples, SampleConfig, SampleGraph, SubgraphBatch};
use glp::samplers::{Layer, BUILT_IN};

/// The device arrays, downloaded and cut to their lengths.
fn downloaded(gpu: &Gpu, subgraphs: &DeviceSubgraphs) -> [Vec<i64>; 4] {
    let cut = |buffer, len: u64| {
        let mut values = gpu.download(buffer).unwrap();
        values.truncate(len as usize);
        values
    };
    [
        cut(&subgraphs.node, subgraphs.num_nodes),
        cut(&subgraphs.batch, subgraphs.num_nodes),
        cut(&subgraphs.row, subgraphs.num_edges),
        cut(&subgraphs.col, subgraphs.num_edges),
    ]
}

/// The host numbering's arrays, vertices as input ids.
fn expected(subgraphs: &SubgraphBatch, ids: &VertexIds) -> [Vec<i64>; 4] {
    let signed = |values: &[u64]| values.iter().map(|&v| v as i64).collect::<Vec<_>>();
    let node = subgraphs.node.iter().map(|&v| ids.original(v) as i64).collect();
    [node, signed(&subgraphs.batch), signed(&subgraphs.row), signed(&subgraphs.col)]
}

/// Runs `sampler` from `initial` on the CPU and, numbered on the device, on the GPU; asserts
/// the arrays agree. Returns the samples run again with larger regions.
fn compare(
    gpu: &Gpu,
    context: &str,
    csr: &Csr,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    ids: &VertexIds,
    config: GpuSampleConfig,
) -> u64 {
    let graph = SampleGraph::detecting_symmetry(csr).unwrap();
    let cpu = sample::run(&graph, sampler, initial, &SampleConfig { seed: config.seed })
        .unwrap_or_else(|e| panic!("{context} on the CPU: {e}"));
    let host = cpu.subgraphs().unwrap();
    let device = DeviceSampleGraph::upload(gpu, &graph).unwrap();
    let (on_gpu, stats) = run_subgraphs_on_device(gpu, &device, sampler, initial, ids, &config)
        .unwrap_or_else(|e| panic!("{context} on the GPU: {e}"));
    let names = ["node", "batch", "row", "col"];
    for ((name, got), want) in names.iter().zip(downloaded(gpu, &on_gpu)).zip(expected(&host, ids)) {
        assert_eq!(got.len(), want.len(), "{context}: {name}'s length");
        if let Some(at) = got.iter().zip(&want).position(|(a, b)| a != b) {
            panic!("{context}: {name}[{at}] is {} on the GPU, {} on the host", got[at], want[at]);
        }
    }
    assert_eq!(on_gpu.num_sampled_nodes, host.num_sampled_nodes, "{context}: nodes per hop");
    assert_eq!(on_gpu.num_sampled_edges, host.num_sampled_edges, "{context}: edges per step");
    assert_eq!(on_gpu.samples, initial.len() as u64, "{context}: samples");
    assert_eq!(on_gpu.sampled_vertices, cpu.sampled_vertices(), "{context}: sampled vertices");
    stats.rerun_samples
}

fn graphs() -> Vec<(&'static str, Csr)> {
    vec![
        ("email-Eu-core, integer weights", with_integer_weights(&load("email-Eu-core.txt").csr)),
        ("small, dead end", small_with_dead_end()),
        ("hubs of 3000 and 1500 neighbours, repeats", degree_mix(&[3000, 1500], &[1, 2, 5, 9], 4000, 11, 50, 20)),
    ]
}

#[test]
fn every_built_in_sampler_numbers_its_subgraphs_on_the_gpu_as_the_host() {
    let Some(gpu) = common::gpu_or_skip("every_built_in_sampler_numbers_its_subgraphs_on_the_gpu_as_the_host") else {
        return;
    };
    for (graph_name, csr) in graphs() {
        let n = csr.num_vertices();
        // Input ids a range from 10, and a table (7v + 3).
        let range = VertexIds::Range { first: 10, len: n };
        let table = VertexIds::Table((0..n as u64).map(|v| 7 * v + 3).collect());
        for built_in in &BUILT_IN {
            let sampler = (built_in.sampler)();
            for (seed, roots, engine, batch_samples, ids) in [
                (1u64, 1u32, GpuEngine::Auto, None, &range),
                (7, 3, GpuEngine::Auto, Some(37), &table),
                (3, 3, GpuEngine::TransitParallel, Some(101), &range),
            ] {
                let initial = InitialSamples::random(300, roots, n, seed).unwrap();
                let config = GpuSampleConfig { seed, engine, batch_samples, ..GpuSampleConfig::default() };
                let context = format!(
                    "{} on {graph_name}, seed {seed}, {roots} root(s), {engine:?}, batches of {batch_samples:?}",
                    built_in.name
                );
                compare(&gpu, &context, &csr, sampler.as_ref(), &initial, ids, config);
            }
        }
    }
}

#[test]
fn samples_that_outgrow_their_regions_and_large_samples_number_as_on_the_host() {
    let Some(gpu) = common::gpu_or_skip("samples_that_outgrow_their_regions_and_large_samples_number_as_on_the_host")
    else {
        return;
    };
    let csr = degree_mix(&[3000, 1500], &[1, 2, 5, 9], 4000, 11, 50, 20);
    let ids = VertexIds::Range { first: 0, len: csr.num_vertices() };
    // 6,000 draws per layer from combined neighbourhoods of thousands of entries.
    let layer = Layer { layers: 2, size: 6000 };
    let initial = InitialSamples::random(40, 2, csr.num_vertices(), 5).unwrap();
    let config = GpuSampleConfig { seed: 5, batch_samples: Some(16), ..GpuSampleConfig::default() };
    compare(&gpu, "layer 2 x 6000", &csr, &layer, &initial, &ids, config);
    // Three hops of 100 draws with replacement: a hop through one of the hubs (most vertices
    // neighbour one) reaches about a hundred transits, whose next hop adds thousands of
    // records, more than a first region holds, so samples run again larger.
    let wide = glp::samplers::KHop { hops: 3, fanout_1: 100, fanout_2: 100, fanout_3: 100, fanout_4: 0, replace: true };
    let initial = InitialSamples::random(40, 1, csr.num_vertices(), 5).unwrap();
    let reruns = compare(&gpu, "k-hop 100,100,100", &csr, &wide, &initial, &ids, config);
    assert!(reruns > 0, "some sample outgrew its first region and ran again");
    // Three hops on a tree whose edges lead to its leaves: samples from near the leaves add
    // nothing from some step on (their later steps end where their records do).
    let tree = out_tree(2000);
    let tree_ids = VertexIds::Range { first: 0, len: tree.num_vertices() };
    let hops = glp::samplers::KHop { hops: 3, fanout_1: 3, fanout_2: 2, fanout_3: 2, fanout_4: 0, replace: true };
    let initial = InitialSamples::random(500, 2, tree.num_vertices(), 4).unwrap();
    let graph = SampleGraph::detecting_symmetry(&tree).unwrap();
    let cpu = sample::run(&graph, &hops, &initial, &SampleConfig { seed: 4 }).unwrap();
    for step in 0..2 {
        assert!(some_sample_stops_after(&cpu, step), "no sample on the tree stopped after step {step}");
    }
    // And hops of 3,000 draws: samples from near the root outgrow their first region and run
    // again, in the same batches as samples that stop early.
    let wide_hops = glp::samplers::KHop { fanout_1: 3000, fanout_2: 3000, fanout_3: 3, ..hops };
    for engine in [GpuEngine::Auto, GpuEngine::TransitParallel] {
        let config = GpuSampleConfig { seed: 4, engine, batch_samples: Some(97), ..GpuSampleConfig::default() };
        compare(&gpu, &format!("k-hop 3,2,2 on a tree ({engine:?})"), &tree, &hops, &initial, &tree_ids, config);
        let context = format!("k-hop 3000,3000,3 on a tree ({engine:?})");
        let reruns = compare(&gpu, &context, &tree, &wide_hops, &initial, &tree_ids, config);
        assert!(reruns > 0, "{context}: no sample outgrew its first region");
    }
    // A mini-batch of 512 roots per sample (the loader's shape): samples of thousands of
    // vertices, each deduplicated in its own table.
    let khop = glp::samplers::KHop { hops: 2, fanout_1: 10, fanout_2: 10, fanout_3: 0, fanout_4: 0, replace: true };
    let initial = InitialSamples::random(6, 512, csr.num_vertices(), 9).unwrap();
    let config = GpuSampleConfig { seed: 9, ..GpuSampleConfig::default() };
    compare(&gpu, "k-hop 10,10 from 512 roots", &csr, &khop, &initial, &ids, config);
}
