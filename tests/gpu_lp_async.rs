//! The GPU engine's asynchronous schedule (nu-LPA: in place, affected flags, Pick-Less,
//! tolerance) and the checks of the ids hooks pass to the view.
//!
//! An asynchronous sweep's result depends on the order vertices run in, so GPU and CPU labels
//! are not compared; the schedule's rules are checked on the iteration records, and quality
//! (glp's metrics, tested on their own against hand-computed values) against the CPU engine's
//! asynchronous run and the ground truth.

mod common;

use common::{degree_mix, gpu_or_skip, graphs_with_truth, largest_community, llp_sweep_graphs, load};
use glp::lp::gpu::{run_gpu, MflStrategy, VertexOrder};
use glp::prelude::*;

/// The nu-LPA defaults with ties to the smallest label.
fn nu_lpa() -> LpConfig {
    nu_lpa_with(TieBreak::SmallestLabel)
}

/// The nu-LPA defaults with the tie rule `ties` (the GPU has the smallest-label and hashed ones).
fn nu_lpa_with(ties: TieBreak) -> LpConfig {
    LpConfig { ties, ..LpConfig::asynchronous() }
}

/// Modularity, and NMI against the truth where the truth is a partition.
fn quality(csr: &Csr, labels: &[u32], truth: &GroundTruth) -> (f64, Option<f64>) {
    let q = QualityReport::new(csr, labels, Some(truth)).unwrap();
    (q.modularity, q.nmi.map(|n| n.value))
}

fn asynchronous_strategies() -> impl Iterator<Item = MflStrategy> {
    MflStrategy::ALL.into_iter().filter(|s| s.supports_asynchronous())
}

/// The synchronous-only strategies refuse the asynchronous schedule with a clear error.
#[test]
fn sort_refuses_the_asynchronous_schedule() {
    let Some(gpu) = gpu_or_skip("sort_refuses_the_asynchronous_schedule") else { return };
    let g = load("karate.mtx");
    let err = run_gpu(&gpu, &g.csr, &Classic, &nu_lpa(), &LpInputs::default(), MflStrategy::Sort, VertexOrder::Auto)
        .unwrap_err();
    assert!(err.to_string().contains("the sort MFL strategy runs the synchronous schedule only"), "{err}");
}

