//! CPU == GPU for whole sampling runs: every built-in sampler, a sampler file, draws without
//! replacement and samples that outgrow their first region give on the GPU engines
//! (`glp::sample::gpu::run`, sample-parallel through `auto`, and transit-parallel) exactly
//! the CPU engine's samples (every vertex, its transit and step) for the same seed, whichever
//! way the walk engine reads its edges (the CSR, 8- or 16-byte packed edges): on a
//! weighted real graph, on a small graph with a dead end, and on a graph with hubs of
//! thousands of neighbours and repeated neighbours; with one root per sample (the walk engine
//! for walks) and several (the per-sample engine); with thousands of samples on one hub, so
//! that the transit-parallel engine runs all three kernel classes; with samples that run out of
//! transits before their last step (their records' step ends), beside samples run again in
//! larger regions. A hook's bad result fails the GPU run with the CPU's own error. Skipped
//! without a GPU unless `GLP_REQUIRE_GPU=1`.

mod common;

use common::{
    degree_mix, levelled_out_tree, load, out_tree, small_with_dead_end, some_sample_stops_after, with_integer_weights,
};
use glp::device::Gpu;
use glp::graph::Csr;
use glp::sample::gpu::{DeviceSampleGraph, GpuEngine, GpuSampleConfig, GpuSampleStats, WalkPacking};
use glp::sample::{
    self, CompiledSampler, InitialSamples, InterpretedSampler, SampleConfig, SampleGraph, SampleOutcome,
};
use glp::samplers::{KHop, Layer, Ppr, BUILT_IN};

fn graphs() -> Vec<(&'static str, Csr)> {
    vec![
        ("email-Eu-core, integer weights", with_integer_weights(&load("email-Eu-core.txt").csr)),
        ("small, dead end", small_with_dead_end()),
        ("hubs of 3000 and 1500 neighbours, repeats", degree_mix(&[3000, 1500], &[1, 2, 5, 9], 4000, 11, 50, 20)),
    ]
}

/// The CPU's and the GPU's outcomes of one run, and the GPU's statistics.
fn both(
    gpu: &Gpu,
    csr: &Csr,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    config: GpuSampleConfig,
) -> (SampleOutcome, glp::Result<(SampleOutcome, GpuSampleStats)>) {
    let graph = SampleGraph::detecting_symmetry(csr).unwrap();
    let cpu = sample::run(&graph, sampler, initial, &SampleConfig { seed: config.seed })
        .unwrap_or_else(|e| panic!("{} on the CPU: {e}", sampler.name()));
    let device = DeviceSampleGraph::upload(gpu, &graph).unwrap();
    let on_gpu = sample::gpu::run(gpu, &device, sampler, initial, &config);
    (cpu, on_gpu)
}

fn assert_same(context: &str, cpu: &SampleOutcome, gpu: &SampleOutcome) {
    assert_eq!(cpu.offsets, gpu.offsets, "{context}: sample lengths");
    assert_eq!(cpu.vertices, gpu.vertices, "{context}: vertices");
    assert_eq!(cpu.sources(), gpu.sources(), "{context}: transits");
    assert_eq!(cpu.steps(), gpu.steps(), "{context}: steps");
    assert_eq!((&cpu.root_offsets, &cpu.roots), (&gpu.root_offsets, &gpu.roots), "{context}: roots");
}

/// Runs `sampler` on `engine` on every graph with one and three roots per sample and two
/// seeds; returns the engines that ran and how many samples were run again.
fn compare(gpu: &Gpu, name: &str, sampler: &dyn CompiledSampler, engine: GpuEngine) -> (Vec<&'static str>, u64) {
    let mut engines = Vec::new();
    let mut reruns = 0;
    for (graph_name, csr) in graphs() {
        for (seed, roots) in [(1u64, 1u32), (7, 3)] {
            let initial = InitialSamples::random(300, roots, csr.num_vertices(), seed).unwrap();
            let config = GpuSampleConfig { seed, engine, ..GpuSampleConfig::default() };
            let (cpu, on_gpu) = both(gpu, &csr, sampler, &initial, config);
            let context = format!("{name} ({engine:?}) on {graph_name}, seed {seed}, {roots} root(s)");
            let (outcome, stats) = on_gpu.unwrap_or_else(|e| panic!("{context} on the GPU: {e}"));
            assert_same(&context, &cpu, &outcome);
            engines.push(stats.engine);
            reruns += stats.rerun_samples;
        }
    }
    (engines, reruns)
}

