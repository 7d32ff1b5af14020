//! End-to-end tests of the `glp` binary. Every expected value is computed here from the
//! input files with independent code (or read from the LDBC reference outputs).

mod common;

use common::{data, error_line, glp, read_pairs, stderr, stdout, BUNDLED_FILE};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

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
fn bad_arguments_are_errors_not_panics() {
    for args in [
        vec!["lp", "--threads", "0"],
        vec!["lp", "--tolerance", "2"],
        vec!["lp", "/nonexistent/graph.txt"],
        vec!["info", "/nonexistent/graph.txt"],
        vec!["bench", "lp", "--repeat", "0"],
        // GPU kernel strategies have no CPU form: refused, not silently replaced.
        vec!["bench", "lp", "--mfl", "glp,smem", "--repeat", "1"],
        vec!["lp", "--backend", "cpu", "--mfl", "hash"],
        vec!["bench", "compile", "--repeat", "0"],
        vec!["gen", "planted", "--mu", "1.5", "--out", "/tmp/never.glpg"],
        vec!["lp", "--iterations", "0"],
        vec!["bench", "lp", "--iterations", "0"],
        vec!["lp", "--tolerance", "nan"],
        vec!["gen", "rmat", "--scale", "60", "--out", "/tmp/never.glpg"],
        vec!["gen", "rmat", "--edge-factor", "0", "--out", "/tmp/never.glpg"],
        vec!["bench", "lp", "--rmat", "40"],
    ] {
        let run = glp(&args);
        assert!(!run.status.success(), "{args:?} succeeded");
        assert!(stderr(&run).lines().any(|l| l.starts_with("error: ")), "{args:?}: {}", stderr(&run));
        assert!(!stderr(&run).contains("panicked"), "{args:?}: {}", stderr(&run));
        // Each message appears once (no cause repeated on a "caused by" line; clap's usage
        // errors end with a blank line and a pointer to --help).
        let err = stderr(&run);
        let lines: Vec<&str> =
            err.lines().filter(|l| !l.trim().is_empty()).map(|l| l.trim_start_matches("  caused by: ")).collect();
        for (i, line) in lines.iter().enumerate() {
            assert!(lines[i + 1..].iter().all(|later| !line.contains(later)), "{args:?}: {err}");
        }
    }
}

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

// ---- Variants ----------------------------------------------------------------------------

/// The edges of a Matrix Market pattern file (1-based ids as written), read here.
fn mtx_edges(path: &Path) -> Vec<(u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('%') && !l.trim().is_empty());
    lines.next(); // size line
    lines
        .map(|l| {
            let mut t = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (t.next().unwrap(), t.next().unwrap())
        })
        .collect()
}

/// `vertex label...` lines of an --out file, labels as text.
fn read_rows(path: &Path) -> BTreeMap<u64, Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut t = l.split('\t');
            (t.next().unwrap().parse().unwrap(), t.map(str::to_string).collect())
        })
        .collect()
}

#[test]
fn llp_with_gamma_zero_writes_the_classic_labels() {
    let dir = tempfile::tempdir().unwrap();
    let graph = data("football.edges");
    let run_to = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["lp", graph.to_str().unwrap(), "--backend", "cpu", "--schedule", "sync"];
        args.extend(extra);
        args.extend(["--out", out.to_str().unwrap()]);
        let run = glp(&args);
        assert!(run.status.success(), "{}", stderr(&run));
        read_pairs(&out)
    };
    let classic = run_to("classic.tsv", &[]);
    assert_eq!(run_to("llp0.tsv", &["--variant", "llp", "--param", "gamma=0"]), classic);
    let llp = run_to("llp8.tsv", &["--variant", "llp", "--param", "gamma=8"]);
    let communities = |labels: &BTreeMap<u64, u64>| labels.values().collect::<std::collections::BTreeSet<_>>().len();
    assert!(communities(&llp) > communities(&classic), "LLP splits communities");
}

#[test]
fn seeded_lp_writes_the_seed_files_labels_and_reaches_a_fixpoint() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds.txt");
    // Karate club: the instructor (1) and the administrator (34), labels as a user has them.
    std::fs::write(&seeds, "# known accounts\n1 7000\n34\t9000000000\n").unwrap();
    let out = dir.path().join("labels.tsv");
    let graph = data("karate.mtx");
    // In place until an iteration changes nothing (no Pick-Less, no tolerance), ties to the
    // smallest label: the result is a fixpoint checked below.
    let args = ["lp", graph.to_str().unwrap(), "--backend", "cpu", "--pick-less-every", "0", "--tolerance", "0"];
    let args = [&args[..], &["--ties", "smallest", "--iterations", "100", "--json"]].concat();
    let run =
        glp(&[&args[..], &["--variant", "seeded", "--seeds", seeds.to_str().unwrap(), "--out", out.to_str().unwrap()]]
            .concat());
    assert!(run.status.success(), "{}", stderr(&run));
    let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(report["converged"], true);
    assert_eq!(report["unlabelled_vertices"], 0, "the club is connected");
    let labels: BTreeMap<u64, u64> = read_pairs(&out);
    assert_eq!((labels[&1], labels[&34]), (7000, 9000000000), "seeds keep their labels");
    // At the fixpoint every other member holds the label most of its neighbours hold; a tie
    // goes to the label of the smaller vertex (7000, carried by vertex 1).
    let mut neighbours: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for (a, b) in mtx_edges(&graph) {
        neighbours.entry(a).or_default().push(b);
        neighbours.entry(b).or_default().push(a);
    }
    for (v, near) in &neighbours {
        if *v == 1 || *v == 34 {
            continue;
        }
        let count = |l: u64| near.iter().filter(|u| labels[u] == l).count();
        let expected = if count(7000) >= count(9000000000) { 7000 } else { 9000000000 };
        assert_eq!(labels[v], expected, "member {v}");
    }
}

