//! The interpreter against native Rust: every built-in variant's source file (the text of
//! `src/variants/*.rs`, compiled at run time as `glp lp --variant FILE.rs` does) run on the
//! IR interpreter must give exactly the labels, label memories and per-iteration counts of
//! the same variant compiled by rustc, on real graphs of the repository's data folder, with the
//! synchronous schedule on one and several threads and the asynchronous one on one thread
//! (with several, its in-place updates race, so even two native runs may differ).

mod common;

use common::{load, pool};
use glp::lp::{CompiledVariant, InterpretedVariant, LpOutcome};
use glp::prelude::*;
use glp_testkit::conformance::{assert_twins, Kind, Runs};

/// The built-in variants' source files, as a user would pass them to `--variant`.
const CLASSIC: (&str, &str) = ("src/variants/classic.rs", include_str!("../src/variants/classic.rs"));
const WEIGHTED: (&str, &str) = ("src/variants/weighted.rs", include_str!("../src/variants/weighted.rs"));
const CAPPED: (&str, &str) = ("src/variants/capped.rs", include_str!("../src/variants/capped.rs"));
const LLP: (&str, &str) = ("src/variants/llp.rs", include_str!("../src/variants/llp.rs"));
const SLP: (&str, &str) = ("src/variants/slp.rs", include_str!("../src/variants/slp.rs"));
const SEEDED: (&str, &str) = ("src/variants/seeded.rs", include_str!("../src/variants/seeded.rs"));

fn from_file((file, source): (&str, &str), params: &[&str]) -> InterpretedVariant {
    InterpretedVariant::from_source(file, source, params).unwrap()
}

/// A graph with seeds for the seeded variant: every 7th vertex (by input id) carries the
/// label `input id % 5`, read from a seed file as the CLI does.
struct Case {
    name: &'static str,
    graph: Graph,
    seeds: glp::io::SeedFile,
}

fn case(name: &'static str) -> Case {
    let graph = load(name);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seeds.txt");
    let mut text = String::new();
    for v in 0..graph.num_vertices() as u32 {
        let id = graph.ids.original(v);
        if id.is_multiple_of(7) {
            text.push_str(&format!("{id} {}\n", id % 5));
        }
    }
    std::fs::write(&path, text).unwrap();
    let seeds = glp::io::read_seeds(&path, &graph.ids).unwrap();
    assert!(seeds.seeded() > 0, "{name}: no seeds");
    Case { name, graph, seeds }
}