#[test]
fn asynchronous_runs_follow_the_nu_lpa_schedule_and_match_the_cpu_in_quality() {
    let Some(gpu) = gpu_or_skip("asynchronous_runs_follow_the_nu_lpa_schedule_and_match_the_cpu_in_quality") else {
        return;
    };
    let none = LpInputs::default();
    let graphs = graphs_with_truth();
    for (ties, config) in [TieBreak::SmallestLabel, TieBreak::Hashed].map(|t| (t, nu_lpa_with(t))) {
        let Schedule::Asynchronous { pick_less_every, tolerance } = config.schedule else { unreachable!() };
        for (name, csr, truth) in &graphs {
            let (name, csr) = (name.as_str(), csr);
            let n = csr.num_vertices() as u64;
            // The CPU reference runs on one thread: its in-place sweep is then sequential and
            // deterministic. On several threads its quality is itself a random variable (com-DBLP,
            // smallest-label ties, 16 threads of an H100 host: modularity 0.598 to 0.738 over 12
            // runs, while every GPU strategy stayed within 0.714 to 0.735), and a lucky CPU run
            // failed a GPU run that was as good as usual. (On one thread, smallest-label ties
            // drift com-DBLP to 0.346; hashed ties give 0.693.)
            let cpu = common::pool(1).install(|| glp::lp::run_kernel(csr, &Classic, &config, &none)).unwrap();
            let (cpu_modularity, cpu_nmi) = quality(csr, &cpu.labels, truth);
            for strategy in asynchronous_strategies() {
                let context = format!("{name}, {}, {ties:?} ties", strategy.name());
                let (out, _) = run_gpu(&gpu, csr, &Classic, &config, &none, strategy, VertexOrder::Auto).unwrap();
                let its = &out.iterations;
                assert!(out.converged && its.len() <= config.max_iterations as usize, "{context}: {its:?}");
                for (i, it) in its.iter().enumerate() {
                    assert_eq!(it.pick_less, (i as u32).is_multiple_of(pick_less_every), "{context}: iteration {i}");
                    assert!(it.changed <= it.processed && it.processed <= n, "{context}: iteration {i}");
                }
                // Every vertex is affected at the start; later sweeps skip settled ones.
                assert_eq!(its[0].processed, n, "{context}");
                assert!(its.iter().skip(1).any(|it| it.processed < n), "{context}: {its:?}");
                // It stops at the first non-Pick-Less sweep within the tolerance, not before.
                let within = |it: &glp::lp::IterationStats| !it.pick_less && it.changed as f64 <= tolerance * n as f64;
                assert!(within(its.last().unwrap()), "{context}: {its:?}");
                assert!(!its[..its.len() - 1].iter().any(within), "{context}: {its:?}");
                // Labels are vertex ids.
                assert!(out.labels.iter().all(|&l| (l as u64) < n), "{context}");
                let (modularity, nmi) = quality(csr, &out.labels, truth);
                eprintln!(
                    "{context}: modularity {modularity:.4} (CPU {cpu_modularity:.4}), NMI {nmi:?} (CPU {cpu_nmi:?})"
                );
                // With ties to the smallest label, asynchronous LP collapses email-Eu-core and LFR
                // mu 0.3 into a few giant labels on both engines (CPU modularity 0.00 and
                // 0.03-0.19 depending on threads): quality is compared where it does not collapse.
                // Hashed ties have no bias toward small labels and are compared everywhere.
                if ties == TieBreak::SmallestLabel && (name.starts_with("email") || name.starts_with("lfr")) {
                    continue;
                }
                // Hashed ties on com-DBLP: 0.647-0.661 on the GPU against the sequential CPU
                // sweep's 0.693 (H100); LFR within 0.011, planted-100k above the CPU.
                let slack = if ties == TieBreak::Hashed { 0.06 } else { 0.02 };
                assert!(
                    modularity >= cpu_modularity - slack,
                    "{context}: modularity {modularity} vs CPU {cpu_modularity}"
                );
                if let (Some(nmi), Some(cpu_nmi)) = (nmi, cpu_nmi) {
                    // Hashed ties on planted-100k: glp 0.938, smem 0.951, global and hash 0.986
                    // against the CPU's 0.969 (H200).
                    let slack = if ties == TieBreak::Hashed { 0.06 } else { 0.03 };
                    assert!(nmi >= cpu_nmi - slack, "{context}: NMI {nmi} vs CPU {cpu_nmi}");
                }
            }
        }
    }
}

/// One Pick-Less sweep from the initial labels (vertex ids): no vertex may take a larger
/// label, and a vertex keeps its own id only if no neighbour offered a smaller best label.
#[test]
fn a_pick_less_sweep_only_lowers_labels() {
    let Some(gpu) = gpu_or_skip("a_pick_less_sweep_only_lowers_labels") else { return };
    let g = load("com-dblp.edges.gz");
    let config = LpConfig { max_iterations: 1, ..nu_lpa() };
    for strategy in asynchronous_strategies() {
        let (out, _) =
            run_gpu(&gpu, &g.csr, &Classic, &config, &LpInputs::default(), strategy, VertexOrder::Auto).unwrap();
        assert!(out.iterations[0].pick_less);
        assert!(out.labels.iter().enumerate().all(|(v, &l)| l as usize <= v), "{}", strategy.name());
        let moved = out.labels.iter().enumerate().filter(|&(v, &l)| l as usize != v).count() as u64;
        assert_eq!(moved, out.iterations[0].changed, "{}", strategy.name());
    }
}

