//! End-to-end tests of `glp sample`: its outputs read back (NumPy's `.npy` parsed here, and
//! by NumPy itself when Python has it) and checked against the graph file, and its errors.

mod common;

use common::{glp, stderr, stdout, BUNDLED_FILE};
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

/// The undirected edges of the bundled graph, read here from its file.
fn bundled_edges() -> HashSet<(i64, i64)> {
    let text = std::fs::read_to_string(BUNDLED_FILE).unwrap();
    let mut edges = HashSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut t = line.split_whitespace().map(|x| x.parse::<i64>().unwrap());
        let (u, v) = (t.next().unwrap(), t.next().unwrap());
        if u != v {
            edges.insert((u, v));
            edges.insert((v, u));
        }
    }
    edges
}

/// A `.npy` file of `int64` values read here: (shape, values).
fn read_npy(path: &Path) -> (Vec<usize>, Vec<i64>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "magic and version 1.0");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.contains("'descr': '<i8'") && header.contains("'fortran_order': False"), "{header}");
    let shape_text = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap();
    let shape: Vec<usize> =
        shape_text.split(',').filter(|s| !s.trim().is_empty()).map(|s| s.trim().parse().unwrap()).collect();
    let values: Vec<i64> =
        bytes[10 + header_len..].chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values.len(), shape.iter().product::<usize>());
    (shape, values)
}

/// Runs `script` with Python and NumPy, or `None` after a skip message when they are missing
/// (`GLP_REQUIRE_NUMPY=1` makes that a failure).
fn python_numpy(test: &str, script: &str) -> Option<String> {
    let probe = Command::new("python3").args(["-c", "import numpy"]).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        glp_testkit::switch::skip(test, glp_testkit::switch::Need::Numpy, "python3 with numpy is not installed");
        return None;
    }
    let run = Command::new("python3").args(["-c", script]).output().unwrap();
    assert!(run.status.success(), "python: {}", stderr(&run));
    Some(stdout(&run))
}