/// A sampler file of `hops` hops of `fanout` uniform draws each, the second hop without
/// replacement and the others with it.
fn mixed_hops(hops: u32, fanout: u32) -> InterpretedSampler {
    let source = r#"
        struct MixedHops { hops: u32, fanout: u32 }
        impl Sampler for MixedHops {
            fn steps(&self) -> u32 { self.hops }
            fn sample_size(&self, _step: u32) -> u32 { self.fanout }
            fn unique(&self, step: u32) -> bool { step == 1 }
            fn next(&self, view: &SampleView, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
                let degree = view.degree(transit);
                if degree == 0 { return NONE; }
                view.edge(transit, view.random_below(degree))
            }
        }
    "#;
    InterpretedSampler::from_source("mixed_hops.rs", source, &[format!("hops={hops}"), format!("fanout={fanout}")])
        .unwrap()
}

#[test]
fn every_built_in_sampler_samples_on_the_gpu_as_on_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("every_built_in_sampler_samples_on_the_gpu_as_on_the_cpu") else { return };
    let mut engines = Vec::new();
    for built_in in &BUILT_IN {
        let sampler = (built_in.sampler)();
        for engine in [GpuEngine::Auto, GpuEngine::TransitParallel] {
            engines.extend(compare(&gpu, built_in.name, sampler.as_ref(), engine).0);
        }
    }
    for engine in ["walks", "per-sample", "warp-per-sample", "step-by-step"] {
        assert!(engines.contains(&engine), "{engine} never ran: {engines:?}");
    }
}

#[test]
fn draws_without_replacement_and_samples_that_outgrow_their_regions_match_the_cpu() {
    let Some(gpu) =
        common::gpu_or_skip("draws_without_replacement_and_samples_that_outgrow_their_regions_match_the_cpu")
    else {
        return;
    };
    // Without replacement, fan-outs above many degrees: repeats are drawn again, and rows run
    // out of distinct neighbours.
    let khop = KHop { hops: 2, fanout_1: 25, fanout_2: 10, fanout_3: 0, fanout_4: 0, replace: false };
    let (engines, _) = compare(&gpu, "k-hop 25,10 without replacement", &khop, GpuEngine::Auto);
    assert!(engines.iter().all(|&e| e == "per-sample"), "{engines:?}");
    compare(&gpu, "k-hop 25,10 without replacement", &khop, GpuEngine::TransitParallel);
    // A first hop with replacement and a second without: the general warp-per-sample kernel
    // (k-hop, whose hops all draw with replacement, runs its draws-only twin).
    let mixed = mixed_hops(2, 12);
    let (engines, _) = compare(&gpu, "hops with and without replacement", &mixed, GpuEngine::Auto);
    assert!(engines.iter().all(|&e| e == "warp-per-sample"), "{engines:?}");
    // 6,000 draws per layer: more than the first region's 4,096 added vertices.
    let layer = Layer { layers: 2, size: 6000 };
    for engine in [GpuEngine::Auto, GpuEngine::TransitParallel] {
        let (_, reruns) = compare(&gpu, "layer 2 x 6000", &layer, engine);
        assert!(reruns > 0, "some sample outgrew its first region and ran again");
    }
    // A k-hop whose 2,000 draws from a hub outgrow the first region of 4,096 added vertices
    // on the transit-parallel engine too.
    let wide = KHop { hops: 2, fanout_1: 2000, fanout_2: 3, fanout_3: 0, fanout_4: 0, replace: true };
    let (_, reruns) = compare(&gpu, "k-hop 2000,3", &wide, GpuEngine::TransitParallel);
    assert!(reruns > 0, "some k-hop sample outgrew its first region and ran again");
}