/// The smallest of the most frequent labels among `v`'s neighbours (its own label when none
/// has one): classic LP's choice, counted here on the CPU.
fn most_frequent_label(csr: &Csr, labels: &[u32], v: u32) -> u32 {
    let mut counts = std::collections::BTreeMap::new();
    for &u in csr.neighbors(v) {
        *counts.entry(labels[u as usize]).or_insert(0u64) += 1;
    }
    let best = counts.values().copied().max();
    counts.into_iter().find(|&(_, c)| Some(c) == best).map_or(labels[v as usize], |(label, _)| label)
}

/// An asynchronous run to convergence (tolerance 0) on a graph with giants (counted by many
/// blocks each) and hubs of every class ends at a fixed point: every vertex holds the label
/// classic LP would give it from its neighbours' final labels. (The graph is symmetric: a
/// vertex that moves marks its neighbours, which on a directed graph are not the vertices
/// whose choice it changes.)
#[test]
fn asynchronous_runs_with_giants_end_at_a_fixed_point() {
    let Some(gpu) = gpu_or_skip("asynchronous_runs_with_giants_end_at_a_fixed_point") else { return };
    use glp_codegen::lp_kernels::giants::GIANT_DEGREE;
    let mix = degree_mix(&[GIANT_DEGREE + 1, 150_000, 5000, 1500, 300], &[1, 2, 5, 9, 40], 8000, 3, 60, 10);
    let csr = glp::graph::directed_neighbourhoods(&mix).unwrap();
    assert!(csr.degree(0) as u64 > GIANT_DEGREE && csr.is_symmetric());
    let schedule = Schedule::Asynchronous { pick_less_every: 1000, tolerance: 0.0 };
    let config = LpConfig { schedule, max_iterations: 200, ..nu_lpa() };
    for strategy in asynchronous_strategies() {
        let (out, _) =
            run_gpu(&gpu, &csr, &Classic, &config, &LpInputs::default(), strategy, VertexOrder::Auto).unwrap();
        assert!(out.converged, "{}: {} sweeps", strategy.name(), out.iterations.len());
        for v in 0..csr.num_vertices() as u32 {
            let expected = most_frequent_label(&csr, &out.labels, v);
            assert_eq!(out.labels[v as usize], expected, "{}: vertex {v} (degree {})", strategy.name(), csr.degree(v));
        }
    }
}

/// Variants with facilities run asynchronously too: seeds never move, LLP's histogram is
/// rebuilt by its in-place pick each sweep and follows the sweep's moves, and each run stops
/// by the schedule's rules.
#[test]
fn seeded_and_llp_run_asynchronously() {
    let Some(gpu) = gpu_or_skip("seeded_and_llp_run_asynchronously") else { return };
    let g = load("lfr/LFR_N50000_ad5_mc50_mu0.3.edges.gz");
    let n = g.csr.num_vertices() as u32;
    let seeds: Vec<u32> = (0..n).map(|v| if v % 40 == 0 { v / 400 * 400 } else { UNLABELLED }).collect();
    let inputs = LpInputs { seeds: Some(&seeds), ..LpInputs::default() };
    let config = nu_lpa();
    for strategy in asynchronous_strategies() {
        let (out, _) = run_gpu(&gpu, &g.csr, &Seeded, &config, &inputs, strategy, VertexOrder::Auto).unwrap();
        for (v, &seed) in seeds.iter().enumerate() {
            if seed != UNLABELLED {
                assert_eq!(out.labels[v], seed, "seed {v} moved ({})", strategy.name());
            }
        }
        // Labels only come from seeds.
        assert!(out.labels.iter().all(|&l| l == UNLABELLED || l % 400 == 0), "{}", strategy.name());
        let cpu = glp::lp::run_kernel(&g.csr, &Llp { gamma: 1.0 }, &config, &LpInputs::default()).unwrap();
        let (llp, _) =
            run_gpu(&gpu, &g.csr, &Llp { gamma: 1.0 }, &config, &LpInputs::default(), strategy, VertexOrder::Auto)
                .unwrap();
        let modularity = |labels: &[u32]| QualityReport::new(&g.csr, labels, None).unwrap().modularity;
        let (gpu_q, cpu_q) = (modularity(&llp.labels), modularity(&cpu.labels));
        // The result depends on the order of the in-place updates, so the GPU's is compared
        // with the CPU's in quality. A broken schedule ends near the synchronous result
        // (0.0075: everything merges) or scatters labels.
        assert!(gpu_q >= 0.75 * cpu_q, "llp ({}): modularity {gpu_q} vs CPU {cpu_q}", strategy.name());
    }
}

