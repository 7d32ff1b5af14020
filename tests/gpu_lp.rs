//! The GPU engine against the CPU engine: synchronous label propagation gives exactly the
//! same labels (and SLP memberships, and changes per iteration) with every MFL strategy, with
//! the vertices held in the graph's order and by degree, for every built-in variant, on the real graphs and on generated graphs with vertices of every
//! degree class (including vertices whose distinct labels overflow the shared-memory table),
//! with ties to the smallest label and hashed ties; the LDBC CDLP expected outputs come out
//! of the GPU too.
//!
//! Without a GPU these tests skip with a message; `GLP_REQUIRE_GPU=1` turns that into a
//! failure. Data: the repository's data folder, through the test kit (on a GPU machine,
//! `scripts/gpu-check.sh run` points `GLP_DATA_DIR` at the copy that travelled with the
//! repository).

mod common;

use common::{assert_same_labels, data, degree_mix, gpu_or_skip, load, read_pairs, undirected, with_integer_weights};
use glp::device::{DeviceGraph, Gpu};
use glp::lp::gpu::{places_by_degree, run_gpu, run_gpu_on, MflStrategy, VertexOrder};
use glp::prelude::*;
use std::collections::BTreeMap;

/// The synchronous schedule for `iterations`, ties to the smallest label, random seed 7.
fn sync(iterations: u32) -> LpConfig {
    LpConfig { seed: 7, ..LpConfig::synchronous(iterations) }
}

/// Runs `variant` with `config` on the CPU and on the GPU with every strategy, all on one
/// graph uploaded once (as `glp bench lp --backend gpu` runs them), its vertices in the
/// graph's order and then by degree, and asserts equal results.
fn assert_gpu_equals_cpu<V: CompiledVariant>(
    gpu: &Gpu,
    what: &str,
    csr: &Csr,
    variant: &V,
    inputs: &LpInputs<'_>,
    config: LpConfig,
) {
    let cpu = glp::lp::run_kernel(csr, variant, &config, inputs).unwrap();
    let weights = variant.features().edge_weights;
    for by_degree in [false, true] {
        let graph = match by_degree {
            true => DeviceGraph::upload_by_degree(gpu, csr, weights).unwrap(),
            false => DeviceGraph::upload(gpu, csr, weights).unwrap(),
        };
        assert_eq!(graph.order().is_some(), by_degree);
        let what = format!("{what}, vertices {}", if by_degree { "by degree" } else { "in graph order" });
        assert_same_as_cpu(gpu, &what, &graph, variant, inputs, config, &cpu);
    }
}

/// Runs `variant` on `graph` with every strategy and asserts the CPU's results `cpu`.
fn assert_same_as_cpu<V: CompiledVariant>(
    gpu: &Gpu,
    what: &str,
    graph: &DeviceGraph<'_>,
    variant: &V,
    inputs: &LpInputs<'_>,
    config: LpConfig,
    cpu: &LpOutcome,
) {
    let csr = graph.graph();
    for strategy in MflStrategy::ALL {
        let (out, stats) = run_gpu_on(gpu, graph, variant, &config, inputs, strategy)
            .unwrap_or_else(|e| panic!("{what} ({}): {e}", strategy.name()));
        let context = format!("{what}, {} strategy", strategy.name());
        assert_same_labels(&context, csr, &out.labels, &cpu.labels);
        assert_eq!(out.memberships, cpu.memberships, "{context}: memberships");
        let changed = |o: &LpOutcome| o.iterations.iter().map(|i| i.changed).collect::<Vec<_>>();
        assert_eq!(changed(&out), changed(cpu), "{context}: changes per iteration");
        assert_eq!(out.converged, cpu.converged, "{context}");
        assert_eq!(stats.iteration_ms.len(), out.iterations.len());
        assert!(stats.device_bytes >= csr.num_edges() * 4, "{context}: device memory not accounted");
    }
}

/// R-MAT (scale 15, skewed degrees: every class, hubs of several thousand neighbours whose
/// labels overflow the shared table in early iterations) and a planted partition.
fn generated() -> Vec<(String, Csr)> {
    let rmat = glp::gen::rmat(&glp::gen::RmatParams { scale: 15, ..glp::gen::RmatParams::default() }).unwrap();
    let (planted, _) = glp::gen::planted_partition(&glp::gen::CommunityParams {
        num_vertices: 20_000,
        max_degree: 400,
        ..glp::gen::CommunityParams::default()
    })
    .unwrap();
    vec![("rmat-15".into(), rmat.csr), ("planted-20k".into(), planted.csr)]
}