#[test]
fn samples_that_stop_before_their_last_step_match_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("samples_that_stop_before_their_last_step_match_the_cpu") else { return };
    // Three steps on a tree whose edges lead to its leaves: a sample from near the leaves adds
    // nothing from some step on, and its later steps end where its record does. With
    // replacement (the draws kernel, and transit-parallel steps), without (a thread per
    // sample), mixed (the general warp kernel), and collective layers (a thread per sample,
    // and sample-parallel steps one launch each).
    let csr = out_tree(2000);
    let with = KHop { hops: 3, fanout_1: 3, fanout_2: 2, fanout_3: 2, fanout_4: 0, replace: true };
    let without = KHop { replace: false, ..with };
    let mixed = mixed_hops(3, 3);
    let layers = Layer { layers: 3, size: 4 };
    let samplers: [(&str, &dyn CompiledSampler); 4] = [
        ("k-hop 3,2,2", &with),
        ("k-hop 3,2,2 without replacement", &without),
        ("mixed hops", &mixed),
        ("layer 3 x 4", &layers),
    ];
    let mut engines = Vec::new();
    for (name, sampler) in samplers {
        for (seed, roots) in [(2u64, 1u32), (5, 2)] {
            let initial = InitialSamples::random(500, roots, csr.num_vertices(), seed).unwrap();
            for engine in [GpuEngine::Auto, GpuEngine::TransitParallel] {
                let config = GpuSampleConfig { seed, engine, batch_samples: Some(97), ..GpuSampleConfig::default() };
                let (cpu, on_gpu) = both(&gpu, &csr, sampler, &initial, config);
                let context = format!("{name} ({engine:?}) on a tree, seed {seed}, {roots} root(s)");
                // The run holds samples that stopped after each of the steps but the last.
                for step in 0..2 {
                    assert!(some_sample_stops_after(&cpu, step), "{context}: no sample stopped after step {step}");
                }
                let (outcome, stats) = on_gpu.unwrap_or_else(|e| panic!("{context} on the GPU: {e}"));
                assert_same(&context, &cpu, &outcome);
                engines.push(stats.engine);
                engines.extend(stats.step_engines);
            }
        }
    }
    for engine in ["per-sample", "warp-per-sample", "step-by-step", "sp", "tp"] {
        assert!(engines.contains(&engine), "{engine} never ran: {engines:?}");
    }
}

#[test]
fn samples_that_stop_early_beside_samples_run_again_larger_match_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("samples_that_stop_early_beside_samples_run_again_larger_match_the_cpu") else {
        return;
    };
    // k-hop on the binary tree: a sample from near its root adds 3,000 vertices at each of
    // two steps, more than its first region's 4,096 in all, and runs again in a larger one; a
    // sample from near the leaves stops after its first or second step.
    let tree = out_tree(2000);
    let khop = KHop { hops: 3, fanout_1: 3000, fanout_2: 3000, fanout_3: 3, fanout_4: 0, replace: true };
    let tree_roots = InitialSamples::random(200, 1, tree.num_vertices(), 6).unwrap();
    // Layers (distinct vertices) on a tree of 6,000 children of its root, each with two
    // leaves: from the root 2,100 vertices a layer for two layers (run again), from a child
    // its two leaves. (Few repeats: a draw without replacement that repeats scans the layer
    // so far on the GPU's thread per sample.)
    let broom = levelled_out_tree(&[6000, 2]);
    let layers = Layer { layers: 3, size: 2100 };
    let broom_roots: Vec<u32> = (0..200).map(|i| if i % 4 == 0 { 0 } else { 1 + (37 * i) % 6000 }).collect();
    let broom_roots = InitialSamples::given(broom_roots, broom.num_vertices()).unwrap();
    let runs: [(&str, &dyn CompiledSampler, &Csr, &InitialSamples); 2] = [
        ("k-hop 3000,3000,3 on a binary tree", &khop, &tree, &tree_roots),
        ("layer 3 x 2100 on a broom", &layers, &broom, &broom_roots),
    ];
    for (name, sampler, csr, initial) in runs {
        for engine in [GpuEngine::Auto, GpuEngine::TransitParallel] {
            let config = GpuSampleConfig { seed: 6, engine, batch_samples: Some(64), ..GpuSampleConfig::default() };
            let (cpu, on_gpu) = both(&gpu, csr, sampler, initial, config);
            let context = format!("{name} ({engine:?})");
            for step in 0..2 {
                assert!(some_sample_stops_after(&cpu, step), "{context}: no sample stopped after step {step}");
            }
            let (outcome, stats) = on_gpu.unwrap_or_else(|e| panic!("{context} on the GPU: {e}"));
            assert_same(&context, &cpu, &outcome);
            assert!(stats.rerun_samples > 0, "{context}: no sample outgrew its first region: {stats:?}");
        }
    }
}

