//! `glp lp --variant FILE.rs`, variants in source files: the built-in variants' own sources
//! give their labels, and compile errors, run-time errors, parameter errors and endless loops
//! are reported at the file's line and column.

use crate::common::{data, glp, stderr, stdout};
use crate::read_rows;
use std::path::Path;
use std::process::Command;

/// A built-in variant's source file, as a user would pass it.
fn variant_source(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/variants").join(name).to_str().unwrap().to_string()
}

#[test]
fn a_variant_file_gives_the_labels_of_the_built_in_variant() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds.txt");
    std::fs::write(&seeds, "1 10\n40 20\n80 30\n").unwrap();
    let seeds = seeds.to_str().unwrap();
    let graph = data("football.edges");
    let run_to = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let args = ["lp", graph.to_str().unwrap(), "--backend", "cpu", "--seed", "3", "--json"];
        let run = glp(&[&args[..], extra, &["--out", out.to_str().unwrap()]].concat());
        assert!(run.status.success(), "{extra:?}: {}", stderr(&run));
        let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
        (report["changed_per_iteration"].clone(), read_rows(&out))
    };
    let (llp, slp, seeded, weighted) = (
        variant_source("llp.rs"),
        variant_source("slp.rs"),
        variant_source("seeded.rs"),
        variant_source("weighted.rs"),
    );
    for schedule in ["sync", "async"] {
        let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
            (vec!["--variant", "weighted"], vec!["--variant", &weighted]),
            (vec!["--variant", "llp", "--param", "gamma=4"], vec!["--variant", &llp, "--param", "gamma=4"]),
            (vec!["--variant", "slp"], vec!["--variant", &slp, "--param", "threshold=0.1"]),
            (vec!["--variant", "seeded", "--seeds", seeds], vec!["--variant", &seeded, "--seeds", seeds]),
        ];
        for (built_in, file) in cases {
            let schedule = ["--schedule", schedule, "--threads", "1"];
            let want = run_to("built-in.tsv", &[&schedule[..], &built_in].concat());
            let got = run_to("file.tsv", &[&schedule[..], &file].concat());
            assert_eq!(want, got, "{file:?} against {built_in:?}");
        }
    }
}