/// A run compared: (description, threads, configuration).
type Run = (&'static str, usize, LpConfig);

fn sync(threads: usize) -> Run {
    let what = if threads == 1 { "sync, 1 thread" } else { "sync, several threads" };
    (what, threads, LpConfig { seed: 7, ..LpConfig::synchronous(20) })
}

fn async_1() -> Run {
    ("async, 1 thread", 1, LpConfig { seed: 7, ..LpConfig::asynchronous() })
}

/// Every schedule and thread count on small graphs; fewer on large ones (the synchronous
/// schedule's result does not depend on the thread count, which the small graphs check).
fn small_runs() -> Vec<Run> {
    vec![sync(1), sync(3), async_1()]
}

fn large_runs() -> Vec<Run> {
    vec![sync(2), async_1()]
}

/// What a run must reproduce exactly: labels, label memories, per-iteration counts and
/// convergence (not times).
#[derive(Debug, PartialEq)]
struct Observed {
    labels: Vec<Label>,
    memberships: Option<Vec<Vec<Label>>>,
    iterations: Vec<(u64, u64, bool)>,
    converged: bool,
}

impl Observed {
    fn of(o: &LpOutcome) -> Self {
        Observed {
            labels: o.labels.clone(),
            memberships: o.memberships.clone(),
            iterations: o.iterations.iter().map(|i| (i.changed, i.processed, i.pick_less)).collect(),
            converged: o.converged,
        }
    }
}

/// Label propagation in the conformance harness: a case's graph and seeds, a run's threads
/// and configuration, the [`Observed`] output.
struct Lp;

impl Kind for Lp {
    type Input = Case;
    type Run = Run;
    type Output = Observed;

    fn input_name(&self, c: &Case) -> String {
        c.name.to_string()
    }

    fn run_name(&self, &(run, _, _): &Run) -> String {
        run.to_string()
    }
}

impl<V: CompiledVariant> Runs<V> for Lp {
    fn run(&self, variant: &V, c: &Case, &(_, threads, config): &Run) -> Observed {
        let inputs = if variant.features().seeds {
            LpInputs { seeds: Some(&c.seeds.labels), ..LpInputs::default() }
        } else {
            LpInputs::default()
        };
        let outcome = pool(threads).install(|| glp::lp::run_kernel(&c.graph.csr, variant, &config, &inputs).unwrap());
        Observed::of(&outcome)
    }
}

/// Runs `native` and `interpreted` on `c` with every configuration of `runs` and compares
/// (the conformance harness), after their features and parameters.
fn compare<K: CompiledVariant>(c: &Case, runs: &[Run], label: &str, native: &K, interpreted: &InterpretedVariant) {
    assert_eq!(native.features(), interpreted.features(), "{label}: features");
    assert_eq!(native.param_decls(), interpreted.param_decls(), "{label}: parameters");
    assert_eq!(native.param_values(), interpreted.param_values(), "{label}: parameter values");
    assert_eq!(assert_twins(&Lp, &[c], runs, label, native, interpreted), runs.len());
}

/// Every built-in variant, interpreted from its source file, on graph `c`: LLP with each of
/// `gammas`, SLP with each of `thresholds`.
fn every_variant(c: &Case, runs: &[Run], gammas: &[f64], thresholds: &[f64]) {
    compare(c, runs, "classic", &Classic, &from_file(CLASSIC, &[]));
    compare(c, runs, "weighted", &Weighted, &from_file(WEIGHTED, &[]));
    for cap in [3.0, 100.0] {
        compare(c, runs, &format!("capped {cap}"), &Capped { cap }, &from_file(CAPPED, &[&format!("cap={cap}")]));
    }
    for &gamma in gammas {
        let interpreted = from_file(LLP, &[&format!("gamma={gamma}")]);
        compare(c, runs, &format!("llp gamma {gamma}"), &Llp { gamma }, &interpreted);
    }
    for &threshold in thresholds {
        let interpreted = from_file(SLP, &[&format!("threshold = {threshold}")]);
        compare(c, runs, &format!("slp threshold {threshold}"), &Slp { threshold }, &interpreted);
    }
    compare(c, runs, "seeded", &Seeded, &from_file(SEEDED, &[]));
}

#[test]
fn interpreted_variants_match_native_on_small_real_graphs() {
    for name in [
        "karate.mtx",
        "dolphins.edges",
        "football.edges",
        "ldbc-validation/example/example-undirected.e",
        "ldbc-validation/example/example-directed.e",
        "ppi.edgelist.xz",
    ] {
        every_variant(&case(name), &small_runs(), &[0.0, 0.5, 4.0], &[0.1, 0.3]);
    }
}

#[test]
fn interpreted_variants_match_native_on_lfr_50k() {
    // 50,000 vertices, 212,862 stored edges (weighted LP interprets load_neighbor per edge,
    // LLP label_score per candidate label, SLP four hooks with loops over the label memory).
    let c = case("lfr/LFR_N50000_ad5_mc50_mu0.3.edges.gz");
    every_variant(&c, &large_runs(), &[4.0], &[0.1]);
}

#[test]
fn default_hooks_interpreted_match_the_trait_defaults() {
    // Hooks a file leaves out run natively; interpreting them from the compiler's default
    // hook source must change nothing.
    let c = case("email-Eu-core.txt");
    let interpreted = from_file(CLASSIC, &[]).interpret_default_hooks(true);
    compare(&c, &small_runs(), "classic, default hooks interpreted", &Classic, &interpreted);
    let interpreted = from_file(SEEDED, &[]).interpret_default_hooks(true);
    compare(&c, &small_runs(), "seeded, default hooks interpreted", &Seeded, &interpreted);
}

#[test]
fn the_source_the_macro_stores_compiles_to_the_same_variant() {
    // `CompiledVariant::program_source` (the impl's tokens, without the struct) rebuilds the
    // program; parameter types are then inferred, and must agree with the struct's.
    let c = case("polbooks.edges");
    let llp = Llp { gamma: 2.0 };
    compare(&c, &small_runs(), "llp from its stored tokens", &llp, &InterpretedVariant::of_kernel(&llp).unwrap());
    let slp = Slp { threshold: 0.2 };
    compare(&c, &small_runs(), "slp from its stored tokens", &slp, &InterpretedVariant::of_kernel(&slp).unwrap());
    compare(
        &c,
        &small_runs(),
        "weighted from its stored tokens",
        &Weighted,
        &InterpretedVariant::of_kernel(&Weighted).unwrap(),
    );
}

// ---- errors ---------------------------------------------------------------------------------

const DIVIDER: &str = r#"
use glp::prelude::*;

pub struct Divider {
    pub k: u32,
}

impl LpVariant for Divider {
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {
        let spread = view.num_vertices() / self.k;
        best % spread
    }
}
"#;

fn karate() -> Graph {
    load("karate.mtx")
}

#[test]
fn a_runtime_error_in_a_hook_ends_the_run_with_its_location() {
    let g = karate();
    let divider = InterpretedVariant::from_source("divider.rs", DIVIDER, &["k=0"]).unwrap();
    for config in [LpConfig::synchronous(20), LpConfig::asynchronous()] {
        let err = glp::lp::run_kernel(&g.csr, &divider, &config, &LpInputs::default()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, glp::Error::Program(_)), "{err:?}");
        assert!(text.starts_with("attempt to divide by zero\n"), "{text}");
        // `view.num_vertices() / self.k` is on line 10, from column 22.
        assert!(text.contains("--> divider.rs:10:22\n"), "{text}");
        assert!(text.contains("let spread = view.num_vertices() / self.k;"), "{text}");
        assert!(text.contains("^^^^^^^^^^^^^^^^^^^^^^^^^"), "{text}");
        assert!(text.contains("`update_vertex` of `Divider`"), "{text}");
        assert!(text.contains("iteration 0"), "{text}");
    }
    // The failure was reported: the same variant with a valid divisor runs cleanly.
    let fine = InterpretedVariant::from_source("divider.rs", DIVIDER, &["k=2"]).unwrap();
    let out = glp::lp::run_kernel(&g.csr, &fine, &LpConfig::synchronous(5), &LpInputs::default());
    assert!(out.is_ok(), "{out:?}");
    // `best % 17` keeps labels below the vertex count (34).
    assert!(out.unwrap().labels.iter().all(|&l| l < 17));
}

