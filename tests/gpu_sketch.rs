//! The sketch MFL strategies (nu-LPA's Misra-Gries and Boyer-Moore sketches) and nu-LPA's hash
//! tables on the GPU.
//!
//! - Synchronous schedule: every sketch on the GPU gives exactly the labels (and changes per
//!   iteration) of its CPU twin (`run_sketched`), on the real graphs and on generated graphs
//!   with vertices on both sides of the high-degree bound (128) and hubs of thousands of
//!   neighbours (partial sketches merged). The hash tables join the exact strategies'
//!   comparisons with the CPU engine in `gpu_lp.rs` / `gpu_lp_async.rs` (`MflStrategy::ALL`).
//! - Asynchronous schedule: the nu-LPA rules hold on the iteration records; MG8 keeps the
//!   issue's target (modularity within 3% of the exact strategy) on a planted-partition graph,
//!   and MG8 and BM reach the paper's com-DBLP modularity (0.639 and 0.507, less 0.03).
//! - Memory: sketches hold no table and at most 8 bytes per vertex beyond graph and labels.
//! - A variant whose score is not the label's weighted count is refused, on both engines.
//!
//! GPU tests skip without a GPU (`GLP_REQUIRE_GPU=1` makes that a failure).

mod common;

use common::{assert_same_labels, degree_mix, gpu_or_skip, graphs_with_truth, load, with_integer_weights};
use glp::lp::gpu::{run_gpu, MflStrategy, VertexOrder};
use glp::lp::{run_sketched, Sketch};
use glp::prelude::*;

/// A graph with vertices of degree on both sides of the sketches' high-degree bound and hubs
/// (random neighbours with repeats, half of them among a few "community" vertices so labels
/// repeat and tie).
fn around_the_high_degree_bound() -> Csr {
    let hubs = [127u64, 128, 129, 255, 256, 257, 511, 1000, 4096, 9000];
    let small = [0u64, 1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 33, 64];
    degree_mix(&hubs, &small, 5000, 0x2545_F491_4F6C_DD1D, 50, 6)
}

fn graphs() -> Vec<(String, Csr)> {
    let mut graphs: Vec<(String, Csr)> = ["karate.mtx", "email-Eu-core.txt", "lfr/LFR_N50000_ad5_mc50_mu0.3.edges.gz"]
        .iter()
        .map(|n| (n.to_string(), load(n).csr))
        .collect();
    graphs.push(("com-dblp".into(), load("com-dblp.edges.gz").csr));
    graphs.push(("around-128".into(), around_the_high_degree_bound()));
    let rmat = glp::gen::rmat(&glp::gen::RmatParams { scale: 15, ..glp::gen::RmatParams::default() }).unwrap();
    graphs.push(("rmat-15".into(), rmat.csr));
    graphs
}

fn changes(o: &LpOutcome) -> Vec<u64> {
    o.iterations.iter().map(|i| i.changed).collect()
}

fn assert_gpu_equals_twin<V: CompiledVariant>(gpu: &glp::device::Gpu, what: &str, csr: &Csr, variant: &V) {
    let config = LpConfig::synchronous(20);
    let none = LpInputs::default();
    for strategy in MflStrategy::SKETCHES {
        let sketch = strategy.sketch().unwrap();
        let context = format!("{what}, {}", strategy.name());
        let cpu = run_sketched(csr, variant, &config, &none, sketch).unwrap_or_else(|e| panic!("{context}: {e}"));
        let (out, stats) = run_gpu(gpu, csr, variant, &config, &none, strategy, VertexOrder::Auto)
            .unwrap_or_else(|e| panic!("{context}: {e}"));
        assert_same_labels(&context, csr, &out.labels, &cpu.labels);
        assert_eq!(changes(&out), changes(&cpu), "{context}: changes per iteration");
        assert_eq!(out.converged, cpu.converged, "{context}");
        assert_eq!(stats.table_bytes, 0, "{context}: a sketch holds no table");
        let n = csr.num_vertices() as u64;
        let extra = stats.device_bytes - stats.base_bytes;
        assert!(extra <= 8 * n + 4096, "{context}: {extra} extra bytes for {n} vertices");
    }
}

#[test]
fn sketches_on_the_gpu_equal_their_cpu_twins_under_the_synchronous_schedule() {
    let Some(gpu) = gpu_or_skip("sketches_on_the_gpu_equal_their_cpu_twins_under_the_synchronous_schedule") else {
        return;
    };
    for (name, csr) in graphs() {
        assert_gpu_equals_twin(&gpu, &format!("classic on {name}"), &csr, &Classic);
        let weighted = with_integer_weights(&csr);
        assert_gpu_equals_twin(&gpu, &format!("weighted on {name}"), &weighted, &Weighted);
    }
}

/// Modularity the nu-LPA paper reports on com-DBLP (H100, Figure 7): nuMG8-LPA and nuBM-LPA.
const PAPER_COM_DBLP_MG8: f64 = 0.639;
const PAPER_COM_DBLP_BM: f64 = 0.507;