#[test]
fn a_variant_file_that_does_not_compile_is_reported_at_file_line_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.rs");
    let source = "use glp::prelude::*;\n\npub struct Broken;\n\nimpl LpVariant for Broken {\n    fn label_score(&self, \
                  view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {\n        let scores = vec![freq];\n        \
                  freq.max(label)\n    }\n}\n";
    std::fs::write(&path, source).unwrap();
    let file = path.to_str().unwrap();
    let run = glp(&["lp", data("karate.mtx").to_str().unwrap(), "--backend", "cpu", "--variant", file]);
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(&format!("--> {file}:7:22")), "{err}");
    assert!(err.contains("7 |         let scores = vec![freq];"), "{err}");
    assert!(err.contains("  |                      ^"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Not Rust at all.
    std::fs::write(&path, "impl LpVariant for {").unwrap();
    let run = glp(&["lp", data("karate.mtx").to_str().unwrap(), "--backend", "cpu", "--variant", file]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains(&format!("--> {file}:1:")), "{}", stderr(&run));
}

const DIVIDER: &str = "use glp::prelude::*;

/// Labels modulo the vertex count divided by k.
pub struct Divider {
    pub k: u32,
}

impl LpVariant for Divider {
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {
        best % (view.num_vertices() / self.k)
    }
}
";

#[test]
fn a_runtime_error_in_a_variant_file_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("divider.rs");
    std::fs::write(&path, DIVIDER).unwrap();
    let file = path.to_str().unwrap();
    let karate = data("karate.mtx");
    let run = glp(&["lp", karate.to_str().unwrap(), "--backend", "cpu", "--variant", file, "--param", "k=0"]);
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(err.starts_with("error: attempt to divide by zero\n"), "{err}");
    assert!(err.contains(&format!("--> {file}:10:17")), "{err}");
    assert!(err.contains("10 |         best % (view.num_vertices() / self.k)"), "{err}");
    assert!(err.contains("`update_vertex` of `Divider`"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // With a valid divisor the same file runs: labels modulo 34 / 2.
    let run = glp(&["lp", karate.to_str().unwrap(), "--backend", "cpu", "--variant", file, "--param", "k=2", "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
}

#[test]
fn variant_file_parameter_errors_name_the_parameter_and_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("divider.rs");
    std::fs::write(&path, DIVIDER).unwrap();
    let divider = path.to_str().unwrap();
    let seeds = dir.path().join("seeds.txt");
    std::fs::write(&seeds, "1 10\n").unwrap();
    let seeds = seeds.to_str().unwrap();
    let llp = variant_source("llp.rs");
    let seeded = variant_source("seeded.rs");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--variant", divider], "`Divider` needs the parameter `k: u32` (give each with --param NAME=VALUE)"),
        (
            vec!["--variant", divider, "--param", "k=-1"],
            "`k` is a `u32`, expected an integer in 0..=4294967295 (got `-1`)",
        ),
        (vec!["--variant", divider, "--param", "k=2.5"], "(got `2.5`)"),
        (vec!["--variant", divider, "--param", "j=2"], "unknown parameter `j` (parameters of `Divider`: `k: u32`)"),
        (vec!["--variant", divider, "--param", "k=1", "--param", "k=2"], "--param k: given twice"),
        (vec!["--variant", &llp, "--param", "gamma=abc"], "`gamma` is a `f64`, expected a finite number (got `abc`)"),
        (vec!["--variant", &seeded], "reads seed labels (view.seed_label): give them with --seeds FILE"),
        (
            vec!["--variant", divider, "--param", "k=1", "--seeds", seeds],
            "--seeds applies to variants that read seed labels",
        ),
    ];
    for (extra, expected) in cases {
        let run = glp(&[&["lp", data("karate.mtx").to_str().unwrap(), "--backend", "cpu"][..], &extra].concat());
        assert!(!run.status.success(), "{extra:?} succeeded");
        let err = stderr(&run);
        assert!(err.contains(expected), "{extra:?}: expected `{expected}` in:\n{err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
    }
}

/// `glp lp --variant FILE.rs` whose hook never ends stops with an error naming the hook, the
/// loop's `file:line:col` and the vertex, instead of hanging (the default budget of the small
/// graph is 2^24 steps per hook call). The child is killed, and the test fails, if it has not
/// ended after two minutes.
#[test]
fn an_endless_loop_in_a_variant_file_ends_the_command_with_its_location() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("square.txt");
    std::fs::write(&graph, "1 2\n2 3\n3 4\n4 1\n").unwrap();
    let variant = dir.path().join("spin.rs");
    let source = "use glp::prelude::*;\n\npub struct Spin;\n\nimpl LpVariant for Spin {\n    fn update_vertex(&self, \
                  view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {\n        let mut n = 0u64;\n        \
                  while true {\n            n += 1;\n        }\n        best\n    }\n}\n";
    std::fs::write(&variant, source).unwrap();
    let (graph, variant) = (graph.to_str().unwrap(), variant.to_str().unwrap());
    let mut child = Command::new(crate::common::glp_binary())
        .args(["lp", graph, "--backend", "cpu", "--variant", variant])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the glp binary runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("`glp lp --variant spin.rs` still runs after two minutes");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let run = child.wait_with_output().unwrap();
    assert!(!run.status.success());
    let err = stderr(&run);
    // `while` is on line 8, column 9.
    assert!(
        err.contains("this loop ran past the step budget: the loops of one call may run 16777216 iterations"),
        "{err}"
    );
    assert!(err.contains(&format!("--> {variant}:8:9\n")), "{err}");
    assert!(err.contains("8 |         while true {\n"), "{err}");
    assert!(err.contains("`update_vertex` of `Spin`, for vertex index "), "{err}");
    assert!(err.contains(" in iteration 0"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