const REAL: [&str; 7] = [
    "karate.mtx",
    "dolphins.edges",
    "football.edges",
    "email-Eu-core.txt",
    "polblogs.edges",
    "citeseer.edges",
    "lfr/LFR_N50000_ad5_mc50_mu0.3.edges.gz",
];

fn all_graphs() -> Vec<(String, Csr)> {
    let mut graphs: Vec<(String, Csr)> = REAL.iter().map(|n| (n.to_string(), load(n).csr)).collect();
    graphs.push(("com-dblp".into(), load("com-dblp.edges.gz").csr));
    graphs.extend(generated());
    graphs
}

fn degree_classes(csr: &Csr) -> [usize; 3] {
    let mut classes = [0; 3];
    for v in 0..csr.num_vertices() as u32 {
        classes[match csr.degree(v) {
            0..=31 => 0,
            32..=128 => 1,
            _ => 2,
        }] += 1;
    }
    classes
}

#[test]
fn the_generated_graphs_cover_every_degree_class_and_the_overflow_path() {
    let graphs = generated();
    let rmat = &graphs[0].1;
    assert!(degree_classes(rmat).iter().all(|&c| c > 0), "{:?}", degree_classes(rmat));
    let max = (0..rmat.num_vertices() as u32).map(|v| rmat.degree(v)).max().unwrap();
    assert!(max as u64 > glp_codegen::lp_kernels::mfl::HIGH_TABLE, "largest degree {max}");
}

/// A directed graph whose vertices have the degrees on both sides of every class and segment
/// size bound (1, 2, 32, 33, 128, 129, 1024, 1025, 2048, 2049, two and three merge tiles...,
/// the giant bound 65536 and giants of several chunks and slices), neighbours drawn at random
/// (repeats kept), so early iterations see many distinct labels and later ones long runs and
/// ties.
fn every_degree_bound() -> Csr {
    use glp_codegen::lp_kernels::giants::GIANT_DEGREE;
    let hubs = [
        2047u64,
        2048,
        2049,
        4095,
        4096,
        4097,
        6143,
        6144,
        6145,
        10_000,
        1024,
        1025,
        128,
        129,
        GIANT_DEGREE,
        GIANT_DEGREE + 1,
        140_000,
    ];
    let small = [0u64, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 34, 63, 64, 65];
    degree_mix(&hubs, &small, 6000, 0x9E37_79B9_7F4A_7C15, 40, 8)
}

#[test]
fn every_degree_and_segment_size_bound_equals_the_cpu() {
    let Some(gpu) = gpu_or_skip("every_degree_and_segment_size_bound_equals_the_cpu") else { return };
    let none = LpInputs::default();
    let csr = every_degree_bound();
    assert_gpu_equals_cpu(&gpu, "classic on the degree bounds", &csr, &Classic, &none, sync(20));
    let weighted = with_integer_weights(&csr);
    assert_gpu_equals_cpu(&gpu, "weighted on the degree bounds", &weighted, &Weighted, &none, sync(20));
    assert_gpu_equals_cpu(&gpu, "llp on the degree bounds", &csr, &Llp { gamma: 1.0 }, &none, sync(12));
}

#[test]
fn classic_and_weighted_lp_on_the_gpu_equal_the_cpu() {
    let Some(gpu) = gpu_or_skip("classic_and_weighted_lp_on_the_gpu_equal_the_cpu") else { return };
    let none = LpInputs::default();
    for (name, csr) in all_graphs() {
        assert_gpu_equals_cpu(&gpu, &format!("classic on {name}"), &csr, &Classic, &none, sync(20));
        let weighted = with_integer_weights(&csr);
        assert_gpu_equals_cpu(&gpu, &format!("weighted on {name}"), &weighted, &Weighted, &none, sync(20));
    }
}

#[test]
fn capped_lp_on_the_gpu_equals_the_cpu() {
    // Neighbours above the cap vote with weight 0: their labels are candidates of score 0 on
    // both engines. Caps below, inside and above the graphs' degree ranges.
    let Some(gpu) = gpu_or_skip("capped_lp_on_the_gpu_equals_the_cpu") else { return };
    let none = LpInputs::default();
    for (name, csr) in all_graphs() {
        for cap in [0.0, 10.0, 100.0, 5000.0] {
            assert_gpu_equals_cpu(&gpu, &format!("capped {cap} on {name}"), &csr, &Capped { cap }, &none, sync(20));
        }
    }
}

