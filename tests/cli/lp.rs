//! `glp lp` on the CPU: the labels it writes and the quality it reports (NMI computed here),
//! the demonstration on the bundled graph, LDBC CDLP reference outputs under the synchronous
//! schedule, the GPU backend's fallback, `--threads` and a partial `--ground-truth`.

use crate::common::{data, glp, read_pairs, stderr, stdout, BUNDLED_FILE};
use std::collections::HashMap;

/// NMI with the arithmetic-mean normalisation, written independently of glp's metrics.
fn nmi(a: &[u64], b: &[u64]) -> f64 {
    let n = a.len() as f64;
    let mut joint: HashMap<(u64, u64), f64> = HashMap::new();
    let (mut ca, mut cb): (HashMap<u64, f64>, HashMap<u64, f64>) = (HashMap::new(), HashMap::new());
    for (&x, &y) in a.iter().zip(b) {
        *joint.entry((x, y)).or_default() += 1.0;
        *ca.entry(x).or_default() += 1.0;
        *cb.entry(y).or_default() += 1.0;
    }
    let h = |c: &HashMap<u64, f64>| -c.values().map(|&k| k / n * (k / n).ln()).sum::<f64>();
    let mi: f64 = joint.iter().map(|(&(x, y), &k)| k / n * (k * n / (ca[&x] * cb[&y])).ln()).sum();
    mi / ((h(&ca) + h(&cb)) / 2.0)
}