/// Asynchronous LLP splits communities and settles on the GPU as on the CPU, over the GLP
/// paper's sweep gamma = 2^0..2^9, with every strategy and both tie rules: the label counts
/// follow the sweep's moves (with counts of the sweep's start only, one label swept football
/// and com-DBLP whole and the runs never converged).
#[test]
fn asynchronous_llp_shrinks_communities_and_converges_over_the_papers_gamma_sweep() {
    let Some(gpu) = gpu_or_skip("asynchronous_llp_shrinks_communities_and_converges_over_the_papers_gamma_sweep")
    else {
        return;
    };
    let graphs = llp_sweep_graphs();
    let none = LpInputs::default();
    for ties in [TieBreak::Hashed, TieBreak::SmallestLabel] {
        let config = nu_lpa_with(ties);
        for (name, csr) in &graphs {
            for strategy in asynchronous_strategies() {
                let (classic, _) = run_gpu(&gpu, csr, &Classic, &config, &none, strategy, VertexOrder::Auto).unwrap();
                let classic_largest = largest_community(&classic.labels);
                for i in 0..10 {
                    let gamma = f64::from(1u32 << i);
                    let context = format!("{name}, {}, {ties:?} ties, gamma {gamma}", strategy.name());
                    let (out, _) =
                        run_gpu(&gpu, csr, &Llp { gamma }, &config, &none, strategy, VertexOrder::Auto).unwrap();
                    let largest = largest_community(&out.labels);
                    assert!(out.converged, "{context}: {:?}", out.iterations);
                    assert!(largest < classic_largest, "{context}: largest {largest}, classic {classic_largest}");
                }
            }
        }
    }
}

/// A hook that reads a vertex or an edge that does not exist stops the run with an error
/// naming the method and the id, on both schedules and every strategy.
#[test]
fn out_of_range_ids_from_hooks_are_errors() {
    let Some(gpu) = gpu_or_skip("out_of_range_ids_from_hooks_are_errors") else { return };
    let g = load("karate.mtx");
    let n = g.csr.num_vertices() as u32;
    let m = g.csr.num_edges();
    let cases = [
        (
            "fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {\n\
             (view.label(u + view.num_vertices()), 1.0)\n}",
            "to view.label()".to_string(),
        ),
        (
            "fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {\n\
             (view.label(u), view.edge_weight(edge + 1000))\n}",
            "to view.edge_weight()".to_string(),
        ),
        (
            "fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {\n\
             freq + view.degree(v + 100) as f64\n}",
            "to view.degree()".to_string(),
        ),
    ];
    for (hook, expected) in cases {
        let source = format!("struct Bad;\nimpl LpVariant for Bad {{\n{hook}\n}}\n");
        let variant = glp::lp::InterpretedVariant::from_source("bad.rs", &source, &[] as &[&str]).unwrap();
        for config in [LpConfig::synchronous(3), nu_lpa()] {
            let asynchronous = config.schedule != Schedule::Synchronous;
            for strategy in MflStrategy::ALL.into_iter().filter(|s| !asynchronous || s.supports_asynchronous()) {
                let err = run_gpu(&gpu, &g.csr, &variant, &config, &LpInputs::default(), strategy, VertexOrder::Auto)
                    .unwrap_err();
                let text = err.to_string();
                assert!(text.contains("on the GPU") && text.contains(&expected), "{text}");
                assert!(
                    text.contains(&format!("{n} vertices")) || text.contains(&format!("{m} stored edges")),
                    "{text}"
                );
            }
        }
    }
}