#[test]
fn labels_and_ids_out_of_range_are_errors_not_panics() {
    let g = karate();
    let cases = [
        (
            "fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label { v + 1000 }",
            "`initial_label` returned label 1000, which is neither a vertex id (below 34) nor UNLABELLED",
        ),
        (
            "fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, e: EdgeId) -> (Label, f64) { \
             (view.label(u + 40), 1.0) }",
            "out of range: the graph has 34 vertices",
        ),
        (
            "fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, e: EdgeId) -> (Label, f64) { \
             (view.label(u), view.edge_weight(e + 1000)) }",
            "out of range: the graph has 156 stored edges",
        ),
        (
            "fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label { \
             view.next_label(UNLABELLED) }",
            "vertex id 4294967295 (UNLABELLED) out of range",
        ),
    ];
    for (hook, message) in cases {
        let source = format!("struct Bad;\nimpl LpVariant for Bad {{\n    {hook}\n}}\n");
        let bad = InterpretedVariant::from_source("bad.rs", &source, &[] as &[&str]).unwrap();
        for threads in [1, 3] {
            let err = pool(threads)
                .install(|| glp::lp::run_kernel(&g.csr, &bad, &LpConfig::synchronous(20), &LpInputs::default()))
                .unwrap_err()
                .to_string();
            assert!(err.contains(message), "{hook}: {err}");
            assert!(err.contains("--> bad.rs:3:"), "{hook}: {err}");
        }
    }
}