#[test]
fn walks_in_several_batches_and_a_sampler_file_match_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("walks_in_several_batches_and_a_sampler_file_match_the_cpu") else { return };
    let csr = with_integer_weights(&load("email-Eu-core.txt").csr);
    let initial = InitialSamples::every_vertex(csr.num_vertices()).unwrap();
    let source = include_str!("../examples/non_backtracking_walk.rs");
    let file = InterpretedSampler::from_source("examples/non_backtracking_walk.rs", source, &["length=30"]).unwrap();
    let node2vec = (BUILT_IN.iter().find(|b| b.name == "node2vec").unwrap().sampler)();
    for sampler in [&file as &dyn CompiledSampler, node2vec.as_ref()] {
        // Room for 100 walks at a time beside the graph: every vertex's walk takes 11 batches.
        let steps = u64::from(sampler.steps());
        let graph_bytes = DeviceSampleGraph::upload(&gpu, &SampleGraph::new(&csr).unwrap()).unwrap().bytes();
        let walks = 100 * ((steps + 1) * 4 + 8);
        let config = GpuSampleConfig { seed: 5, device_memory: Some(graph_bytes + walks), ..Default::default() };
        let (cpu, on_gpu) = both(&gpu, &csr, sampler, &initial, config);
        let (outcome, stats) = on_gpu.unwrap();
        assert_same(sampler.name(), &cpu, &outcome);
        assert_eq!((stats.engine, stats.batches), ("walks", 11), "{}", sampler.name());
    }
}

/// A walk sampler may declare the most steps there are (2^24, PPR's `--walk-length`) and stop
/// after a few hundred (PPR ending a walk with probability 0.002 a step). Such walks run over
/// a ring of rows whatever the batch, so that no device memory is sized by the declared
/// length (a matrix of every level took 32.6 GB of an H200 for 500 such walks on com-DBLP):
/// in batches as asked, or all in one. The walks are the CPU's, some longer than the ring.
#[test]
fn walks_that_may_run_millions_of_steps_come_back_as_on_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("walks_that_may_run_millions_of_steps_come_back_as_on_the_cpu") else {
        return;
    };
    let csr = load("email-Eu-core.txt").csr;
    let initial = InitialSamples::every_vertex(csr.num_vertices()).unwrap();
    let sampler = Ppr { termination: 0.002, max_length: 1 << 24 };
    let declared_column = (u64::from(sampler.max_length) + 1) * 4;
    for (batch_samples, batches) in [(Some(40), initial.len().div_ceil(40)), (None, 1)] {
        let config = GpuSampleConfig { seed: 7, batch_samples, ..Default::default() };
        let (cpu, on_gpu) = both(&gpu, &csr, &sampler, &initial, config);
        let (outcome, stats) = on_gpu.unwrap();
        let context = format!("long walks in batches of {batch_samples:?}");
        assert_same(&context, &cpu, &outcome);
        let longest = (0..outcome.num_samples()).map(|k| outcome.sample(k).vertices.len()).max().unwrap();
        assert!(longest > 1024, "{context}: a walk outgrows the ring ({longest} steps)");
        assert_eq!((stats.engine, stats.batches as usize), ("ring-walks", batches), "{context}");
        assert!(stats.device_bytes < declared_column, "{context}: {} device bytes", stats.device_bytes);
    }
}