#[test]
fn slp_writes_every_community_of_each_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let graph = data("email-Eu-core.txt");
    let run_to = |name: &str, seed: &str| {
        let out = dir.path().join(name);
        let args = ["lp", graph.to_str().unwrap(), "--backend", "cpu", "--schedule", "sync", "--variant", "slp"];
        let run = glp(&[&args[..], &["--seed", seed, "--json", "--out", out.to_str().unwrap()]].concat());
        assert!(run.status.success(), "{}", stderr(&run));
        let report: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
        (report, read_rows(&out))
    };
    let (report, rows) = run_to("a.tsv", "5");
    assert_eq!(rows.len(), 1005);
    let overlapping = rows.values().filter(|labels| labels.len() > 1).count();
    assert!(overlapping > 0);
    assert_eq!(report["overlapping_vertices"], overlapping);
    assert_eq!(report["iterations"], 20, "SLP runs to the cap");
    for labels in rows.values() {
        assert!((1..=5).contains(&labels.len()), "{labels:?}");
        // Each community is named by a vertex of the graph.
        assert!(labels.iter().all(|l| rows.contains_key(&l.parse::<u64>().unwrap())), "{labels:?}");
    }
    assert_eq!(run_to("b.tsv", "5").1, rows, "the same seed gives the same communities");
    assert_ne!(run_to("c.tsv", "6").1, rows, "another seed other draws");
}

#[test]
fn variant_option_errors_say_what_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let bad_seeds = dir.path().join("bad-seeds.txt");
    std::fs::write(&bad_seeds, "1 10\n2 1x\n").unwrap();
    let bad_seeds = bad_seeds.to_str().unwrap();
    let karate = data("karate.mtx");
    let karate = karate.to_str().unwrap();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--variant", "llp", "--param", "beta=2"],
            "unknown parameter `beta` (valid parameters of llp: gamma)".into(),
        ),
        (vec!["--variant", "slp", "--param", "threshold=2"], "threshold must be a number in [0, 1] (got `2`)".into()),
        (vec!["--variant", "llp", "--param", "gamma"], "expected NAME=VALUE".into()),
        (vec!["--param", "gamma=1"], "variant classic takes no parameters".into()),
        (vec!["--variant", "seeded"], "--variant seeded needs --seeds FILE".into()),
        (vec!["--seeds", bad_seeds], "--seeds applies to --variant seeded only".into()),
        (vec!["--variant", "seeded", "--seeds", "/nonexistent/seeds.txt"], "/nonexistent/seeds.txt".into()),
        (vec!["--variant", "seeded", "--seeds", bad_seeds], format!("{bad_seeds}:2:3: expected a seed label")),
        (
            vec!["--variant", "/nonexistent/my_variant.rs"],
            "/nonexistent/my_variant.rs: cannot read the variant file".into(),
        ),
        (vec!["--variant", "bogus"], "expected classic, weighted, capped, llp, slp, seeded, or a FILE.rs".into()),
    ];
    for (extra, expected) in cases {
        let run = glp(&[&["lp", karate, "--backend", "cpu"][..], &extra].concat());
        assert!(!run.status.success(), "{extra:?} succeeded");
        let err = stderr(&run);
        assert!(err.contains(&expected), "{extra:?}: expected `{expected}` in:\n{err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
    }
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

// ---- variants in source files (`--variant FILE.rs`) -------------------------------------------

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

#[test]
fn json_times_are_milliseconds_in_ms_fields() {
    /// Every key of `value`, recursively.
    fn keys(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    out.push(k.clone());
                    keys(v, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("edges.txt");
    std::fs::write(&edges, "1 2\n2 3\n3 1\n3 4\n").unwrap();
    let runs = [
        (vec!["lp", "--backend", "cpu", "--json"], vec!["time_ms"]),
        (vec!["bench", "lp", "--repeat", "1", "--json"], vec!["prepare_ms", "median_ms", "min_ms", "runs_ms"]),
        (vec!["bench", "load", edges.to_str().unwrap(), "--repeat", "1", "--json"], vec!["median_ms", "min_ms"]),
        (vec!["info", "--json"], vec![]),
    ];
    for (args, required) in runs {
        let run = glp(&args);
        assert!(run.status.success(), "{args:?}: {}", stderr(&run));
        let mut all = Vec::new();
        keys(&serde_json::from_str(&stdout(&run)).unwrap(), &mut all);
        for key in &required {
            assert!(all.iter().any(|k| k == key), "{args:?}: no {key} in {all:?}");
        }
        // Seconds nowhere: the only `_s` fields are rates (per second).
        let seconds: Vec<&String> = all.iter().filter(|k| k.ends_with("_s") && !k.ends_with("per_s")).collect();
        assert!(seconds.is_empty(), "{args:?}: {seconds:?}");
    }
}

// ---- Graph statistics and generated graphs --------------------------------------------------

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

// ---- loop step budgets of variant files -----------------------------------------------------

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_glp"))
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