#[test]
fn parameters_are_parsed_as_their_declared_types() {
    let (file, source) = LLP;
    let err = |params: &[&str]| InterpretedVariant::from_source(file, source, params).unwrap_err().to_string();
    assert!(err(&[]).contains("needs the parameter `gamma: f64`"), "{}", err(&[]));
    assert!(err(&["gamma=abc"]).contains("`gamma` is a `f64`, expected a finite number (got `abc`)"));
    assert!(err(&["gamma=inf"]).contains("a finite number"));
    assert!(err(&["beta=1"]).contains("unknown parameter `beta` (parameters of `Llp`: `gamma: f64`)"));
    assert!(err(&["gamma"]).contains("expected NAME=VALUE"));
    assert!(err(&["gamma=1", "gamma=2"]).contains("given twice"));
    let (file, source) = CLASSIC;
    let e = InterpretedVariant::from_source(file, source, &["gamma=1"]).unwrap_err().to_string();
    assert!(e.contains("`Classic` takes no parameters"), "{e}");

    let typed = r#"
        struct Typed { limit: u32, boost: f32, on: bool, shift: i64 }
        impl LpVariant for Typed {
            fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
                if self.on && label < self.limit { freq * self.boost as f64 + self.shift as f64 } else { freq }
            }
        }
    "#;
    let parse = |params: &[&str]| InterpretedVariant::from_source("typed.rs", typed, params);
    let ok = parse(&["limit=7", "boost=1.5", "on=true", "shift=-3"]).unwrap();
    use glp::lp::ScalarValue as S;
    assert_eq!(ok.params(), &[S::U32(7), S::F32(1.5), S::Bool(true), S::I64(-3)]);
    let e = parse(&["limit=-1", "boost=1.5", "on=true", "shift=-3"]).unwrap_err().to_string();
    assert!(e.contains("`limit` is a `u32`, expected an integer in 0..=4294967295 (got `-1`)"), "{e}");
    let e = parse(&["limit=1", "boost=1.5", "on=yes", "shift=0"]).unwrap_err().to_string();
    assert!(e.contains("expected `true` or `false`"), "{e}");
    let e = parse(&["limit=1"]).unwrap_err().to_string();
    assert!(e.contains("needs the parameters `boost: f32`, `on: bool`, `shift: i64`"), "{e}");
}

#[test]
fn compile_errors_are_rendered_with_file_line_column_and_caret() {
    let source =
        "struct V;\nimpl LpVariant for V {\n    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, \
                  freq: f64) -> f64 {\n        let x = vec![1.0];\n        freq\n    }\n}\n";
    let err = InterpretedVariant::from_source("v.rs", source, &[] as &[&str]).unwrap_err();
    let text = err.to_string();
    let at = glp::error::TextPosition { line: 4, column: 17 };
    assert!(
        matches!(&err, glp::Error::Compile { file, position: Some(p), .. } if file == "v.rs" && *p == at),
        "{err:?}"
    );
    assert!(text.contains("--> v.rs:4:17"), "{text}");
    assert!(text.contains("4 |         let x = vec![1.0];"), "{text}");
    assert!(text.contains("  |                 ^"), "{text}");
    let err = InterpretedVariant::from_source("v.rs", "fn main( {", &[] as &[&str]).unwrap_err().to_string();
    assert!(err.contains("--> v.rs:1:"), "{err}");
}

