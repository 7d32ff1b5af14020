//! The interpreter against native Rust: every built-in variant's source file (the text of
//! `src/variants/*.rs`, compiled at run time as `glp lp --variant FILE.rs` does) run on the
//! IR interpreter must give exactly the labels, label memories and per-iteration counts of
//! the same variant compiled by rustc, on real graphs of `../shared/data`, with the
//! synchronous schedule on one and several threads and the asynchronous one on one thread
//! (with several, its in-place updates race, so even two native runs may differ).

mod common;

use common::{load, pool};
use glp::lp::{InterpretedVariant, LpKernel, LpOutcome};
use glp::prelude::*;

/// The built-in variants' source files, as a user would pass them to `--variant`.
const CLASSIC: (&str, &str) = ("src/variants/classic.rs", include_str!("../src/variants/classic.rs"));
const WEIGHTED: (&str, &str) = ("src/variants/weighted.rs", include_str!("../src/variants/weighted.rs"));
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
        if id % 7 == 0 {
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

fn assert_same(what: &str, native: &LpOutcome, interpreted: &LpOutcome) {
    assert_eq!(native.labels, interpreted.labels, "{what}: labels");
    assert_eq!(native.memberships, interpreted.memberships, "{what}: memberships");
    let changes = |o: &LpOutcome| -> Vec<(u64, u64, bool)> {
        o.iterations.iter().map(|i| (i.changed, i.processed, i.pick_less)).collect()
    };
    assert_eq!(changes(native), changes(interpreted), "{what}: iterations");
    assert_eq!(native.converged, interpreted.converged, "{what}: convergence");
}

/// Runs `native` and `interpreted` on `c` with every configuration of `runs` and compares;
/// prints the times of both (`cargo test -- --nocapture` shows them).
fn compare<K: LpKernel>(c: &Case, runs: &[Run], label: &str, native: &K, interpreted: &InterpretedVariant) {
    assert_eq!(native.features(), interpreted.features(), "{label}: features");
    assert_eq!(native.param_decls(), interpreted.param_decls(), "{label}: parameters");
    assert_eq!(native.param_values(), interpreted.param_values(), "{label}: parameter values");
    let inputs = if native.features().seeds {
        LpInputs { seeds: Some(&c.seeds.labels), ..LpInputs::default() }
    } else {
        LpInputs::default()
    };
    for &(run, threads, config) in runs {
        let what = format!("{label} on {}, {run}", c.name);
        let (want, got) = pool(threads).install(|| {
            let want = glp::lp::run_kernel(&c.graph.csr, native, &config, &inputs).unwrap();
            let got = glp::lp::run_kernel(&c.graph.csr, interpreted, &config, &inputs).unwrap();
            (want, got)
        });
        assert_same(&what, &want, &got);
        let ms = |o: &LpOutcome| o.elapsed.as_secs_f64() * 1e3;
        eprintln!(
            "{what}: {} iterations, native {:.1} ms, interpreted {:.1} ms ({:.1}x)",
            want.iterations.len(),
            ms(&want),
            ms(&got),
            ms(&got) / ms(&want)
        );
    }
}

/// Every built-in variant, interpreted from its source file, on graph `c`: LLP with each of
/// `gammas`, SLP with each of `thresholds`.
fn every_variant(c: &Case, runs: &[Run], gammas: &[f64], thresholds: &[f64]) {
    compare(c, runs, "classic", &Classic, &from_file(CLASSIC, &[]));
    compare(c, runs, "weighted", &Weighted, &from_file(WEIGHTED, &[]));
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
        "ppi.edgelist",
    ] {
        every_variant(&case(name), &small_runs(), &[0.0, 0.5, 4.0], &[0.1, 0.3]);
    }
}

#[test]
fn interpreted_variants_match_native_on_lfr_50k() {
    // 50,000 vertices, 212,862 stored edges; `-- --nocapture` shows what the interpreter
    // costs (weighted LP interprets load_neighbor per edge, LLP label_score per candidate
    // label, SLP four hooks with loops over the label memory).
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
    // `LpKernel::program_source` (the impl's tokens, without the struct) rebuilds the
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
    assert!(matches!(err, glp::Error::Program(_)));
    assert!(text.contains("--> v.rs:4:17"), "{text}");
    assert!(text.contains("4 |         let x = vec![1.0];"), "{text}");
    assert!(text.contains("  |                 ^"), "{text}");
    let err = InterpretedVariant::from_source("v.rs", "fn main( {", &[] as &[&str]).unwrap_err().to_string();
    assert!(err.contains("--> v.rs:1:"), "{err}");
}
