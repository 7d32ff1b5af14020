//! `glp bench run`: the report's figures follow from its own runs (iterations as the engine
//! runs them, the edges an iteration reads, Graph500 TEPS from the component BFS reaches), and
//! bad arguments are refused by name.

mod common;

use common::{data, glp, stderr, stdout};
use glp::edge::{self, EdgeConfig, EdgeGraph};
use glp::programs::Bfs;
use serde_json::Value;

/// The JSON report of `glp bench run` with `args` on the CPU engine.
fn report(args: &[&str]) -> Value {
    let mut all = vec!["bench", "run", "--backend", "cpu", "--repeat", "1", "--json", "-q"];
    all.extend_from_slice(args);
    let run = glp(&all);
    assert!(run.status.success(), "{}", stderr(&run));
    serde_json::from_str(&stdout(&run)).unwrap()
}

#[test]
fn the_report_gives_each_programs_iterations_rates_and_teps() {
    let report = report(&[]);
    let rows = report["programs"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["program"].as_str().unwrap()).collect();
    // The bundled graph has no weights: sssp and sswp are left out.
    assert_eq!(names, ["bfs", "wcc", "pr"]);
    let graph = common::load("email-Eu-core.txt");
    let edges = EdgeGraph::new(&graph.csr, graph.symmetric).unwrap();
    let source = graph.ids.dense(report["source"].as_u64().unwrap()).unwrap();
    // The source is a vertex of the largest degree.
    let largest = (0..graph.num_vertices() as u32).map(|v| graph.csr.degree(v)).max().unwrap();
    assert_eq!(graph.csr.degree(source), largest);
    let bfs = edge::run(&Bfs, &edges, &EdgeConfig { source: Some(source), iterations: None }, &mut |_| {}).unwrap();
    let row = &rows[0];
    assert_eq!(row["iterations"].as_u64().unwrap(), u64::from(bfs.iterations));
    let seconds = row["median_ms"].as_f64().unwrap() / 1e3;
    let edges_per_iteration = row["edges_per_iteration"].as_u64().unwrap();
    assert_eq!(edges_per_iteration, graph.num_edges());
    // Graph500: the undirected edges among the vertices BFS reaches.
    let reached: u64 = (0..graph.num_vertices())
        .filter(|&v| bfs.values[v] != i64::MAX)
        .map(|v| graph.csr.degree(v as u32) as u64)
        .sum();
    let teps = reached as f64 / 2.0 / seconds;
    assert!((row["teps"].as_f64().unwrap() - teps).abs() <= 1e-6 * teps);
    // PageRank runs its 10 iterations (the limit: not converged); only it reads every edge's
    // sender, so only it has a gather fraction.
    assert_eq!((rows[2]["iterations"].as_u64(), rows[2]["converged"].as_bool()), (Some(10), Some(false)));
    assert!(rows[0]["of_gather_ceiling"].is_null() && rows[2]["of_gather_ceiling"].as_f64().unwrap() > 0.0);
    // Each row lists its last run's iterations: one step each, on the CPU engine.
    for row in rows {
        let steps = row["steps"].as_array().unwrap();
        assert_eq!(steps.len() as u64, row["iterations"].as_u64().unwrap(), "{row}");
        assert!(steps.iter().all(|s| s[0] == "cpu" && s[1].as_f64().unwrap() >= 0.0), "{row}");
        assert_eq!(row["engine"], "cpu");
    }
}

#[test]
fn bad_arguments_are_refused_by_name() {
    let refused = |args: &[&str], expected: &str| {
        let mut all = vec!["bench", "run", "--backend", "cpu", "-q"];
        all.extend_from_slice(args);
        let run = glp(&all);
        assert!(!run.status.success(), "{args:?} ran");
        assert!(stderr(&run).contains(expected), "{args:?}: {}", stderr(&run));
    };
    refused(&["--apps", "sssp"], "`sssp` reads edge weights, and the graph has none");
    refused(&["--apps", "bfs,nope"], "unknown program `nope`");
    refused(&["--source", "999999999"], "--source 999999999: vertex 999999999 is not in the graph");
    refused(&["--repeat", "0"], "--repeat must be at least 1");
    refused(&["--engine", "edge,pull"], "--engine edge: the engines are the GPU's");
    refused(&["--vertex-order", "graph"], "--vertex-order: the GPU's");
    refused(&["--subgraphs", "4"], "--subgraphs: subgraphs are for graphs beyond the GPU's memory");
    let missing = data("karate.mtx").with_file_name("no-such-graph.txt");
    refused(&[missing.to_str().unwrap()], "no-such-graph.txt");
}
