//! End-to-end tests of `glp run` (edge programs) against the LDBC Graphalytics validation
//! sets in `data/ldbc-validation` (the benchmark's reference outputs, compared by its
//! validator's rules: BFS exact, WCC the same partition, SSSP and PageRank within 1e-4
//! relative error), and its refusals of bad input.

mod common;

use common::{data, glp, stderr};
use std::collections::{BTreeMap, HashMap};

/// `vertex value` lines, the values as text.
fn read_values(text: &str) -> BTreeMap<u64, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut fields = l.split_whitespace();
            let vertex = fields.next().unwrap().parse().unwrap();
            (vertex, fields.next().unwrap_or_else(|| panic!("no value on `{l}`")).to_string())
        })
        .collect()
}

/// Runs `glp run` with `args` and returns its `vertex value` lines.
fn run_values(args: &[&str]) -> BTreeMap<u64, String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("values.txt");
    let run = glp(&[&["run"], args, &["--out", out.to_str().unwrap(), "--quiet"]].concat());
    assert!(run.status.success(), "{args:?}: {}", stderr(&run));
    read_values(&std::fs::read_to_string(&out).unwrap())
}

/// A validation set: input, reference output, and the options that read the input.
struct Set {
    input: &'static str,
    output: &'static str,
    options: &'static [&'static str],
}

const fn set(input: &'static str, output: &'static str, options: &'static [&'static str]) -> Set {
    Set { input, output, options }
}

/// The options of the inputs without a source.
const ADJ_DIRECTED: &[&str] = &["--format", "adj", "--directed"];
const ADJ: &[&str] = &["--format", "adj"];
const DIRECTED: &[&str] = &["--directed"];

/// Runs `app` (with `extra` options) on every set and checks each value with `same`.
fn validate(app: &str, extra: &[&str], sets: &[Set], same: impl Fn(&str, &str) -> bool) {
    for set in sets {
        let input = data(&format!("ldbc-validation/{}", set.input));
        let got = run_values(&[&[app, input.to_str().unwrap()], set.options, extra].concat());
        let text = std::fs::read_to_string(data(&format!("ldbc-validation/{}", set.output))).unwrap();
        let want = read_values(&text);
        assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "{app} on {}", set.input);
        for (vertex, expected) in &want {
            let value = &got[vertex];
            assert!(same(value, expected), "{app} on {}: vertex {vertex} has {value}, expected {expected}", set.input);
        }
    }
}

/// The Graphalytics validator's rule for floats: equal infinities, else a relative error
/// of at most 1e-4.
fn within_tolerance(got: &str, want: &str) -> bool {
    let (got, want): (f64, f64) = (got.parse().unwrap(), want.parse().unwrap());
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= 1e-4 * want.abs()
}

#[test]
fn bfs_reproduces_the_ldbc_reference_outputs_exactly() {
    // The sets' sources: 1, but 2 for the undirected example (it has no vertex 1).
    let sets = [
        set("bfs/dir-input", "bfs/dir-output", &["--format", "adj", "--directed", "--source", "1"]),
        set("bfs/undir-input", "bfs/undir-output", &["--format", "adj", "--source", "1"]),
        set("example/example-directed.e", "example/example-directed-BFS", &["--directed", "--source", "1"]),
        set("example/example-undirected.e", "example/example-undirected-BFS", &["--source", "2"]),
    ];
    validate("bfs", &[], &sets, |got, want| got == want);
}

#[test]
fn sssp_reproduces_the_ldbc_reference_outputs_within_their_tolerance() {
    let sets = [
        set("sssp/dir-input.e", "sssp/dir-output", &["--directed", "--source", "1"]),
        set("sssp/undir-input.e", "sssp/undir-output", &["--source", "1"]),
        set("example/example-directed.e", "example/example-directed-SSSP", &["--directed", "--source", "1"]),
        set("example/example-undirected.e", "example/example-undirected-SSSP", &["--source", "2"]),
    ];
    validate("sssp", &[], &sets, within_tolerance);
}

#[test]
fn pagerank_reproduces_the_ldbc_reference_outputs_within_their_tolerance() {
    // The validation sets' iterations: 26 for pr/, 2 for example/ (damping 0.85 for all).
    let sets = [set("pr/dir-input", "pr/dir-output", ADJ_DIRECTED), set("pr/undir-input", "pr/undir-output", ADJ)];
    validate("pr", &["--param", "iterations=26"], &sets, within_tolerance);
    let sets = [
        set("example/example-directed.e", "example/example-directed-PR", DIRECTED),
        set("example/example-undirected.e", "example/example-undirected-PR", &[]),
    ];
    validate("pr", &["--iterations", "2", "--param", "damping=0.85"], &sets, within_tolerance);
}