#[test]
fn hashed_ties_on_the_gpu_equal_the_cpu() {
    let Some(gpu) = gpu_or_skip("hashed_ties_on_the_gpu_equal_the_cpu") else { return };
    let none = LpInputs::default();
    let hashed = |iterations| LpConfig { ties: TieBreak::Hashed, ..sync(iterations) };
    let mut graphs = all_graphs();
    graphs.push(("the degree bounds".into(), every_degree_bound()));
    // The rule matters on these graphs: the CPU's labels differ between the two rules.
    let differs = graphs.iter().any(|(_, csr)| {
        let labels = |config| glp::lp::run_kernel(csr, &Classic, &config, &none).unwrap().labels;
        labels(hashed(20)) != labels(sync(20))
    });
    assert!(differs, "no graph where hashed ties change the CPU's labels");
    for (name, csr) in graphs {
        assert_gpu_equals_cpu(&gpu, &format!("classic, hashed ties, on {name}"), &csr, &Classic, &none, hashed(20));
        let weighted = with_integer_weights(&csr);
        let what = format!("weighted, hashed ties, on {name}");
        assert_gpu_equals_cpu(&gpu, &what, &weighted, &Weighted, &none, hashed(20));
    }
    let csr = load("email-Eu-core.txt").csr;
    assert_gpu_equals_cpu(&gpu, "llp, hashed ties", &csr, &Llp { gamma: 2.0 }, &none, hashed(12));
    assert_gpu_equals_cpu(&gpu, "slp, hashed ties", &csr, &Slp::default(), &none, hashed(12));
}

#[test]
fn llp_on_the_gpu_equals_the_cpu_for_a_gamma_sweep() {
    let Some(gpu) = gpu_or_skip("llp_on_the_gpu_equals_the_cpu_for_a_gamma_sweep") else { return };
    let none = LpInputs::default();
    for (name, csr) in all_graphs() {
        // A negative gamma fails the sketch's monotonicity condition (gamma >= 0): the high
        // class then takes the exact path.
        for gamma in [-0.5, 0.0, 0.25, 1.0, 8.0, 512.0] {
            assert_gpu_equals_cpu(&gpu, &format!("llp gamma {gamma} on {name}"), &csr, &Llp { gamma }, &none, sync(12));
        }
    }
}

#[test]
fn slp_on_the_gpu_equals_the_cpu_memories_included() {
    let Some(gpu) = gpu_or_skip("slp_on_the_gpu_equals_the_cpu_memories_included") else { return };
    let none = LpInputs::default();
    for (name, csr) in all_graphs() {
        for threshold in [0.1, 0.3] {
            assert_gpu_equals_cpu(
                &gpu,
                &format!("slp {threshold} on {name}"),
                &csr,
                &Slp { threshold },
                &none,
                sync(20),
            );
        }
    }
}

#[test]
fn seeded_lp_on_the_gpu_equals_the_cpu() {
    let Some(gpu) = gpu_or_skip("seeded_lp_on_the_gpu_equals_the_cpu") else { return };
    for (name, csr) in all_graphs() {
        // Every 50th vertex is a seed; seeds share labels in groups of three.
        let seeds: Vec<u32> =
            (0..csr.num_vertices() as u32).map(|v| if v % 50 == 0 { v / 150 * 150 } else { UNLABELLED }).collect();
        let inputs = LpInputs { seeds: Some(&seeds), ..LpInputs::default() };
        assert_gpu_equals_cpu(&gpu, &format!("seeded on {name}"), &csr, &Seeded, &inputs, sync(20));
    }
}

/// Variants compiled at run time from source files (`--variant FILE.rs`) run on the GPU as
/// CUDA and give the labels of the native built-ins on the CPU.
#[test]
fn variants_from_source_files_run_on_the_gpu() {
    let Some(gpu) = gpu_or_skip("variants_from_source_files_run_on_the_gpu") else { return };
    let sources = [
        ("llp.rs", include_str!("../src/variants/llp.rs"), "gamma=2"),
        ("slp.rs", include_str!("../src/variants/slp.rs"), "threshold=0.2"),
        ("weighted.rs", include_str!("../src/variants/weighted.rs"), ""),
    ];
    let g = load("lfr/LFR_N50000_ad5_mc50_mu0.3.edges.gz");
    let config = LpConfig { seed: 3, ..LpConfig::synchronous(10) };
    let none = LpInputs::default();
    for (file, source, params) in sources {
        let params: Vec<&str> = params.split(' ').filter(|p| !p.is_empty()).collect();
        let interpreted = glp::lp::InterpretedVariant::from_source(file, source, &params).unwrap();
        let native = match file {
            "llp.rs" => glp::lp::run_kernel(&g.csr, &Llp { gamma: 2.0 }, &config, &none),
            "slp.rs" => glp::lp::run_kernel(&g.csr, &Slp { threshold: 0.2 }, &config, &none),
            _ => glp::lp::run_kernel(&g.csr, &Weighted, &config, &none),
        }
        .unwrap();
        for (strategy, order) in
            MflStrategy::ALL.into_iter().flat_map(|s| [(s, VertexOrder::Graph), (s, VertexOrder::Degree)])
        {
            let (out, _) = run_gpu(&gpu, &g.csr, &interpreted, &config, &none, strategy, order).unwrap();
            assert_eq!(out.labels, native.labels, "{file} ({}, {order:?})", strategy.name());
            assert_eq!(out.memberships, native.memberships, "{file} ({}, {order:?})", strategy.name());
        }
    }
}