/// The walk engine's ways of reading a step's edge (the CSR, 8-byte and 16-byte packed edges,
/// the CSR read from the offsets at each use as graphs of 2^32 edges take it) give the CPU's
/// walks, for first- and second-order walks, weighted or not; hooks that loop (node2vec) run
/// one walker per thread, whose kernels but the last keep the transit's row in registers, the
/// previous vertex's row too, and whose packed kernels find the drawn vertex's row in its
/// packed edge. That row is read only on a symmetric
/// graph (node2vec's membership test searches the shorter of the two rows), so one of the
/// graphs must be symmetric with rows of many lengths: a wrong row then changes the walks.
#[test]
fn every_walk_packing_samples_as_the_cpu() {
    let symmetric_with_uneven_rows = |csr: &Csr| {
        let degrees: std::collections::BTreeSet<usize> =
            (0..csr.num_vertices() as u32).map(|v| csr.degree(v)).collect();
        csr.is_symmetric() && degrees.len() > 10
    };
    assert!(graphs().iter().any(|(_, csr)| symmetric_with_uneven_rows(csr)), "no symmetric graph with uneven rows");
    let Some(gpu) = common::gpu_or_skip("every_walk_packing_samples_as_the_cpu") else { return };
    let expected = [
        (WalkPacking::Plain, ["glp_sample_walks", "glp_sample_walks_single"]),
        (WalkPacking::Narrow, ["glp_sample_walks_narrow", "glp_sample_walks_narrow_single"]),
        (WalkPacking::Wide, ["glp_sample_walks_packed", "glp_sample_walks_packed_single"]),
        (WalkPacking::Offsets, ["glp_sample_walks", "glp_sample_walks_single_offsets"]),
    ];
    for (name, csr) in graphs() {
        let initial = InitialSamples::every_vertex(csr.num_vertices()).unwrap();
        for app in ["deepwalk", "weighted-deepwalk", "ppr", "node2vec"] {
            let sampler = (BUILT_IN.iter().find(|b| b.name == app).unwrap().sampler)();
            for (packing, kernels) in expected {
                let config = GpuSampleConfig { seed: 21, walk_packing: Some(packing), ..GpuSampleConfig::default() };
                let (cpu, on_gpu) = both(&gpu, &csr, sampler.as_ref(), &initial, config);
                let (outcome, stats) = on_gpu.unwrap_or_else(|e| panic!("{app} {packing:?} on {name}: {e}"));
                assert_same(&format!("{app} {packing:?} on {name}"), &cpu, &outcome);
                let looping = !sampler.loop_sites().is_empty();
                let kernel = kernels[usize::from(looping)];
                assert_eq!(stats.walk_kernel, kernel, "{app} {packing:?} on {name}");
            }
        }
    }
}

/// A walk sampler file whose `next` has `body`.
fn walk_file(name: &str, body: &str, budget: Option<u64>) -> InterpretedSampler {
    let source = format!(
        "struct Walk {{ length: u32 }}\nimpl Sampler for Walk {{\n    fn steps(&self) -> u32 {{ self.length }}\n    \
         fn sample_size(&self, _step: u32) -> u32 {{ 1 }}\n    fn next(&self, view: &SampleView, _sample: u32, \
         transit: VertexId, _lane: u32, _step: u32) -> VertexId {{\n{body}\n    }}\n}}\n"
    );
    let sampler = InterpretedSampler::from_source(name, &source, &["length=12"]).unwrap();
    match budget {
        Some(budget) => sampler.with_loop_budget(budget),
        None => sampler,
    }
}