#[test]
fn wcc_gives_the_ldbc_reference_partition() {
    let sets = [
        set("wcc/dir-input", "wcc/dir-output", ADJ_DIRECTED),
        set("wcc/undir-input", "wcc/undir-output", ADJ),
        set("example/example-directed.e", "example/example-directed-WCC", DIRECTED),
        set("example/example-undirected.e", "example/example-undirected-WCC", &[]),
    ];
    let mut components = Vec::new();
    for set in &sets {
        let input = data(&format!("ldbc-validation/{}", set.input));
        let got = run_values(&[&["wcc", input.to_str().unwrap()], set.options].concat());
        let text = std::fs::read_to_string(data(&format!("ldbc-validation/{}", set.output))).unwrap();
        let want = read_values(&text);
        assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "wcc on {}", set.input);
        // The same partition: the labels correspond one to one.
        let mut forward: HashMap<&str, &str> = HashMap::new();
        let mut backward: HashMap<&str, &str> = HashMap::new();
        for (vertex, expected) in &want {
            let label = got[vertex].as_str();
            assert_eq!(*forward.entry(label).or_insert(expected), expected, "wcc on {}: vertex {vertex}", set.input);
            assert_eq!(*backward.entry(expected).or_insert(label), label, "wcc on {}: vertex {vertex}", set.input);
        }
        components.push(forward.len());
    }
    assert!(components.iter().any(|&c| c > 1), "sets of one component each test little: {components:?}");
}