#[test]
fn lp_on_the_bundled_graph_reports_quality_that_matches_its_labels() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("labels.tsv");
    let run = glp(&["lp", "--backend", "cpu", "--json", "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(report["vertices"], 1005);

    // NMI of the written labels against the department file, computed here.
    let labels = read_pairs(&out);
    let truth = read_pairs(&data("email-Eu-core-department-labels.txt"));
    assert_eq!(labels.len(), 1005);
    let (a, b): (Vec<u64>, Vec<u64>) = truth.iter().map(|(v, d)| (labels[v], *d)).unzip();
    let expected = nmi(&a, &b);
    let reported = report["quality"]["nmi"]["value"].as_f64().unwrap();
    assert!((expected - reported).abs() < 1e-9, "reported {reported}, computed {expected}");
    // Every label is the id of a vertex of the graph.
    assert!(labels.values().all(|l| labels.contains_key(l)));
}

#[test]
fn lp_summary_names_every_figure() {
    let run = glp(&["lp", "--backend", "cpu"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = stdout(&run);
    for field in ["time", "iterations", "communities", "modularity", "NMI"] {
        assert!(text.contains(field), "missing {field} in:\n{text}");
    }
}

#[test]
fn the_demonstration_shows_the_collapse_and_the_remedies_beside_classic_lp() {
    // One thread: the asynchronous schedule is then deterministic, so separate runs of each
    // variant reproduce the demonstration's figures.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("classic.tsv");
    let run = glp(&["--threads", "1", "lp", "--backend", "cpu", "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = stdout(&run);
    // The collapse note names the largest community of the labels written, counted here.
    let mut sizes: HashMap<u64, usize> = HashMap::new();
    for label in read_pairs(&out).values() {
        *sizes.entry(*label).or_default() += 1;
    }
    let largest = sizes.values().max().copied().unwrap();
    assert!(largest > 900, "classic LP collapses on this graph: {largest}");
    let share = (100.0 * largest as f64 / 1005.0).round();
    assert!(
        text.contains(&format!("note         one community holds {largest} of 1005 vertices ({share}%):\n")),
        "{text}"
    );
    // Each remedy's line shows the NMI of that variant's labels, computed here from its own run.
    let truth = read_pairs(&data("email-Eu-core-department-labels.txt"));
    for variant in ["capped", "llp"] {
        let file = dir.path().join(format!("{variant}.tsv"));
        let args = ["--threads", "1", "lp", "--backend", "cpu", "--variant", variant, "--out", file.to_str().unwrap()];
        let single = glp(&args);
        assert!(single.status.success(), "{}", stderr(&single));
        let labels = read_pairs(&file);
        let (a, b): (Vec<u64>, Vec<u64>) = truth.iter().map(|(v, d)| (labels[v], *d)).unzip();
        let expected = nmi(&a, &b);
        let line =
            text.lines().find(|l| l.starts_with(variant)).unwrap_or_else(|| panic!("no {variant} line:\n{text}"));
        assert!(line.ends_with(&format!(", NMI {expected:.4}")), "{line} (NMI computed here: {expected})");
        // Each remedy does better than classic LP against the departments.
        let (c, d): (Vec<u64>, Vec<u64>) = truth.iter().map(|(v, d)| (read_pairs(&out)[v], *d)).unzip();
        assert!(expected > nmi(&c, &d) + 0.2, "{variant}: NMI {expected}");
    }
    // A graph of the user's is not the demonstration: no remedies are run.
    let user = glp(&["lp", "--backend", "cpu", BUNDLED_FILE]);
    assert!(user.status.success() && !stdout(&user).contains("--variant capped:"), "{}", stdout(&user));
}

#[test]
fn gpu_backend_without_a_gpu_is_a_clear_error_and_auto_falls_back() {
    if glp_runtime::device::probe().is_ok() {
        return; // A GPU machine: the fallback paths below do not apply.
    }
    let run = glp(&["lp", "--backend", "gpu", "--schedule", "sync"]);
    assert!(!run.status.success());
    assert!(stderr(&run).starts_with("error: GPU unavailable:"), "{}", stderr(&run));
    let run = glp(&["lp", "--backend", "gpu", "--schedule", "async"]);
    assert!(!run.status.success());
    assert!(stderr(&run).starts_with("error: GPU unavailable:"), "{}", stderr(&run));
    for schedule in ["sync", "async"] {
        let run = glp(&["lp", "--backend", "auto", "--schedule", schedule]);
        assert!(run.status.success());
        let err = stderr(&run);
        let notices: Vec<&str> = err.lines().filter(|l| l.starts_with("notice:")).collect();
        assert_eq!(notices.len(), 1, "{}", stderr(&run));
        assert!(notices[0].contains("CPU"));
    }
}

/// LDBC Graphalytics CDLP: synchronous, ties to the smallest label; on the directed sets
/// `--directed` counts in- and out-neighbours, a neighbour linked both ways twice.
#[test]
fn sync_schedule_reproduces_ldbc_cdlp_reference_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("ldbc-validation/cdlp/dir-input", "ldbc-validation/cdlp/dir-output", "5", true),
        ("ldbc-validation/cdlp/undir-input", "ldbc-validation/cdlp/undir-output", "5", false),
        ("ldbc-validation/example/example-directed.e", "ldbc-validation/example/example-directed-CDLP", "2", true),
        ("ldbc-validation/example/example-undirected.e", "ldbc-validation/example/example-undirected-CDLP", "2", false),
    ];
    let mut directed_differs = false;
    for (input, expected, iterations, directed) in cases {
        let run_with = |extra: &[&str]| {
            let out = dir.path().join("labels.tsv");
            let mut args = vec!["lp", "--schedule", "sync", "--iterations", iterations, "--backend", "cpu"];
            let input_path = data(input);
            let out_path = out.to_str().unwrap().to_string();
            args.extend([input_path.to_str().unwrap(), "--out", &out_path]);
            if input.ends_with("-input") {
                args.extend(["--format", "adj"]);
            }
            args.extend(extra);
            let run = glp(&args);
            assert!(run.status.success(), "{input}: {}", stderr(&run));
            read_pairs(&out)
        };
        let expected = read_pairs(&data(expected));
        if directed {
            assert_eq!(run_with(&["--directed"]), expected, "{input} --directed");
            // Symmetrised with collapsed duplicates, reciprocal pairs count once.
            directed_differs |= run_with(&[]) != expected;
        } else {
            assert_eq!(run_with(&[]), expected, "{input}");
        }
    }
    assert!(directed_differs, "a directed set whose labels do not depend on --directed tests nothing");
}

#[test]
fn threads_beyond_four_per_core_are_capped() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let run = glp(&["lp", "--backend", "cpu", "--json", "--threads", "5000"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(report["threads"].as_u64().unwrap() as usize, 4 * cores);
    assert!(stderr(&run).contains(&format!("capped at {}", 4 * cores)), "{}", stderr(&run));
    let run = glp(&["lp", "--backend", "cpu", "--json", "--threads", "3"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&stdout(&run)).unwrap()["threads"], 3);
    assert_eq!(stderr(&run), "");
}

#[test]
fn a_ground_truth_covering_few_vertices_is_reported_with_its_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.txt");
    // Three of the bundled graph's 1005 vertices.
    std::fs::write(&truth, "0 1\n1 1\n2 4\n").unwrap();
    let run = glp(&["lp", "--backend", "cpu", "--ground-truth", truth.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = stdout(&run);
    assert!(text.contains("truth        3 of 1005 vertices (0.3%): too few"), "{text}");
    assert!(text.contains("NMI          ") && text.contains(" over 3 of 1005 vertices"), "{text}");
    let err = stderr(&run);
    assert!(err.starts_with("warning: the ground truth labels only 3 of 1005 vertices (0.3%)"), "{err}");
    let json = glp(&["lp", "--backend", "cpu", "--json", "--ground-truth", truth.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(report["truth_coverage"]["covered_vertices"], 3);
    assert_eq!(report["truth_coverage"]["vertices"], 1005);
    assert!((report["truth_coverage"]["fraction"].as_f64().unwrap() - 3.0 / 1005.0).abs() < 1e-12);
    // The bundled department labels cover every vertex: no warning.
    let full = glp(&["lp", "--backend", "cpu"]);
    assert!(stdout(&full).contains("truth        1005 of 1005 vertices (100.0%)\n"), "{}", stdout(&full));
}