#[test]
fn asynchronous_sketch_runs_follow_the_nu_lpa_schedule_and_keep_the_quality() {
    let Some(gpu) = gpu_or_skip("asynchronous_sketch_runs_follow_the_nu_lpa_schedule_and_keep_the_quality") else {
        return;
    };
    // The exact reference takes hashed ties: smallest-label ties collapse email-Eu-core and LFR.
    let config = LpConfig { ties: TieBreak::Hashed, ..LpConfig::asynchronous() };
    let Schedule::Asynchronous { pick_less_every, tolerance } = config.schedule else { unreachable!() };
    let none = LpInputs::default();
    let mg8 = MflStrategy::Sketch(Sketch::MisraGries { slots: 8 });
    let bm = MflStrategy::Sketch(Sketch::BoyerMoore);
    for (graph, csr, truth) in graphs_with_truth() {
        let csr = &csr;
        let n = csr.num_vertices() as u64;
        let modularity = |labels: &[u32]| QualityReport::new(csr, labels, Some(&truth)).unwrap().modularity;
        let (exact, _) = run_gpu(&gpu, csr, &Classic, &config, &none, MflStrategy::Glp, VertexOrder::Auto).unwrap();
        let exact_q = modularity(&exact.labels);
        for strategy in MflStrategy::SKETCHES {
            let context = format!("{graph}, {}", strategy.name());
            let (out, stats) = run_gpu(&gpu, csr, &Classic, &config, &none, strategy, VertexOrder::Auto).unwrap();
            let its = &out.iterations;
            assert!(!its.is_empty() && its.len() as u32 <= config.max_iterations, "{context}");
            assert_eq!(its[0].processed, n, "{context}: every vertex is affected at the start");
            for (i, it) in its.iter().enumerate() {
                assert_eq!(it.pick_less, (i as u32).is_multiple_of(pick_less_every), "{context}: iteration {i}");
                assert!(it.changed <= it.processed && it.processed <= n, "{context}: iteration {i}");
            }
            let last = its.last().unwrap();
            if out.converged {
                assert!(!last.pick_less && last.changed as f64 <= tolerance * n as f64, "{context}");
            } else {
                assert_eq!(its.len() as u32, config.max_iterations, "{context}");
            }
            let extra = stats.device_bytes - stats.base_bytes;
            assert!(extra <= 8 * n + 4096, "{context}: {extra} extra bytes for {n} vertices");
            let q = modularity(&out.labels);
            eprintln!("{context}: modularity {q:.4} (exact glp {exact_q:.4})");
            // The target: MG8 within 3% of the exact strategy on a community graph.
            if graph.starts_with("planted") && strategy == mg8 {
                assert!(q >= 0.97 * exact_q, "{context}: modularity {q} against {exact_q}");
            }
            // On com-DBLP, at least the paper's figures (less a margin for the order of a
            // parallel asynchronous sweep).
            if graph.starts_with("com-dblp") && (strategy == mg8 || strategy == bm) {
                let paper = if strategy == mg8 { PAPER_COM_DBLP_MG8 } else { PAPER_COM_DBLP_BM };
                assert!(q >= paper - 0.03, "{context}: modularity {q} against the paper's {paper}");
            }
        }
    }
}

#[test]
fn nu_lpa_hash_tables_take_two_slots_per_edge() {
    let Some(gpu) = gpu_or_skip("nu_lpa_hash_tables_take_two_slots_per_edge") else { return };
    let csr = around_the_high_degree_bound();
    let config = LpConfig::synchronous(20);
    let none = LpInputs::default();
    let (out, stats) = run_gpu(&gpu, &csr, &Classic, &config, &none, MflStrategy::NuHash, VertexOrder::Auto).unwrap();
    assert_eq!(stats.table_bytes, 2 * csr.num_edges() * 12, "u32 keys and f64 sums, 2 slots per edge");
    let cpu = glp::lp::run_kernel(&csr, &Classic, &config, &none).unwrap();
    assert_eq!(out.labels, cpu.labels, "the hash tables are exact");
}

#[test]
fn sketches_refuse_variants_whose_score_is_not_the_weighted_count() {
    let csr = load("karate.mtx").csr;
    let config = LpConfig::synchronous(5);
    let none = LpInputs::default();
    for sketch in Sketch::ALL {
        for err in [
            run_sketched(&csr, &Llp::default(), &config, &none, sketch).unwrap_err(),
            run_sketched(&csr, &Slp::default(), &config, &none, sketch).unwrap_err(),
        ] {
            let text = err.to_string();
            assert!(text.contains("label_score is not the weighted count"), "{text}");
            assert!(text.contains(sketch.name()), "{text}");
        }
        // The frequency variants run, both schedules.
        for config in [LpConfig::synchronous(20), LpConfig::asynchronous()] {
            let out = run_sketched(&csr, &Classic, &config, &none, sketch).unwrap();
            assert_eq!(out.labels.len(), csr.num_vertices());
            assert!(out.labels.iter().all(|&l| (l as usize) < csr.num_vertices()));
        }
    }
    let err = run_sketched(&csr, &Classic, &config, &none, Sketch::MisraGries { slots: 6 }).unwrap_err();
    assert!(err.to_string().contains("2, 4, 8, 16 or 32"), "{err}");
    let Some(gpu) = gpu_or_skip("sketches_refuse_variants_whose_score_is_not_the_weighted_count") else { return };
    for strategy in MflStrategy::SKETCHES {
        let err = run_gpu(&gpu, &csr, &Llp::default(), &config, &none, strategy, VertexOrder::Auto).unwrap_err();
        assert!(err.to_string().contains("label_score is not the weighted count"), "{err}");
    }
}