/// Variants the count-min sketch cannot prune for: scores not provably non-decreasing in the
/// frequency, and negative weights (the sketch no longer over-estimates). Their hubs take the
/// exact path; labels still equal the CPU's.
#[test]
fn unprunable_variants_take_the_exact_path() {
    let Some(gpu) = gpu_or_skip("unprunable_variants_take_the_exact_path") else { return };
    let hooks = [
        "fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 { -freq }",
        "fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {\n\
         freq - freq * freq / 4096.0\n}",
        "fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {\n\
         (view.label(u), if u % 7 == 0 { -1.0 } else { 2.0 })\n}",
    ];
    let none = LpInputs::default();
    for hook in hooks {
        let source = format!("struct Unprunable;\nimpl LpVariant for Unprunable {{\n{hook}\n}}\n");
        let variant = glp::lp::InterpretedVariant::from_source("unprunable.rs", &source, &[] as &[&str]).unwrap();
        for (name, csr) in generated() {
            assert_gpu_equals_cpu(&gpu, &format!("{hook} on {name}"), &csr, &variant, &none, sync(6));
            // A score not proven monotone is never decided by the sketch: every overflowing hub
            // goes to the exact kernel. (Negative weights only invalidate the sketch of a hub
            // that refuses a label of negative weight; accepted labels are counted exactly.)
            if hook.contains("label_score") {
                let config = LpConfig::synchronous(6);
                let (_, stats) =
                    run_gpu(&gpu, &csr, &variant, &config, &none, MflStrategy::Glp, VertexOrder::Auto).unwrap();
                assert_eq!(stats.high_class.settled_by_sketch, 0, "{hook} on {name}: {:?}", stats.high_class);
                if name.starts_with("rmat") {
                    assert!(stats.high_class.deferred > 0, "{hook} on {name}: {:?}", stats.high_class);
                }
            }
        }
    }
}

/// A hub (the last vertex) whose neighbourhood keeps one dominant label among more distinct
/// labels than the hub kernel's table holds: 4,000 leaves (which all take the hub's label in
/// the first synchronous sweep) and one vertex of each of 3,000 private triangles (whose
/// labels stay apart: the hub's id is the largest, so ties never pick it). From the second
/// sweep on, the hub's table refuses labels and the sketch must settle it; in the first, every
/// label is distinct and the hub is deferred (when that sweep counts labels: see `Counted`).
fn hub_with_a_dominant_label() -> Csr {
    const LEAVES: u32 = 4000;
    const TRIANGLES: u32 = 3000;
    let hub = LEAVES + 3 * TRIANGLES;
    let mut edges: Vec<(u32, u32)> = (0..LEAVES).map(|leaf| (hub, leaf)).collect();
    for i in 0..TRIANGLES {
        let (t, a, b) = (LEAVES + 3 * i, LEAVES + 3 * i + 1, LEAVES + 3 * i + 2);
        edges.extend([(hub, t), (t, a), (t, b), (a, b)]);
    }
    undirected(hub as usize + 1, &edges)
}