// ---- loop step budgets ----------------------------------------------------------------------

/// A 4-cycle (0-1-2-3-0), built here: the loop budget tests read no data files.
fn cycle() -> Csr {
    Csr::new(vec![0, 2, 4, 6, 8], vec![1, 3, 0, 2, 1, 3, 0, 2], None).unwrap()
}

/// A variant whose `hook` (given as its whole item) spins in `while true {}`.
fn spinning(hook: &str) -> String {
    format!("pub struct Spin;\n\nimpl LpVariant for Spin {{\n{hook}\n}}\n")
}

/// The 1-based line and column of the first `needle` in `text`, found by text search.
fn line_col(text: &str, needle: &str) -> (usize, usize) {
    let offset = text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in\n{text}"));
    let line = text[..offset].matches('\n').count() + 1;
    let column = text[..offset].rsplit('\n').next().unwrap().chars().count() + 1;
    (line, column)
}

#[test]
fn a_hook_that_never_ends_stops_at_the_budget_naming_hook_loop_and_vertex() {
    let none = LpInputs::default();
    let cases = [
        (
            "    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {\n        \
             let mut n = 0u32;\n        while true { n += 1; }\n        best\n    }",
            "while true",
            "`update_vertex` of `Spin`, for vertex index 0 in iteration 0",
        ),
        (
            "    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {\n        let mut l = v;\n        \
             loop { l = l.wrapping_mul(3); }\n    }",
            "loop {",
            "`initial_label` of `Spin`, for vertex index 0 before iteration 0",
        ),
        (
            "    fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {\n        \
             let mut w = 0.0;\n        for i in 0..u32::MAX { for j in 0..u32::MAX { w += 1.0; } }\n        \
             (view.label(u), w)\n    }",
            "for j",
            "`load_neighbor` of `Spin`, for vertex index 0 in iteration 0",
        ),
    ];
    for (hook, loop_start, note) in cases {
        let source = spinning(hook);
        let (line, column) = line_col(&source, loop_start);
        let spin = InterpretedVariant::from_source("spin.rs", &source, &[] as &[&str]).unwrap().with_loop_budget(1000);
        for config in [LpConfig::synchronous(20), LpConfig::asynchronous()] {
            let err = pool(1).install(|| glp::lp::run_kernel(&cycle(), &spin, &config, &none)).unwrap_err();
            let text = err.to_string();
            assert!(matches!(err, glp::Error::Program(_)), "{err:?}");
            assert!(
                text.starts_with(
                    "this loop ran past the step budget: the loops of one call may run 1000 iterations in all"
                ),
                "{text}"
            );
            assert!(text.contains(&format!("--> spin.rs:{line}:{column}\n")), "{loop_start}: {text}");
            let source_line = source.lines().nth(line - 1).unwrap();
            assert!(text.contains(&format!("{line} | {source_line}\n")), "{text}");
            assert!(text.contains(note), "{text}");
        }
        // With several threads the vertex that ran out first varies; the hook and loop do not.
        let err = pool(3).install(|| glp::lp::run_kernel(&cycle(), &spin, &LpConfig::synchronous(20), &none));
        let text = err.unwrap_err().to_string();
        assert!(text.contains(&format!("--> spin.rs:{line}:{column}\n")), "{text}");
        let vertex = text.split("for vertex index ").nth(1).and_then(|t| t.split(' ').next()).unwrap();
        assert!(vertex.parse::<u32>().unwrap() < 4, "{text}");
    }
}