#[test]
fn deepwalk_npy_holds_one_walk_per_vertex_along_edges() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walks.npy");
    let run = glp(&["sample", "deepwalk", "--walk-length", "12", "--seed", "3", "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(stdout(&run).contains("sampled vertices/s"), "{}", stdout(&run));
    let (shape, values) = read_npy(&out);
    assert_eq!(shape, vec![1005, 13]);
    let edges = bundled_edges();
    let mut roots = Vec::new();
    for row in values.chunks(13) {
        roots.push(row[0]);
        let walk: Vec<i64> = row.iter().copied().take_while(|&v| v >= 0).collect();
        assert!(row[walk.len()..].iter().all(|&v| v == -1), "padding is -1 to the end: {row:?}");
        for pair in walk.windows(2) {
            assert!(edges.contains(&(pair[0], pair[1])), "{pair:?} is not an edge");
        }
    }
    // One walk from every vertex (ids 0..1005 in the file), in vertex order.
    assert_eq!(roots, (0..1005).collect::<Vec<i64>>());
    // NumPy reads the same array.
    let path = out.to_str().unwrap();
    let script =
        format!("import numpy as np\nw = np.load('{path}')\nprint(w.dtype, w.shape, int(w.sum()), int(w[7, 5]))");
    if let Some(text) = python_numpy("deepwalk_npy_holds_one_walk_per_vertex_along_edges", &script) {
        let sum: i64 = values.iter().sum();
        assert_eq!(text.trim(), format!("int64 (1005, 13) {sum} {}", values[7 * 13 + 5]));
    }
}

#[test]
fn khop_npz_is_a_pyg_style_subgraph_batch() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("batch.npz");
    let roots = dir.path().join("roots.txt");
    std::fs::write(&roots, "# mini-batch\n5\n17\n5\n250\n").unwrap();
    let run = glp(&[
        "sample",
        "khop",
        "--fanouts",
        "4,3",
        "--roots",
        roots.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(report["samples"], 4);
    let path = out.to_str().unwrap();
    let script = format!(
        "import numpy as np\nz = np.load('{path}')\nfor k in ['node', 'batch', 'row', 'col', 'num_sampled_nodes', \
         'num_sampled_edges']:\n    print(k, z[k].dtype, ' '.join(str(int(x)) for x in z[k]))"
    );
    let Some(text) = python_numpy("khop_npz_is_a_pyg_style_subgraph_batch", &script) else { return };
    let arrays: std::collections::HashMap<String, Vec<i64>> = text
        .lines()
        .map(|line| {
            let mut t = line.split_whitespace();
            let name = t.next().unwrap().to_string();
            assert_eq!(t.next(), Some("int64"));
            (name, t.map(|x| x.parse().unwrap()).collect())
        })
        .collect();
    let (node, batch, row, col) = (&arrays["node"], &arrays["batch"], &arrays["row"], &arrays["col"]);
    let (nodes_per_hop, edges_per_step) = (&arrays["num_sampled_nodes"], &arrays["num_sampled_edges"]);
    assert_eq!(nodes_per_hop.iter().sum::<i64>() as usize, node.len());
    assert_eq!(edges_per_step.iter().sum::<i64>() as usize, row.len());
    assert_eq!(row.len(), col.len());
    // Hop 0: the roots, one per sample, in order.
    assert_eq!(&node[..4], &[5, 17, 5, 250]);
    assert_eq!(&batch[..4], &[0, 1, 2, 3]);
    // With replacement, every vertex draws its fan-out: 4 per root at step 0.
    assert_eq!(edges_per_step[0], 16);
    let edges = bundled_edges();
    for (&r, &c) in row.iter().zip(col) {
        assert_eq!(batch[r as usize], batch[c as usize], "an edge stays inside its sample");
        assert!(edges.contains(&(node[c as usize], node[r as usize])), "{} -> {}", node[c as usize], node[r as usize]);
    }
    // Within a sample, a graph vertex has one local id.
    let mut seen = HashSet::new();
    for (&v, &b) in node.iter().zip(batch) {
        assert!(seen.insert((b, v)), "vertex {v} twice in sample {b}");
    }
}

#[test]
fn text_walks_go_to_standard_output_and_do_not_depend_on_threads() {
    let args = |threads: &'static str| {
        ["--threads", threads, "sample", "node2vec", "--p", "0.5", "--q", "2", "--roots-random", "50", "--out", "-"]
    };
    let one = glp(&args("1"));
    let three = glp(&args("3"));
    assert!(one.status.success(), "{}", stderr(&one));
    assert_eq!(stdout(&one), stdout(&three));
    assert!(stderr(&one).contains("sampled vertices/s"), "the summary goes to standard error");
    let edges = bundled_edges();
    let text = stdout(&one);
    assert_eq!(text.lines().count(), 50);
    for line in text.lines() {
        let walk: Vec<i64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        assert!(walk.len() <= 81);
        for pair in walk.windows(2) {
            assert!(edges.contains(&(pair[0], pair[1])), "{pair:?}");
        }
    }
    let other_seed = glp(&["sample", "node2vec", "--roots-random", "50", "--seed", "1", "--out", "-"]);
    assert_ne!(stdout(&one), stdout(&other_seed));
}

/// The first line of standard error starting with `error:`.
fn error_of(args: &[&str]) -> String {
    let run = glp(args);
    assert!(!run.status.success(), "{args:?} succeeded");
    let err = stderr(&run);
    assert!(!err.contains("panicked"), "{err}");
    err.lines().find(|l| l.starts_with("error:")).unwrap_or_else(|| panic!("no error line: {err}")).to_string()
}

#[test]
fn the_gpu_backend_without_a_gpu_is_a_clear_error_and_auto_falls_back_to_the_cpu() {
    if glp_runtime::device::probe().is_ok() {
        return; // A GPU machine: the fallback paths below do not apply.
    }
    let line = error_of(&["sample", "deepwalk", "--backend", "gpu"]);
    assert!(line.starts_with("error: GPU unavailable:"), "{line}");
    let run = glp(&["sample", "deepwalk", "--walk-length", "3", "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(stderr(&run).lines().any(|l| l.starts_with("notice:") && l.contains("CPU")), "{}", stderr(&run));
    assert!(stdout(&run).contains("\"backend\": \"cpu\""), "{}", stdout(&run));
}

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().to_str().unwrap();
    let cases: [(&[&str], &str); 12] = [
        (&["sample", "deepwalk", "--walk-length", "0"], "--walk-length must be at least 1"),
        (&["sample", "khop", "--fanouts", "25,0"], "the fan-out of hop 2 is 0"),
        (&["sample", "khop", "--fanouts", "1,1,1,1,1"], "--fanouts takes 1 to 4 fan-outs (got 5)"),
        (&["sample", "node2vec", "--p", "0"], "p must be a positive number (got 0)"),
        (&["sample", "node2vec", "--q", "-1"], "q must be a positive number (got -1)"),
        (&["sample", "ppr", "--termination", "1"], "strictly between 0 and 1"),
        (&["sample", "deepwalk", "--backend", "cpu", "--engine", "sp"], "--engine chooses how the GPU samples"),
        (&["sample", "deepwalk", "--device-memory", "1.5G"], "expected a byte count such as 2000000000, 512M or 2G"),
        (&["sample", "mine.rs"], "mine.rs: cannot read the sampler file"),
        (&["sample", "--sampler", "mine.txt"], "--sampler mine.txt: expected a Rust source file (FILE.rs)"),
        (&["sample", "deepwalk", "--param", "length=3"], "--param sets the parameters of a FILE.rs sampler"),
        (&["sample", "walker"], "unknown sampler `walker`: expected one of deepwalk, weighted-deepwalk"),
    ];
    for (args, expected) in cases {
        let line = error_of(args);
        assert!(line.contains(expected), "{args:?}: {line}");
    }
    // Roots outside the graph: the file's line and column.
    let roots = dir.path().join("roots.txt");
    std::fs::write(&roots, "1\n2\n  99999\n").unwrap();
    let line = error_of(&["sample", "deepwalk", "--roots", roots.to_str().unwrap()]);
    assert!(line.contains("roots.txt:3:3") && line.contains("vertex 99999 is not a vertex of the graph"), "{line}");
    // An empty graph.
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "# no edges\n").unwrap();
    let line = error_of(&["sample", "deepwalk", empty.to_str().unwrap()]);
    assert!(line.contains("empty.txt") || line.contains("no vertices"), "{line}");
    // Subgraphs do not fit one .npy: refused before any work.
    let line = error_of(&["sample", "khop", "--out", &format!("{dir_path}/k.npy")]);
    assert!(line.contains("write them to a .npz file"), "{line}");
    assert!(!dir.path().join("k.npy").exists());
    // A batch of roots for a walk.
    let line = error_of(&["sample", "deepwalk", "--batch-size", "4"]);
    assert!(line.contains("--batch-size must be 1"), "{line}");
    // Output paths are checked first.
    let line = error_of(&["sample", "deepwalk", "--out", "/nonexistent-dir/w.npy"]);
    assert!(line.contains("does not exist"), "{line}");
}

#[test]
fn layer_mvs_cluster_and_root_options_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let roots = dir.path().join("roots.txt");
    std::fs::write(&roots, "1\nabc\n").unwrap();
    let roots = roots.to_str().unwrap();
    let cases: [(&[&str], &str); 10] = [
        (&["sample", "fastgcn", "--layers", "0"], "--layers and --layer-size must be at least 1"),
        (&["sample", "ladies", "--layer-size", "0"], "--layers and --layer-size must be at least 1"),
        (&["sample", "mvs", "--fanouts", "0"], "--fanouts: every fan-out must be at least 1"),
        (&["sample", "mvs", "--fanouts", "10,5"], "mvs draws the same fan-out at every hop"),
        (&["sample", "khop", "--batch-size", "0"], "--batch-size must be at least 1"),
        (&["sample", "deepwalk", "--roots-random", "0"], "--roots-random must be at least 1"),
        (&["sample", "cluster-gcn", "--clusters", "0"], "--clusters must lie in 1..=1005 (the vertices) (got 0)"),
        (
            &["sample", "cluster-gcn", "--clusters", "10", "--batch-size", "11"],
            "--batch-size 11 exceeds the 10 clusters",
        ),
        (&["sample", "cluster-gcn", "--roots", roots], "cluster-gcn takes its roots from --clusters, not from --roots"),
        (
            &["sample", "deepwalk", "--roots", roots],
            "roots.txt:2:1: expected a vertex id (a non-negative integer), found `abc`",
        ),
    ];
    for (args, expected) in cases {
        let line = error_of(args);
        assert!(line.contains(expected), "{args:?}: {line}");
    }
}