/// The high class's two ways out for a hub whose labels overflow the shared table, both taken
/// on skewed graphs and on a hub built for it (and both exact, as the comparisons with the CPU
/// show): the count-min sketch proves the table's best label, or the hub is deferred to the
/// exact kernel (always in the first synchronous sweep, whose labels are all distinct).
#[test]
fn the_count_min_sketch_settles_hubs_and_defers_the_rest() {
    let Some(gpu) = gpu_or_skip("the_count_min_sketch_settles_hubs_and_defers_the_rest") else { return };
    let none = LpInputs::default();
    let config = LpConfig::synchronous(20);
    let mut total = glp::lp::gpu::HighClassStats::default();
    // Classic's labels, but its score is not provably the frequency, so the first sweep counts
    // (for Classic it is a minimum, which defers nothing): the hub is deferred there.
    let counted = glp::lp::InterpretedVariant::from_source(
        "counted.rs",
        "pub struct Counted;\nimpl LpVariant for Counted {\n    fn label_score(&self, view: &View<'_>, v: VertexId, \
         label: Label, freq: f64) -> f64 { freq * 1.0 }\n}\n",
        &[] as &[&str],
    )
    .unwrap();
    assert!(!counted.distinct_first_sweep() && Classic.distinct_first_sweep());
    for (name, csr) in [
        ("rmat-15".to_string(), generated().remove(0).1),
        ("degree bounds".into(), every_degree_bound()),
        ("a hub with a dominant label".into(), hub_with_a_dominant_label()),
    ] {
        let (_, stats) = run_gpu(&gpu, &csr, &counted, &config, &none, MflStrategy::Glp, VertexOrder::Auto).unwrap();
        eprintln!("{name}: {:?}", stats.high_class);
        if name.starts_with("a hub") {
            assert!(
                stats.high_class.settled_by_sketch > 0 && stats.high_class.deferred > 0,
                "{name}: {:?}",
                stats.high_class
            );
        }
        total.settled_by_sketch += stats.high_class.settled_by_sketch;
        total.deferred += stats.high_class.deferred;
        // Strategies without the sketch report nothing.
        let (_, global) =
            run_gpu(&gpu, &csr, &Classic, &config, &none, MflStrategy::Global, VertexOrder::Auto).unwrap();
        assert_eq!(global.high_class, Default::default(), "{name}");
    }
    assert!(total.settled_by_sketch > 0 && total.deferred > 0, "{total:?}");
    // The hub settled by the sketch gets the labels of the CPU, with every strategy.
    assert_gpu_equals_cpu(
        &gpu,
        "classic on a hub with a dominant label",
        &hub_with_a_dominant_label(),
        &Classic,
        &none,
        sync(20),
    );
}

#[test]
fn the_gpu_reproduces_the_ldbc_cdlp_expected_outputs() {
    let Some(gpu) = gpu_or_skip("the_gpu_reproduces_the_ldbc_cdlp_expected_outputs") else { return };
    let cases = [
        ("ldbc-validation/cdlp/dir-input", "ldbc-validation/cdlp/dir-output", 5, DuplicateEdges::Keep),
        ("ldbc-validation/cdlp/undir-input", "ldbc-validation/cdlp/undir-output", 5, DuplicateEdges::Collapse),
        (
            "ldbc-validation/example/example-directed.e",
            "ldbc-validation/example/example-directed-CDLP",
            2,
            DuplicateEdges::Keep,
        ),
        (
            "ldbc-validation/example/example-undirected.e",
            "ldbc-validation/example/example-undirected-CDLP",
            2,
            DuplicateEdges::Collapse,
        ),
    ];
    for (input, expected, iterations, duplicates) in cases {
        let mut options = LoadOptions {
            progress: false,
            build: BuildOptions { duplicates, ..BuildOptions::default() },
            ..LoadOptions::default()
        };
        if input.ends_with("-input") {
            options.format = Some("adj".parse().unwrap());
        }
        let g = glp::io::load_graph(&data(input), &options).unwrap();
        for strategy in MflStrategy::ALL {
            let (out, _) = run_gpu(
                &gpu,
                &g.csr,
                &Classic,
                &LpConfig::synchronous(iterations),
                &LpInputs::default(),
                strategy,
                VertexOrder::Auto,
            )
            .unwrap();
            let labels: BTreeMap<u64, u64> =
                out.labels.iter().enumerate().map(|(v, &l)| (g.ids.original(v as u32), g.ids.original(l))).collect();
            assert_eq!(labels, read_pairs(&data(expected)), "{input} ({})", strategy.name());
        }
    }
}