#[test]
fn sswp_gives_the_widest_paths_of_a_small_graph() {
    // 1 -2-> 2 -5-> 3, 1 -1-> 3, 3 -4-> 4; 5 unreached. Widest paths from 1, by hand:
    // 2: 2; 3: max(min(2, 5), 1) = 2; 4: min(2, 4) = 2.
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.edges");
    std::fs::write(&graph, "1 2 2\n2 3 5\n1 3 1\n3 4 4\n5 4 9\n").unwrap();
    let got = run_values(&["sswp", graph.to_str().unwrap(), "--directed", "--source", "1"]);
    let want: BTreeMap<u64, String> = [(1, "Infinity"), (2, "2"), (3, "2"), (4, "2"), (5, "-Infinity")]
        .into_iter()
        .map(|(v, x)| (v, x.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_program_file_runs_on_the_interpreter_with_its_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("hops.rs");
    // Hop counts from the source, capped at `cap`, with a tuple value (depth, reached).
    std::fs::write(
        &program,
        "struct Hops { cap: u32 }\n\
         impl EdgeProgram for Hops {\n\
             type Value = (u32, bool);\n\
             type Message = u32;\n\
             fn combine(&self) -> u32 { MIN }\n\
             fn init(&self, view: &EdgeView<'_>, v: VertexId) -> (u32, bool) {\n\
                 if v == view.source() { (0, true) } else { (u32::MAX, false) }\n\
             }\n\
             fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: (u32, bool), weight: f64) -> (bool, u32) {\n\
                 (value.1 && value.0 < self.cap, value.0 + 1)\n\
             }\n\
             fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: (u32, bool), combined: u32) -> (u32, bool) {\n\
                 if combined < old.0 { (combined, true) } else { old }\n\
             }\n\
         }\n",
    )
    .unwrap();
    let input = data("ldbc-validation/example/example-directed.e");
    let dir_out = dir.path().join("out.txt");
    let run = glp(&[
        "run",
        program.to_str().unwrap(),
        input.to_str().unwrap(),
        "--directed",
        "--source",
        "1",
        "--param",
        "cap=1",
        "--out",
        dir_out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = std::fs::read_to_string(&dir_out).unwrap();
    // The example's BFS depths, those beyond 1 hop left unreached.
    let bfs = read_values(&std::fs::read_to_string(data("ldbc-validation/example/example-directed-BFS")).unwrap());
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let depth: i64 = bfs[&fields[0].parse::<u64>().unwrap()].parse().unwrap();
        let want = if depth <= 1 { format!("{depth} true") } else { format!("{} false", u32::MAX) };
        assert_eq!(fields[1..].join(" "), want, "{line}");
    }
}

#[test]
fn bad_input_is_a_clear_error_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let example = data("ldbc-validation/example/example-directed.e");
    let example = example.to_str().unwrap();
    let unweighted = data("ldbc-validation/bfs/dir-input");
    let unweighted = unweighted.to_str().unwrap();
    let broken = dir.path().join("broken.rs");
    std::fs::write(
        &broken,
        "struct P;\nimpl EdgeProgram for P {\n    type Value = u32;\n    type Message = u32;\n    \
         fn combine(&self) -> u32 { MIN }\n    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> u32 { v }\n    \
         fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: u32, weight: f64) -> (bool, u32) \
         { (true, value / (to - to)) }\n    \
         fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: u32, combined: u32) -> u32 { old.min(combined) }\n}\n",
    )
    .unwrap();
    let no_value = dir.path().join("no_value.rs");
    std::fs::write(&no_value, "struct P;\nimpl EdgeProgram for P {\n    type Message = Vec<u32>;\n}\n").unwrap();
    let bad_combine = dir.path().join("bad_combine.rs");
    let text = std::fs::read_to_string(&broken).unwrap().replace("{ MIN }", "{ 7 }");
    std::fs::write(&bad_combine, text).unwrap();
    let bad_combine = bad_combine.to_str().unwrap();
    let broken = broken.to_str().unwrap();
    let no_value = no_value.to_str().unwrap();
    // A negative cycle: shortest paths would never settle.
    let negative = dir.path().join("negative.txt");
    std::fs::write(&negative, "1 2 1.0\n2 3 -2.0\n3 1 0.5\n").unwrap();
    let negative = negative.to_str().unwrap();
    let cases: [(Vec<&str>, &str); 20] = [
        (vec!["sssp", negative, "--directed", "--source", "1"], "negative.txt:2"),
        (
            vec!["bfs", example, "--source", "1", "--device-memory", "1G"],
            "--device-memory: subgraphs are for graphs beyond the GPU's memory",
        ),
        (
            vec!["bfs", example, "--source", "1", "--cel", "on"],
            "--cel: subgraphs are for graphs beyond the GPU's memory",
        ),
        (vec!["bfs", example, "--source", "1", "--subgraphs", "0"], "--subgraphs"),
        (vec!["bfs", example, "--source", "1", "--device-memory", "lots"], "expected a byte count"),
        (vec!["bfs", example, "--source", "1", "--engine", "frontier"], "--engine frontier: the engines are the GPU's"),
        (vec!["bfs", example, "--source", "1", "--vertex-order", "degree"], "--vertex-order: the GPU's"),
        (vec!["bfs", example, "--directed"], "give it with --source V"),
        (vec!["bfs", example, "--source", "42"], "--source 42: vertex 42 is not in the graph"),
        (vec!["wcc", example, "--source", "1"], "--source: `wcc` reads no source vertex"),
        (vec!["sssp", unweighted, "--format", "adj", "--source", "1"], "reads edge weights, and the graph has none"),
        (vec!["sswp", unweighted, "--format", "adj", "--source", "1"], "reads edge weights, and the graph has none"),
        (vec!["pagerank", example], "unknown program `pagerank`: expected bfs, sssp, wcc, sswp, pr"),
        (vec!["pr", example, "--param", "alpha=0.5"], "unknown parameter `alpha`"),
        (vec!["pr", example, "--param", "damping=1.5"], "damping must be a number in [0, 1]"),
        (vec!["bfs", example, "--source", "1", "--param", "x=1"], "`bfs` takes no parameters"),
        (vec!["pr", example, "--iterations", "0"], "--iterations must be at least 1"),
        (vec![no_value, example], "no_value.rs:3:"),
        (vec![broken, example], "broken.rs:7:"),
        (vec![bad_combine, example], "`P`: `combine` returned 7; expected MIN (0), MAX (1) or SUM (2)"),
    ];
    for (args, expected) in cases {
        let run = glp(&[&["run", "--backend", "cpu"], &args[..]].concat());
        assert!(!run.status.success(), "{args:?} succeeded");
        let err = stderr(&run);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: expected `{expected}` in:\n{err}");
        assert!(err.lines().next().is_some_and(|l| l.starts_with("error: ")), "{args:?}: {err}");
    }
}