#[test]
fn cluster_gcn_samples_cover_every_cluster_once_per_epoch() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.txt");
    let run = glp(&["sample", "cluster-gcn", "--clusters", "10", "--batch-size", "2", "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(stdout(&run).contains("samples      5 "), "{}", stdout(&run));
    let edges = bundled_edges();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.lines().count() > 100);
    for line in text.lines() {
        let f: Vec<i64> = line.split('\t').map(|x| x.parse().unwrap()).collect();
        assert_eq!(f.len(), 4);
        assert_eq!(f[1], 0, "one step");
        assert!(edges.contains(&(f[2], f[3])));
    }
}

/// `--clusters FILE`: the clusters of a partition file (here `id % 7`, as `vertex cluster`
/// lines); an epoch of one cluster per sample gives every edge inside a cluster exactly once,
/// and no other edge.
#[test]
fn cluster_gcn_takes_its_clusters_from_a_partition_file() {
    let dir = tempfile::tempdir().unwrap();
    let partition = dir.path().join("partition.txt");
    let ids: HashSet<i64> = bundled_edges().into_iter().flat_map(|(u, v)| [u, v]).collect();
    let lines: Vec<String> = ids.iter().map(|id| format!("{id} {}", id % 7)).collect();
    std::fs::write(&partition, lines.join("\n")).unwrap();
    let run = glp(&["sample", "cluster-gcn", "--clusters", partition.to_str().unwrap(), "--out", "-"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let mut sampled = Vec::new();
    let mut cluster_of_sample = std::collections::HashMap::new();
    for line in stdout(&run).lines() {
        let f: Vec<i64> = line.split('\t').map(|x| x.parse().unwrap()).collect();
        let (sample, from, to) = (f[0], f[2], f[3]);
        assert_eq!(from % 7, to % 7, "{line}: an edge leaving its cluster");
        assert_eq!(*cluster_of_sample.entry(sample).or_insert(from % 7), from % 7, "{line}: two clusters in a sample");
        sampled.push((from, to));
    }
    let clusters: HashSet<i64> = cluster_of_sample.values().copied().collect();
    assert_eq!(clusters.len(), cluster_of_sample.len(), "a cluster sampled twice in one epoch");
    let mut expected: Vec<(i64, i64)> =
        bundled_edges().into_iter().filter(|&(u, v)| u != v && u % 7 == v % 7).collect();
    expected.sort();
    sampled.sort();
    assert_eq!(sampled, expected);
    // A partition naming no vertex of the graph is an error.
    std::fs::write(&partition, "999999 1\n").unwrap();
    let line = error_of(&["sample", "cluster-gcn", "--clusters", partition.to_str().unwrap()]);
    assert!(line.contains("partition.txt"), "{line}");
}

#[test]
fn bench_sample_reports_throughput_per_sampler() {
    let run = glp(&["bench", "sample", "--apps", "deepwalk,khop", "--repeat", "1", "--backend", "cpu", "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    let rows = report["samplers"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0]["sampler"].as_str(), rows[1]["sampler"].as_str()), (Some("deepwalk"), Some("khop")));
    // One walk of 100 steps from every vertex; a vertex with a neighbour never reaches a dead
    // end in the symmetrised graph, an isolated one (only self loops in the file) adds nothing.
    let with_neighbours: HashSet<i64> = bundled_edges().into_iter().map(|(u, _)| u).collect();
    assert_eq!(rows[0]["samples"], 1005);
    assert_eq!(rows[0]["sampled_vertices"], with_neighbours.len() as u64 * 100);
    assert_eq!((rows[0]["engine"].as_str(), report["backend"].as_str()), (Some("cpu"), Some("cpu")));
    for row in rows {
        let (per_s, samples_per_s, ms) = (
            row["sampled_vertices_per_s"].as_f64().unwrap(),
            row["samples_per_s"].as_f64().unwrap(),
            row["median_ms"].as_f64().unwrap(),
        );
        let sampled = row["sampled_vertices"].as_f64().unwrap();
        assert!((per_s * ms / 1e3 - sampled).abs() <= 1e-6 * sampled + 1.0, "{row}");
        assert!((samples_per_s * ms / 1e3 - 1005.0).abs() < 1e-3, "{row}");
    }
    let line = error_of(&["bench", "sample", "--apps", "deepwalk,nope"]);
    assert!(line.contains("unknown sampler `nope`"), "{line}");
    assert!(rows.iter().all(|row| row["output_ms"].is_null()), "no output timed unless asked");
}

#[test]
fn bench_sample_times_the_outputs_when_asked() {
    let args = ["bench", "sample", "--apps", "deepwalk,khop", "--repeat", "2", "--backend", "cpu", "--with-output"];
    let run = glp(&[&args[..], &["--json"]].concat());
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    for row in report["samplers"].as_array().unwrap() {
        assert!(row["output_ms"].as_f64().is_some_and(|ms| ms >= 0.0), "{row}");
    }
    let table = glp(&args);
    assert!(table.status.success(), "{}", stderr(&table));
    assert!(stdout(&table).contains("output ms"), "{}", stdout(&table));
}

/// A sampler file runs on the interpreter and gives the samples of the same sampler compiled
/// into glp; its mistakes are errors at file:line:col.
#[test]
fn a_sampler_file_samples_as_the_built_in_it_copies() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("my_node2vec.rs");
    std::fs::write(&file, include_str!("../src/samplers/node2vec.rs")).unwrap();
    let file = file.to_str().unwrap();
    let built_in = glp(&[
        "sample",
        "node2vec",
        "--walk-length",
        "12",
        "--p",
        "2",
        "--q",
        "0.5",
        "--roots-random",
        "40",
        "--out",
        "-",
    ]);
    assert!(built_in.status.success(), "{}", stderr(&built_in));
    let params = ["--param", "length=12", "--param", "p=2", "--param", "q=0.5"];
    let from_file = glp(&[&["sample", file][..], &params, &["--roots-random", "40", "--out", "-"]].concat());
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    assert_eq!(stdout(&from_file), stdout(&built_in));
    assert_eq!(stdout(&built_in).lines().count(), 40);
    // Its `validate` is host code, which is not run: said, not hidden.
    assert!(stderr(&from_file).contains("`validate` of `Node2vec` not run"), "{}", stderr(&from_file));
    // --sampler FILE.rs GRAPH is the same sampler.
    let graph = common::BUNDLED_FILE;
    let flagged =
        glp(&[&["sample", "--sampler", file, graph][..], &params, &["--roots-random", "40", "--out", "-"]].concat());
    assert_eq!(stdout(&flagged), stdout(&built_in), "{}", stderr(&flagged));

    // A missing parameter, then a compile error at its line and column.
    let line = error_of(&["sample", file, "--param", "length=12"]);
    assert!(line.contains("`Node2vec` needs the parameters `p: f64`, `q: f64`"), "{line}");
    let broken = dir.path().join("broken.rs");
    let source = include_str!("../src/samplers/deepwalk.rs")
        .replace("view.random_below(degree)", "view.random_below(degree as f64)");
    std::fs::write(&broken, &source).unwrap();
    let run = glp(&["sample", broken.to_str().unwrap(), "--param", "length=3"]);
    assert!(!run.status.success());
    let line_no = source.lines().position(|l| l.contains("degree as f64")).unwrap() + 1;
    assert!(stderr(&run).contains(&format!("broken.rs:{line_no}:")), "{}", stderr(&run));
}