#[test]
fn bad_runs_are_errors_not_panics() {
    let Some(gpu) = gpu_or_skip("bad_runs_are_errors_not_panics") else { return };
    let g = load("karate.mtx");
    let none = LpInputs::default();
    // The CPU's first-seen tie rule has no meaning on the GPU.
    let err = run_gpu(&gpu, &g.csr, &Classic, &LpConfig::asynchronous(), &none, MflStrategy::Glp, VertexOrder::Auto)
        .unwrap_err();
    assert!(err.to_string().contains("smallest label"), "{err}");
    let err = run_gpu(&gpu, &g.csr, &Seeded, &LpConfig::synchronous(3), &none, MflStrategy::Glp, VertexOrder::Auto)
        .unwrap_err();
    assert!(err.to_string().contains("seed"), "{err}");
    // More device memory than the GPU has: an error saying what was needed and what is free.
    let (free, total) = gpu.memory_info().unwrap();
    let held = gpu.held_bytes();
    match gpu.alloc_zeros::<u8>("a test buffer", (total + (1 << 30)) as usize) {
        Err(glp::Error::GpuOutOfMemory { what, needed, free: reported_free, total: reported_total, .. }) => {
            assert_eq!((what.as_str(), needed, reported_total), ("a test buffer", total + (1 << 30), total));
            assert!(reported_free <= total && reported_free.abs_diff(free) < (1 << 30));
        }
        Err(e) => panic!("expected an out-of-memory error, got {e}"),
        Ok(_) => panic!("allocated more than the device has"),
    }
    assert_eq!(gpu.held_bytes(), held, "a failed allocation is not counted");
    // Memory dropped a moment ago is available again at once (the driver's pool gives it back
    // at the next synchronization, which the allocator waits for before giving up).
    let most = (gpu.memory_info().unwrap().0 as f64 * 0.6) as usize;
    for round in 0..3 {
        let buffer = gpu.alloc_zeros::<u8>("a large test buffer", most);
        assert!(buffer.is_ok(), "round {round}: {:?}", buffer.err());
    }
    assert_eq!(gpu.held_bytes(), held);
    let err = gpu.alloc_zeros::<u8>("labels", (total + 1) as usize).err().unwrap().to_string();
    assert!(err.contains("out of GPU memory allocating labels") && err.contains("bytes free"), "{err}");
    // An empty graph runs and keeps nothing, with every strategy; edgeless vertices keep their labels.
    let config = LpConfig::synchronous(3);
    let isolated = glp::lp::run_kernel(&Csr::empty(3), &Classic, &config, &none).unwrap().labels;
    for strategy in MflStrategy::ALL {
        let (out, _) = run_gpu(&gpu, &Csr::empty(0), &Classic, &config, &none, strategy, VertexOrder::Auto).unwrap();
        assert!(out.labels.is_empty(), "{}", strategy.name());
        let (out, _) = run_gpu(&gpu, &Csr::empty(3), &Classic, &config, &none, strategy, VertexOrder::Auto).unwrap();
        assert_eq!(out.labels, isolated, "{}", strategy.name());
    }
}

