//! Graph files: `glp info` (statistics, parse errors at file:line:column), `glp convert`
//! and `glp gen` (planted partitions and R-MAT graphs, checked against the written files).

use crate::common::{data, error_line, glp, read_pairs, stderr, stdout};
use std::path::Path;

#[test]
fn malformed_input_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "1 2\n2 3\n3 x4\n").unwrap();
    let run = glp(&["info", bad.to_str().unwrap()]);
    assert!(!run.status.success());
    let err = stderr(&run);
    let line = err.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("no error line: {err}"));
    assert!(line.starts_with(&format!("error: {}:3:3: ", bad.display())), "{err}");
    assert!(line.contains("x4"), "{err}");
}

#[test]
fn convert_then_info_preserves_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let glpg = dir.path().join("karate.glpg");
    let run = glp(&["convert", data("karate.mtx").to_str().unwrap(), glpg.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let info = |path: &Path| -> serde_json::Value {
        let run = glp(&["info", "--json", path.to_str().unwrap()]);
        assert!(run.status.success(), "{}", stderr(&run));
        serde_json::from_str(&stdout(&run)).unwrap()
    };
    let (text, binary) = (info(&data("karate.mtx")), info(&glpg));
    // Zachary's karate club: 34 members, 78 friendships, stored in both directions.
    assert_eq!(binary["vertices"], 34);
    assert_eq!(binary["stored_edges"], 156);
    assert_eq!(binary["max_degree"], 17);
    for key in ["vertices", "stored_edges", "min_degree", "max_degree", "id_range"] {
        assert_eq!(text[key], binary[key], "{key}");
    }
}

#[test]
fn gen_planted_writes_a_graph_and_its_ground_truth() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("planted.glpg");
    let args = ["gen", "planted", "--vertices", "3000", "--mu", "0.2", "--seed", "7", "--out", out.to_str().unwrap()];
    let run = glp(&args);
    assert!(run.status.success(), "{}", stderr(&run));
    let truth = read_pairs(&dir.path().join("planted.truth"));
    assert_eq!(truth.len(), 3000);

    // The fraction of edges between communities, counted here from the written files, is
    // the mixing parameter asked for.
    let options = glp::io::LoadOptions { progress: false, ..Default::default() };
    let graph = glp::io::load_graph(&out, &options).unwrap();
    let (mut crossing, mut total) = (0u64, 0u64);
    for v in 0..graph.num_vertices() as u32 {
        for &u in graph.csr.neighbors(v) {
            total += 1;
            crossing += u64::from(truth[&graph.ids.original(v)] != truth[&graph.ids.original(u)]);
        }
    }
    let mixing = crossing as f64 / total as f64;
    assert!((mixing - 0.2).abs() < 0.02, "mixing {mixing}");

    // The same seed gives the same file.
    let again = dir.path().join("again.glpg");
    let args = ["gen", "planted", "--vertices", "3000", "--mu", "0.2", "--seed", "7", "--out", again.to_str().unwrap()];
    assert!(glp(&args).status.success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn gen_rmat_has_two_to_the_scale_vertices() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rmat.glpg");
    let run = glp(&["gen", "rmat", "--scale", "10", "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = glp(&["info", "--json", out.to_str().unwrap()]);
    let info: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(info["vertices"], 1024);
    assert_eq!(info["symmetric"], true);
    // At most edge_factor * 2^scale undirected edges survive deduplication.
    assert!(info["stored_edges"].as_u64().unwrap() <= 2 * 16 * 1024);
    // Without its isolated vertices (LDBC's graph500 sets): the same edges, no isolated
    // vertex, the others' ids kept within the range.
    let reduced = dir.path().join("reduced.glpg");
    let run = glp(&["gen", "rmat", "--scale", "10", "--drop-isolated", "--out", reduced.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = glp(&["info", "--json", reduced.to_str().unwrap()]);
    let reduced: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    let isolated = info["isolated_vertices"].as_u64().unwrap();
    assert!(isolated > 0);
    assert_eq!(reduced["vertices"].as_u64().unwrap(), 1024 - isolated);
    assert_eq!(reduced["isolated_vertices"], 0);
    assert_eq!(reduced["stored_edges"], info["stored_edges"]);
    assert_eq!(
        (reduced["max_degree"].clone(), reduced["symmetric"].clone()),
        (info["max_degree"].clone(), info["symmetric"].clone())
    );
    assert_eq!(info["weighted"], false);
    // Weighted (Graph500's SSSP weights): the same edges, each weighed, and SSSP runs on it.
    let weighted = dir.path().join("weighted.glpg");
    let run = glp(&["gen", "rmat", "--scale", "10", "--weighted", "--out", weighted.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = glp(&["info", "--json", weighted.to_str().unwrap()]);
    let weighted_info: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(weighted_info["weighted"], true);
    assert_eq!(weighted_info["stored_edges"], info["stored_edges"]);
    let distances = dir.path().join("distances.txt");
    let args = ["run", "sssp", weighted.to_str().unwrap(), "--backend", "cpu", "--source", "0", "-q"];
    let run = glp(&[&args[..], &["--out", distances.to_str().unwrap()]].concat());
    assert!(run.status.success(), "{}", stderr(&run));
    // The distances are Dijkstra's over the file's weights, computed here.
    let options = glp::io::LoadOptions { progress: false, ..Default::default() };
    let graph = glp::io::load_graph(&weighted, &options).unwrap();
    let expected = dijkstra(&graph.csr, 0);
    let written = std::fs::read_to_string(&distances).unwrap();
    assert_eq!(written.lines().count(), 1024);
    for line in written.lines() {
        let (v, d) = line.split_once(' ').unwrap();
        let (v, d): (usize, f64) = (v.parse().unwrap(), d.parse().unwrap());
        let want = expected[v];
        assert!(d == want || (d - want).abs() <= 1e-9 * want, "vertex {v}: {d}, Dijkstra {want}");
    }
    assert!(expected.iter().filter(|d| d.is_finite()).count() > 500, "the source reaches most vertices");
}

/// Shortest distances from `source` over `csr`'s weights (infinity where unreached).
fn dijkstra(csr: &glp::graph::Csr, source: u32) -> Vec<f64> {
    use std::cmp::Reverse;
    let mut dist = vec![f64::INFINITY; csr.num_vertices()];
    let mut heap = std::collections::BinaryHeap::new();
    dist[source as usize] = 0.0;
    heap.push(Reverse((0u64, source)));
    while let Some(Reverse((bits, u))) = heap.pop() {
        let d = f64::from_bits(bits);
        if d > dist[u as usize] {
            continue;
        }
        let weights = csr.neighbor_weights(u).unwrap();
        for (&v, &w) in csr.neighbors(u).iter().zip(weights) {
            let next = d + w as f64;
            if next < dist[v as usize] {
                dist[v as usize] = next;
                heap.push(Reverse((next.to_bits(), v)));
            }
        }
    }
    dist
}

#[test]
fn info_directed_counts_isolated_vertices_and_sinks_apart() {
    // 7 declared vertices; edges 1->2, 2->3, 4->5, 5->4: vertex 3 only receives (a sink),
    // 6 and 7 have no edge at all. Out-degree 0: 3, 6, 7.
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.mtx");
    std::fs::write(&graph, "%%MatrixMarket matrix coordinate pattern general\n7 7 4\n1 2\n2 3\n4 5\n5 4\n").unwrap();
    let info = |extra: &[&str]| -> serde_json::Value {
        let run = glp(&[&["info", "--json", graph.to_str().unwrap()], extra].concat());
        assert!(run.status.success(), "{}", stderr(&run));
        serde_json::from_str(&stdout(&run)).unwrap()
    };
    let directed = info(&["--directed"]);
    assert_eq!(directed["min_degree"], 0);
    assert_eq!(directed["isolated_vertices"], 2);
    assert_eq!(directed["sink_vertices"], 1);
    let undirected = info(&[]);
    assert_eq!(undirected["isolated_vertices"], 2);
    assert_eq!(undirected.get("sink_vertices"), None);
    let text = glp(&["info", graph.to_str().unwrap(), "--directed"]);
    assert!(stdout(&text).contains("isolated vertices 2 (no in- or out-edge)\nsinks             1 (in-edges only)\n"));
}

#[test]
fn gen_planted_respects_the_maximum_degree() {
    // The case: --max-degree 100 gave a vertex of degree 111.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.glpg");
    for seed in ["1", "2"] {
        let args = ["gen", "planted", "--vertices", "20000", "--max-degree", "100", "--seed", seed];
        let run = glp(&[&args[..], &["--out", out.to_str().unwrap()]].concat());
        assert!(run.status.success(), "{}", stderr(&run));
        let graph = glp::io::load_graph(&out, &glp::io::LoadOptions { progress: false, ..Default::default() }).unwrap();
        let largest = (0..graph.num_vertices() as u32).map(|v| graph.csr.degree(v)).max().unwrap();
        assert!((90..=100).contains(&largest), "seed {seed}: largest degree {largest}");
    }
    let too_large = glp(&["gen", "planted", "--vertices", "4000000000", "--out", out.to_str().unwrap()]);
    assert!(error_line(&too_large).contains("needs about"), "{}", stderr(&too_large));
}