#[test]
fn the_default_budget_stops_an_endless_loop_and_lets_long_loops_finish() {
    let none = LpInputs::default();
    let source = spinning(
        "    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {\n        \
         let mut n = 0u32;\n        while true { n += 1; }\n        best\n    }",
    );
    let spin = InterpretedVariant::from_source("spin.rs", &source, &[] as &[&str]).unwrap();
    let err = glp::lp::run_kernel(&cycle(), &spin, &LpConfig::synchronous(5), &none).unwrap_err().to_string();
    // The 4-cycle's budget is the floor: 2^24.
    assert!(err.contains("may run 16777216 iterations in all"), "{err}");
    assert!(err.contains("max(2^24, 4 * (vertices + stored edges))"), "{err}");
    // A million iterations per call are well within it: the run gives classic LP's labels.
    let counting = spinning(
        "    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {\n        \
         let mut n = 0u32;\n        for _ in 0..1_000_000u32 { n += 1; }\n        if n == 1_000_000 { best } else { v }\n    }",
    );
    let counting = InterpretedVariant::from_source("counting.rs", &counting, &[] as &[&str]).unwrap();
    let config = LpConfig::synchronous(3);
    let got = glp::lp::run_kernel(&cycle(), &counting, &config, &none).unwrap();
    let classic = glp::lp::run_kernel(&cycle(), &Classic, &config, &none).unwrap();
    assert_eq!(got.labels, classic.labels);
}

/// A natively compiled variant with a loop, to check the loop sites the macro records.
pub struct Settle;

#[glp::lp_variant]
impl LpVariant for Settle {
    fn update_vertex(&self, _view: &View<'_>, _v: VertexId, best: Label, _score: f64) -> Label {
        let mut steps = 0u32;
        while steps < 3 {
            steps += 1;
        }
        best + steps - 3
    }
}

#[test]
fn macro_variants_name_their_loops_by_rustcs_file_line_and_column() {
    use glp::lp::gpu::LoopSite;
    use glp_codegen::kinds::lp::LoopFault;
    let this_file = include_str!("interpreted_variants.rs");
    // The first `while steps` of this file is `Settle`'s (this test's text comes after it).
    let (line, column) = line_col(this_file, "while steps < 3 {");
    let sites = Settle.loop_sites();
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert_eq!(
        (sites[0].function.as_str(), sites[0].line, sites[0].column),
        ("update_vertex", line as u32, column as u32)
    );
    assert!(sites[0].file.ends_with("tests/interpreted_variants.rs"), "{sites:?}");
    let slp_file = include_str!("../src/variants/slp.rs");
    let (line, column) = line_col(slp_file, "for slot in 0..len");
    let file = "src/variants/slp.rs".to_string();
    assert_eq!(
        Slp::default().loop_sites(),
        vec![LoopSite { function: "update_vertex".into(), file, line: line as u32, column: column as u32 }]
    );
    assert_eq!(Classic.loop_sites(), vec![]);
    // The GPU's error for a loop fault of a native variant: the loop's place, without source.
    let fault = LoopFault { site: 1, hook: glp_codegen::kinds::lp::UPDATE_VERTEX, vertex: 7 };
    let text = Slp::default().loop_fault_error(fault, 2, 99).to_string();
    assert!(text.starts_with("this loop ran past the step budget: the loops of one call may run 99 iterations"));
    assert!(text.contains(&format!("--> src/variants/slp.rs:{line}:{column}\n")), "{text}");
    assert!(text.ends_with("`update_vertex` of `Slp`, for vertex index 7 in iteration 2 on the GPU"), "{text}");
    // A file variant's shows the line and caret, as on the CPU.
    let slp = InterpretedVariant::from_source("slp.rs", slp_file, &["threshold=0.1"]).unwrap();
    let text = slp.loop_fault_error(fault, 2, 99).to_string();
    assert!(text.contains(&format!("--> slp.rs:{line}:{column}\n")), "{text}");
    assert!(text.contains("for slot in 0..len {"), "{text}");
    assert!(text.ends_with("`update_vertex` of `Slp`, for vertex index 7 in iteration 2 on the GPU"), "{text}");
    assert_eq!(slp.loop_sites()[0].line, line as u32);
}