/// A file variant whose hook never ends stops on the GPU, with every strategy and both
/// schedules, with the error the CPU gives: the budget, the loop's `file:line:col` with its
/// source line, the hook and the vertex. A loop of exactly the budget's length runs on both
/// backends, one step more stops both: they count the same steps.
#[test]
fn an_endless_loop_on_the_gpu_ends_the_run_naming_hook_loop_and_vertex() {
    let Some(gpu) = gpu_or_skip("an_endless_loop_on_the_gpu_ends_the_run_naming_hook_loop_and_vertex") else { return };
    // Vertices of every degree class (hubs overflow the shared table), built here.
    let csr = degree_mix(&[40_000, 3_000], &[1, 2, 5, 40, 300], 2_000, 7, 50, 5);
    let none = LpInputs::default();
    let hooks = [
        (
            "    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {\n        \
             let mut n = 0u32;\n        while true { n += 1; }\n        best\n    }",
            "while true",
            "`update_vertex` of `Spin`, for vertex index ",
        ),
        (
            "    fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {\n        \
             let mut w = 0.0;\n        loop { w += 1.0; }\n    }",
            "loop {",
            "`load_neighbor` of `Spin`, for vertex index ",
        ),
        (
            "    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {\n        let mut l = v;\n        \
             for i in 0..2u32 { for j in 0..u32::MAX { l = l ^ j; } }\n        l\n    }",
            "for j",
            "`initial_label` of `Spin`, for vertex index ",
        ),
    ];
    let configs = [("sync", sync(5)), ("async", LpConfig { ties: TieBreak::Hashed, ..LpConfig::asynchronous() })];
    for (hook, loop_start, note) in hooks {
        let source = format!("pub struct Spin;\n\nimpl LpVariant for Spin {{\n{hook}\n}}\n");
        let offset = source.find(loop_start).unwrap();
        let line = source[..offset].matches('\n').count() + 1;
        let column = offset - source[..offset].rfind('\n').unwrap();
        let source_line = source.lines().nth(line - 1).unwrap();
        let spin = glp::lp::InterpretedVariant::from_source("spin.rs", &source, &[] as &[&str])
            .unwrap()
            .with_loop_budget(1000);
        for (schedule, config) in &configs {
            for strategy in MflStrategy::ALL.into_iter().chain(MflStrategy::SKETCHES) {
                if *schedule == "async" && !strategy.supports_asynchronous() {
                    continue;
                }
                let what = format!("{loop_start}, {schedule}, {}", strategy.name());
                let err = run_gpu(&gpu, &csr, &spin, config, &none, strategy, VertexOrder::Auto).unwrap_err();
                let text = err.to_string();
                assert!(matches!(err, glp::Error::Program(_)), "{what}: {err:?}");
                assert!(text.contains("the loops of one call may run 1000 iterations in all"), "{what}: {text}");
                assert!(text.contains(&format!("--> spin.rs:{line}:{column}\n")), "{what}: {text}");
                assert!(text.contains(&format!("{line} | {source_line}\n")), "{what}: {text}");
                assert!(text.contains(note) && text.ends_with(" on the GPU"), "{what}: {text}");
                let vertex = text.split("for vertex index ").nth(1).and_then(|t| t.split(' ').next()).unwrap();
                assert!(vertex.parse::<usize>().unwrap() < csr.num_vertices(), "{what}: {text}");
            }
        }
    }
    // `update_vertex` running exactly 1000 steps: the CPU's labels with a budget of 1000; 999
    // stops both backends.
    let source = "pub struct Count;\n\nimpl LpVariant for Count {\n    fn update_vertex(&self, view: &View<'_>, v: \
                  VertexId, best: Label, score: f64) -> Label {\n        let mut n = 0u32;\n        for i in 0..10u32 \
                  {\n            for j in 0..99u32 { n += 1; }\n        }\n        if n == 990 { best } else { v }\n    \
                  }\n}\n";
    let count = |budget| {
        glp::lp::InterpretedVariant::from_source("count.rs", source, &[] as &[&str]).unwrap().with_loop_budget(budget)
    };
    // Held by degree too: the hook gets (and may return) the graph's ids.
    let config = sync(5);
    let cpu = glp::lp::run_kernel(&csr, &count(1000), &config, &none).unwrap();
    for (strategy, order) in
        MflStrategy::ALL.into_iter().flat_map(|s| [(s, VertexOrder::Graph), (s, VertexOrder::Degree)])
    {
        let what = format!("{} {order:?}", strategy.name());
        let (gpu_out, _) = run_gpu(&gpu, &csr, &count(1000), &config, &none, strategy, order).unwrap();
        assert_same_labels(&what, &csr, &gpu_out.labels, &cpu.labels);
        let err = run_gpu(&gpu, &csr, &count(999), &config, &none, strategy, order).unwrap_err().to_string();
        assert!(err.contains("--> count.rs:7:13\n"), "{what}: {err}");
    }
    let err = glp::lp::run_kernel(&csr, &count(999), &config, &none).unwrap_err().to_string();
    assert!(err.contains("--> count.rs:7:13\n"), "{err}");
}