/// Hooks that loop run on the one-walker kernels, the plain one (graphs in L2) one loop
/// iteration per round (glp-codegen's `cuda::resumable`): whatever the loop's shape (a `while` with statements before and
/// after it, a `loop` left by `return`, a loop left by `break`, which runs whole, an iteration
/// drawing more random words than a round computes ahead), the walks
/// are the CPU's; and a call's loop steps are counted as on the CPU: a budget of exactly the
/// steps a call takes gives the CPU's walks, less stops both with the error at the loop that
/// ran out, before, in or after the rejection.
#[test]
fn hooks_that_loop_walk_as_on_the_cpu_one_iteration_at_a_time() {
    let Some(gpu) = common::gpu_or_skip("hooks_that_loop_walk_as_on_the_cpu_one_iteration_at_a_time") else { return };
    let shapes = [
        (
            "while.rs",
            "let degree = view.degree(transit);\nif degree == 0 { return NONE; }\nlet (low, high) = (0.25, 1.0);\n\
             let mut chosen = NONE;\nlet mut tries = 0u32;\nwhile chosen == NONE {\n\
             let x = view.edge(transit, view.random_below(degree));\nlet r = view.random_f64();\ntries += 1;\n\
             if r < low || (r < high && view.degree(x) > 8) { chosen = x; }\n}\n\
             if tries > 3 { view.edge(transit, 0) } else { chosen }",
        ),
        (
            "loop.rs",
            "let degree = view.degree(transit);\nif degree == 0 { return NONE; }\nloop {\n\
             let x = view.edge(transit, view.random_below(degree));\n\
             if view.random_f64() * 4.0 < (view.degree(x) % 4 + 1) as f64 { return x; }\n}",
        ),
        (
            "break.rs",
            "let degree = view.degree(transit);\nif degree == 0 { return NONE; }\nlet mut x = view.edge(transit, 0);\n\
             while true {\nx = view.edge(transit, view.random_below(degree));\nif view.random_f64() < 0.3 { break; }\n}\nx",
        ),
        (
            // Five random words an iteration: more than the block a round computes ahead, so
            // the buffer is also refilled inside the hook.
            "five_words.rs",
            "let degree = view.degree(transit);\nif degree == 0 { return NONE; }\nloop {\n\
             let a = view.random_f64();\nlet x = view.edge(transit, view.random_below(degree));\n\
             if a * view.random_f64() < 0.2 { return x; }\n}",
        ),
    ];
    for (name, csr) in graphs() {
        let initial = InitialSamples::every_vertex(csr.num_vertices()).unwrap();
        for (file, body) in shapes {
            let sampler = walk_file(file, body, None);
            let kernels = [
                (WalkPacking::Plain, "glp_sample_walks_single"),
                (WalkPacking::Narrow, "glp_sample_walks_narrow_single"),
                (WalkPacking::Wide, "glp_sample_walks_packed_single"),
                (WalkPacking::Offsets, "glp_sample_walks_single_offsets"),
            ];
            for (packing, kernel) in kernels {
                let config = GpuSampleConfig { seed: 8, walk_packing: Some(packing), ..GpuSampleConfig::default() };
                let (cpu, on_gpu) = both(&gpu, &csr, &sampler, &initial, config);
                let context = format!("{file} {packing:?} on {name}");
                let (outcome, stats) = on_gpu.unwrap_or_else(|e| panic!("{context}: {e}"));
                assert_same(&context, &cpu, &outcome);
                assert_eq!(stats.walk_kernel, kernel, "{context}");
            }
        }
    }
    // Nine steps per call: two of a loop before the rejection, then the rejection's (at
    // least one), and a loop after it whose steps count too.
    let counted = "let degree = view.degree(transit);\nif degree == 0 { return NONE; }\nlet mut n = 0u32;\n\
                   while n < 2 { n += 1; }\nlet mut x = NONE;\nwhile x == NONE {\n\
                   let y = view.edge(transit, view.random_below(degree));\nif n == 2 { x = y; }\n}\n\
                   for _ in 0..6u32 { n += 1; }\nx";
    let csr = with_integer_weights(&load("email-Eu-core.txt").csr);
    let initial = InitialSamples::every_vertex(csr.num_vertices()).unwrap();
    let config = GpuSampleConfig { seed: 2, ..GpuSampleConfig::default() };
    let (cpu, on_gpu) = both(&gpu, &csr, &walk_file("counted.rs", counted, Some(9)), &initial, config);
    assert_same("a budget of exactly the steps of a call", &cpu, &on_gpu.unwrap().0);
    let graph = SampleGraph::detecting_symmetry(&csr).unwrap();
    let device = DeviceSampleGraph::upload(&gpu, &graph).unwrap();
    // Out of steps before the rejection (line 9), in it (line 11) and after it (line 15).
    for (budget, line) in [(1, 9), (2, 11), (8, 15)] {
        let short = walk_file("counted.rs", counted, Some(budget));
        let cpu = sample::run(&graph, &short, &initial, &SampleConfig { seed: 2 }).unwrap_err().to_string();
        let on_gpu = sample::gpu::run(&gpu, &device, &short, &initial, &config).unwrap_err().to_string();
        let (at, limit) = (format!("--> counted.rs:{line}:1\n"), format!("may run {budget} iterations"));
        assert!(cpu.contains(&at) && cpu.contains(&limit), "budget {budget}: {cpu}");
        assert!(on_gpu.contains(&at) && on_gpu.contains(&limit), "budget {budget}: {on_gpu}");
    }
}

