//! `glp lp --variant NAME`, the built-in variants: LLP's `gamma`, seeded LP's `--seeds`,
//! SLP's overlapping communities, and the errors of `--variant`, `--param` and `--seeds`.

use crate::common::{data, glp, read_pairs, stderr, stdout};
use crate::read_rows;
use std::collections::BTreeMap;
use std::path::Path;

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