/// The vertex order: `degree` is refused to the sketch strategies (a sketch's summary depends
/// on the order of a row's labels), on a graph uploaded by degree too; `auto` keeps the
/// graph's order for them, for variants with their own `load_neighbor` and for labels that
/// fit in the L2 cache; empty and edgeless graphs run by degree. A multigraph's first sweep
/// counts (the minimum would be wrong where a label comes twice).
#[test]
fn the_vertex_order_follows_the_strategy_and_the_variant() {
    let Some(gpu) = gpu_or_skip("the_vertex_order_follows_the_strategy_and_the_variant") else { return };
    let g = load("karate.mtx");
    let none = LpInputs::default();
    let placed = DeviceGraph::upload_by_degree(&gpu, &g.csr, false).unwrap();
    for sketch in MflStrategy::SKETCHES {
        let err = run_gpu(&gpu, &g.csr, &Classic, &sync(3), &none, sketch, VertexOrder::Degree).unwrap_err();
        assert!(err.to_string().contains("runs on vertices in the graph's order"), "{err}");
        let err = run_gpu_on(&gpu, &placed, &Classic, &sync(3), &none, sketch).unwrap_err();
        assert!(err.to_string().contains("runs on vertices in the graph's order"), "{err}");
        assert!(!places_by_degree(&gpu, &g.csr, &Classic, sketch, VertexOrder::Auto).unwrap());
    }
    assert!(!places_by_degree(&gpu, &g.csr, &Weighted, MflStrategy::Glp, VertexOrder::Auto).unwrap());
    assert!(places_by_degree(&gpu, &g.csr, &Weighted, MflStrategy::Glp, VertexOrder::Degree).unwrap());
    assert!(!places_by_degree(&gpu, &g.csr, &Classic, MflStrategy::Glp, VertexOrder::Auto).unwrap(), "fits in L2");
    assert!(!places_by_degree(&gpu, &g.csr, &Classic, MflStrategy::Glp, VertexOrder::Graph).unwrap());
    // A multigraph's repeated targets give a label frequency 2: the first sweep counts.
    // Vertex 0 meets label 2 twice and label 1 once: counting gives 2, a minimum would give 1.
    let multi = Csr::new(vec![0, 3, 4, 6, 6], vec![1, 2, 2, 0, 0, 0], None).unwrap();
    assert!(!DeviceGraph::upload(&gpu, &multi, false).unwrap().distinct_targets());
    assert!(DeviceGraph::upload(&gpu, &g.csr, false).unwrap().distinct_targets());
    let cpu = glp::lp::run_kernel(&multi, &Classic, &sync(3), &none).unwrap();
    for (strategy, order) in
        MflStrategy::ALL.into_iter().flat_map(|s| [(s, VertexOrder::Graph), (s, VertexOrder::Degree)])
    {
        let (out, stats) = run_gpu(&gpu, &multi, &Classic, &sync(3), &none, strategy, order).unwrap();
        assert_eq!(out.labels, cpu.labels, "multigraph, {} {order:?}", strategy.name());
        assert!(!stats.first_sweep_minimum, "multigraph, {} {order:?}", strategy.name());
        // On a simple graph the same run takes the minimum (the CPU comparisons of the other
        // tests check its labels); hashed ties or a weighted variant count.
        let (_, stats) = run_gpu(&gpu, &g.csr, &Classic, &sync(3), &none, strategy, order).unwrap();
        assert!(stats.first_sweep_minimum, "karate, {} {order:?}", strategy.name());
        let hashed = LpConfig { ties: TieBreak::Hashed, ..sync(3) };
        let (_, stats) = run_gpu(&gpu, &g.csr, &Classic, &hashed, &none, strategy, order).unwrap();
        assert!(!stats.first_sweep_minimum, "karate hashed, {} {order:?}", strategy.name());
        let (_, stats) = run_gpu(&gpu, &g.csr, &Weighted, &sync(3), &none, strategy, order).unwrap();
        assert!(!stats.first_sweep_minimum, "karate weighted, {} {order:?}", strategy.name());
    }
    assert_eq!(cpu.labels[0], 2, "the CPU counts the repeated label");
    let isolated = glp::lp::run_kernel(&Csr::empty(3), &Classic, &sync(3), &none).unwrap().labels;
    for strategy in MflStrategy::ALL {
        let (out, _) = run_gpu(&gpu, &Csr::empty(0), &Classic, &sync(3), &none, strategy, VertexOrder::Degree).unwrap();
        assert!(out.labels.is_empty(), "{}", strategy.name());
        let (out, _) = run_gpu(&gpu, &Csr::empty(3), &Classic, &sync(3), &none, strategy, VertexOrder::Degree).unwrap();
        assert_eq!(out.labels, isolated, "{}", strategy.name());
    }
}

#[test]
fn a_graph_uploaded_without_its_weights_is_refused_to_a_variant_that_reads_them() {
    let Some(gpu) = gpu_or_skip("a_graph_uploaded_without_its_weights_is_refused_to_a_variant_that_reads_them") else {
        return;
    };
    let csr = with_integer_weights(&load("karate.mtx").csr);
    let bare = DeviceGraph::upload(&gpu, &csr, false).unwrap();
    let err = run_gpu_on(&gpu, &bare, &Weighted, &sync(5), &LpInputs::default(), MflStrategy::Glp).unwrap_err();
    assert!(err.to_string().contains("uploaded to the GPU without them"), "{err}");
    // With them, the same graph object serves repeated runs with equal results.
    let graph = DeviceGraph::upload(&gpu, &csr, true).unwrap();
    let first = run_gpu_on(&gpu, &graph, &Weighted, &sync(5), &LpInputs::default(), MflStrategy::Glp).unwrap().0;
    let again = run_gpu_on(&gpu, &graph, &Weighted, &sync(5), &LpInputs::default(), MflStrategy::Sort).unwrap().0;
    let cpu = glp::lp::run_kernel(&csr, &Weighted, &sync(5), &LpInputs::default()).unwrap();
    assert_eq!(first.labels, cpu.labels);
    assert_eq!(again.labels, cpu.labels);
}