#[test]
fn a_hooks_bad_result_fails_the_gpu_run_with_the_cpus_error() {
    let Some(gpu) = common::gpu_or_skip("a_hooks_bad_result_fails_the_gpu_run_with_the_cpus_error") else { return };
    // Steps to the vertex after its first neighbour: not a neighbour on most vertices.
    let source = r#"
        struct OffByOne { length: u32 }
        impl Sampler for OffByOne {
            fn steps(&self) -> u32 { self.length }
            fn sample_size(&self, _step: u32) -> u32 { 1 }
            fn next(&self, view: &SampleView, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
                if view.degree(transit) == 0 { return NONE; }
                let v = view.edge(transit, 0) + 1;
                if v >= view.num_vertices() { NONE } else { v }
            }
        }
    "#;
    let sampler = InterpretedSampler::from_source("off_by_one.rs", source, &["length=5"]).unwrap();
    let csr = load("email-Eu-core.txt").csr;
    for roots in [1, 2] {
        let initial = InitialSamples::random(200, roots, csr.num_vertices(), 3).unwrap();
        let graph = SampleGraph::new(&csr).unwrap();
        let cpu = sample::run(&graph, &sampler, &initial, &SampleConfig { seed: 3 }).unwrap_err().to_string();
        let device = DeviceSampleGraph::upload(&gpu, &graph).unwrap();
        let config = GpuSampleConfig { seed: 3, ..GpuSampleConfig::default() };
        let on_gpu = sample::gpu::run(&gpu, &device, &sampler, &initial, &config).unwrap_err().to_string();
        assert!(cpu.contains("which is not a neighbour of its transit"), "{cpu}");
        assert_eq!(on_gpu, cpu, "{roots} root(s) per sample");
    }
}

#[test]
fn the_transit_parallel_engine_runs_every_kernel_class_as_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("the_transit_parallel_engine_runs_every_kernel_class_as_the_cpu") else {
        return;
    };
    // 1,500 samples on each of the two hubs (3,000 and 1,500 neighbours), 1,000 elsewhere: the
    // hubs' entries need more than 1,024 threads (grid), their neighbours' tens to hundreds
    // (block), single entries of small fan-outs fewer than 32 (sub-warp).
    let csr = degree_mix(&[3000, 1500], &[1, 2, 5, 9], 4000, 11, 50, 20);
    let mut roots = vec![0u32; 1500];
    roots.extend(std::iter::repeat_n(1u32, 1500));
    roots.extend((0..1000u32).map(|i| 2 + i * 3));
    let initial = InitialSamples::given(roots, csr.num_vertices()).unwrap();
    let deepwalk = (BUILT_IN.iter().find(|b| b.name == "deepwalk").unwrap().sampler)();
    let node2vec = (BUILT_IN.iter().find(|b| b.name == "node2vec").unwrap().sampler)();
    let khop = KHop { hops: 2, fanout_1: 25, fanout_2: 10, fanout_3: 0, fanout_4: 0, replace: true };
    let unique = KHop { replace: false, ..khop };
    let samplers: [(&str, &dyn CompiledSampler); 4] =
        [("deepwalk", deepwalk.as_ref()), ("node2vec", node2vec.as_ref()), ("k-hop", &khop), ("k-hop unique", &unique)];
    let mut classes = [0u64; 3];
    for (name, sampler) in samplers {
        let config = GpuSampleConfig { seed: 9, engine: GpuEngine::TransitParallel, ..GpuSampleConfig::default() };
        let (cpu, on_gpu) = both(&gpu, &csr, sampler, &initial, config);
        let (outcome, stats) = on_gpu.unwrap_or_else(|e| panic!("{name} on the GPU: {e}"));
        assert_same(name, &cpu, &outcome);
        assert_eq!(stats.engine, "step-by-step", "{name}");
        assert!(stats.step_engines.iter().all(|&e| e == "tp"), "{name}: {:?}", stats.step_engines);
        for (total, count) in classes.iter_mut().zip(stats.transit_classes) {
            *total += count;
        }
    }
    assert!(classes.iter().all(|&c| c > 0), "every class ran (sub-warp, block, grid): {classes:?}");
}

#[test]
fn a_too_small_memory_cap_is_refused_clearly() {
    let Some(gpu) = common::gpu_or_skip("a_too_small_memory_cap_is_refused_clearly") else {
        return;
    };
    let csr = load("email-Eu-core.txt").csr;
    let initial = InitialSamples::random(10, 1, csr.num_vertices(), 1).unwrap();
    let deepwalk = (BUILT_IN[0].sampler)();
    let graph = SampleGraph::new(&csr).unwrap();
    let device = DeviceSampleGraph::upload(&gpu, &graph).unwrap();
    for engine in [GpuEngine::Auto, GpuEngine::TransitParallel] {
        let tiny = GpuSampleConfig { device_memory: Some(16), engine, ..GpuSampleConfig::default() };
        let error = sample::gpu::run(&gpu, &device, deepwalk.as_ref(), &initial, &tiny).unwrap_err().to_string();
        assert!(error.contains("of device memory allowed") && error.contains("--device-memory"), "{error}");
    }
}
