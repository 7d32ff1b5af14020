//! `glp bench lp`, `glp bench compile` and `glp bench probe` (GPU and CPU). `glp bench run`
//! has its own test binary (`tests/cli_bench_run.rs`).

use crate::common::{self, data, error_line, glp, stderr, stdout};

#[test]
fn bench_lp_on_the_cpu_gives_a_row_per_strategy() {
    let graph = data("football.edges");
    let args = ["bench", "lp", graph.to_str().unwrap(), "--schedule", "sync", "--repeat", "2", "--json"];
    let run = glp(&[&args[..], &["--mfl", "glp,mg8,bm"]].concat());
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    let rows = report["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["mfl"].as_str().unwrap()).collect();
    assert_eq!(names, ["glp", "mg8", "bm"]);
    // Each row is the run of its strategy: its modularity is the library's for the same run.
    let g = common::load("football.edges");
    let config = glp::lp::LpConfig::synchronous(20);
    let none = glp::lp::LpInputs::default();
    let exact = glp::lp::run_kernel(&g.csr, &glp::variants::Classic, &config, &none).unwrap();
    let sketched = |s| glp::lp::run_sketched(&g.csr, &glp::variants::Classic, &config, &none, s).unwrap();
    let expected = [exact, sketched(glp::lp::Sketch::MisraGries { slots: 8 }), sketched(glp::lp::Sketch::BoyerMoore)];
    // The rows can only be told apart if the strategies' labels differ here.
    assert!(expected[0].labels != expected[1].labels && expected[0].labels != expected[2].labels);
    for (row, outcome) in rows.iter().zip(expected) {
        let q = glp::metrics::QualityReport::new(&g.csr, &outcome.labels, None).unwrap();
        assert!((row["quality"]["modularity"].as_f64().unwrap() - q.modularity).abs() < 1e-12, "{row}");
        assert_eq!(row["iterations"].as_u64().unwrap() as usize, outcome.iterations.len(), "{row}");
        assert_eq!(row["runs_ms"].as_array().unwrap().len(), 2, "{row}");
    }
}

/// `glp bench lp --backend gpu` divides each strategy's edges per second by the random-read
/// ceiling the probe measures in the same run for an array the size of the labels (every
/// edge reads its neighbour's label): the fraction follows from the row's own time and the
/// reported ceiling, and the table says which ceiling it is.
#[test]
fn bench_lp_on_the_gpu_reports_the_fraction_of_the_gather_ceiling() {
    if common::gpu_or_skip("bench_lp_on_the_gpu_reports_the_fraction_of_the_gather_ceiling").is_none() {
        return;
    }
    let graph = data("email-Eu-core.txt");
    let args = ["bench", "lp", graph.to_str().unwrap(), "--backend", "gpu", "--schedule", "sync", "--repeat", "1"];
    let run = glp(&[&args[..], &["--mfl", "glp,global", "--json"]].concat());
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    // The ceiling is the one for an array the size of the labels (4 bytes per vertex).
    let vertices = common::load("email-Eu-core.txt").csr.num_vertices() as u64;
    assert_eq!(report["gather_array_bytes"].as_u64(), Some(4 * vertices), "{report}");
    let ceiling = report["gather_ceiling_reads_per_s"].as_f64().unwrap();
    assert!(ceiling > 1e9, "{report}");
    let edges = report["stored_edges"].as_f64().unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{report}");
    for row in rows {
        let iteration_s = row["iteration_ms"].as_f64().unwrap() / 1e3;
        let expected = edges / iteration_s / ceiling;
        let fraction = row["of_gather_ceiling"].as_f64().unwrap();
        assert!(fraction > 0.0 && (fraction - expected).abs() <= 1e-9 * expected, "{row}");
    }
    let table = stdout(&glp(&args));
    assert!(table.contains("random reads/s in a") && table.contains("of gather"), "{table}");
}

/// `glp bench compile` compiles every built-in variant's reference kernel cold and loads it
/// back from a fresh cache on the same folder (the command itself fails when the load was
/// not a disk hit): the PTX is for the asked architecture, and the disk cache beats NVRTC.
#[test]
fn bench_compile_reports_cold_and_cached_times_for_every_built_in_variant() {
    if !glp::device::nvrtc::available() {
        assert!(
            std::env::var("GLP_REQUIRE_NVRTC").map_or(true, |v| v != "1"),
            "GLP_REQUIRE_NVRTC=1 but NVRTC cannot be loaded (add its lib folder to LD_LIBRARY_PATH)"
        );
        eprintln!("bench_compile: skipped, NVRTC is not installed (set GLP_REQUIRE_NVRTC=1 to fail instead)");
        return;
    }
    let run = glp(&["bench", "compile", "--arch", "sm_80", "--repeat", "1", "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(report["arch"], "sm_80");
    assert_eq!(report["nvrtc_version"].as_str().unwrap().split('.').count(), 2);
    let variants: Vec<&str> =
        report["variants"].as_array().unwrap().iter().map(|v| v["variant"].as_str().unwrap()).collect();
    assert_eq!(variants, ["classic", "weighted", "llp", "slp", "seeded"]);
    for v in report["variants"].as_array().unwrap() {
        let (cold, disk) = (v["cold_median_ms"].as_f64().unwrap(), v["disk_median_ms"].as_f64().unwrap());
        assert!(disk > 0.0 && disk < cold, "{v}");
        assert!(v["ptx_bytes"].as_u64().unwrap() > 1000 && v["source_bytes"].as_u64().unwrap() > 1000, "{v}");
        assert_eq!(v["cold_runs_ms"].as_array().unwrap().len(), 1);
    }

    let bad = glp(&["bench", "compile", "--arch", "sm_1", "--repeat", "1"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("--gpu-architecture"), "{}", stderr(&bad));
}

/// `glp bench probe` measures the GPU's memory ceilings; without a GPU it says so.
#[test]
fn bench_probe_measures_the_gpu_or_says_there_is_none() {
    let run = glp(&["bench", "probe", "--json"]);
    if run.status.success() {
        let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
        let dram = report["ceiling_dram_reads_per_s"].as_f64().unwrap();
        let l2 = report["ceiling_l2_reads_per_s"].as_f64().unwrap();
        assert!(dram > 1e9 && l2 >= dram, "{report}");
        // Every size of the ladder (8 MiB to 4 GiB) is measured with 6 chain counts and
        // independent reads, or skipped with what it needs and what is free.
        let rows = report["rows"].as_array().unwrap();
        let mut measured: Vec<u64> = rows.iter().map(|r| r["bytes"].as_u64().unwrap()).collect();
        measured.dedup();
        assert_eq!(rows.len(), 7 * measured.len(), "{report}");
        let skipped = report["skipped"].as_array().unwrap();
        assert_eq!(measured.len() + skipped.len(), 6, "{report}");
        assert!(skipped.iter().all(|s| s["reason"].as_str().unwrap().contains("free")), "{report}");
        assert_eq!(measured[0], 8 << 20);
        assert!(report["device_copy_gb_s"].as_f64().unwrap() > 100.0, "{report}");
        // Pinned host memory: measured, or a note says why not.
        match report["host_pinned_bytes"].as_u64() {
            Some(bytes) => {
                assert!(bytes >= 64 << 20, "{report}");
                assert!(report["zero_copy_reads_per_s"].as_f64().unwrap() > 1e6, "{report}");
                assert!(report["zero_copy_block_gb_s"].as_f64().unwrap() > 0.5, "{report}");
                let copy = report["host_copy_gb_s"].as_f64();
                assert!(copy.is_some_and(|c| c > 1.0) || report["notes"].to_string().contains("copy"), "{report}");
            }
            None => assert!(report["notes"].to_string().contains("pinned host memory not measured"), "{report}"),
        }
        // --quick: the independent reads only, enough for the ceilings.
        let quick: serde_json::Value =
            serde_json::from_str(&stdout(&glp(&["bench", "probe", "--quick", "--json"]))).unwrap();
        let rows = quick["rows"].as_array().unwrap();
        assert!(!rows.is_empty() && rows.iter().all(|r| r["chains"].is_null()), "{quick}");
        assert!(quick["device_copy_gb_s"].is_null() && quick["host_pinned_bytes"].is_null(), "{quick}");
        assert!(quick["ceiling_dram_reads_per_s"].as_f64().unwrap() > 1e9, "{quick}");
    } else {
        let line = error_line(&run);
        assert!(line.contains("GPU"), "{line}");
    }
}

/// `glp bench probe --backend cpu` measures dependent random reads with 1 to 32 chains per
/// thread for an array in L2, one in L3 and one in DRAM.
#[test]
fn bench_probe_measures_the_cpu() {
    let run = glp(&["--threads", "1", "bench", "probe", "--backend", "cpu", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(report["threads"], 1);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3 * 6, "{report}");
    let tiers: Vec<&str> = rows.iter().map(|r| r["tier"].as_str().unwrap()).collect();
    assert_eq!((tiers[0], tiers[6], tiers[12]), ("L2", "L3", "Dram"), "{report}");
    assert!(rows.iter().all(|r| r["reads_per_s"].as_f64().unwrap() > 1e5), "{report}");
    let sizes: Vec<u64> = rows.iter().map(|r| r["bytes"].as_u64().unwrap()).collect();
    assert!(sizes[0] < sizes[6] && sizes[6] < sizes[12] && sizes[12] >= 128 << 20, "{report}");
    let line = error_line(&glp(&["bench", "probe", "--backend", "cpu", "--quick"]));
    assert!(line.contains("--quick"), "{line}");
}
