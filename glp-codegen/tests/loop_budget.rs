//! Loop step budgets (`glp_codegen::loops`): the interpreter stops a call whose loops run past
//! the budget its host gives, at the loop, counting every iteration of every loop of the call
//! (nested loops and loops of called hooks included); the CUDA emitter gives every looping
//! hook a counter, a step per iteration with the loop's site code, and a wrapper reporting
//! the site and returning the hook's neutral value; the site table names the loops in the
//! order of the codes.

use glp_codegen::interp::{Host, Interpreter, RuntimeError, Value};
use glp_codegen::ir::Scalar;
use glp_codegen::ir::{IntrinsicId, Location};
use glp_codegen::kinds::lp::{compile_source, LpProgram, INITIAL_LABEL, LABEL_SCORE, LOAD_NEIGHBOR, UPDATE_VERTEX};
use glp_codegen::loops::{loop_sites, looping_functions};
use glp_codegen::program::kind::KindSpec;

mod common;

use common::{test_intrinsic, test_kind};

/// A host for hooks that call no view method, with a given loop budget.
struct Budget(u64);

impl Host for Budget {
    fn intrinsic(&self, _: IntrinsicId, _: &[Value]) -> Result<Value, RuntimeError> {
        Err(RuntimeError::host("these hooks call no view method"))
    }

    fn loop_budget(&self) -> u64 {
        self.0
    }
}

fn compile(source: &str) -> LpProgram {
    compile_source(source).unwrap_or_else(|e| panic!("{}", e.render("test.rs", source)))
}

/// The 1-based line and 0-based column of the `n`th (from 0) occurrence of `needle` in
/// `source` (found by text search, independently of the compiler).
fn position(source: &str, needle: &str, n: usize) -> (u32, u32) {
    let offset = source.match_indices(needle).nth(n).unwrap_or_else(|| panic!("`{needle}` #{n} not in the source")).0;
    let before = &source[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() as u32;
    (line, column)
}

/// Calls `update_vertex(view, v = 3, best = 5, score = 1.0)` with loop budget `budget`.
fn update_vertex(program: &LpProgram, budget: u64) -> Result<Value, RuntimeError> {
    let interp = Interpreter::new(&program.program);
    let f = interp.hook(UPDATE_VERTEX).expect("update_vertex");
    interp.call(&Budget(budget), f, &[], &[Value::Context, 3u32.into(), 5u32.into(), 1.0f64.into()])
}

/// Asserts `result` is the loop budget error of `budget` at the loop starting at `at`.
#[track_caller]
fn assert_ran_out(result: Result<Value, RuntimeError>, budget: u64, at: (u32, u32)) {
    match result {
        Err(RuntimeError::LoopBudget { budget: b, location: Location { line, column, .. } }) => {
            assert_eq!((b, line, column), (budget, at.0, at.1), "budget, line and column");
        }
        other => panic!("expected the loop budget error at {at:?}, got {other:?}"),
    }
}

fn hook(body: &str) -> String {
    format!(
        "struct Spin;\nimpl LpVariant for Spin {{\n    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, \
         score: f64) -> Label {{\n{body}\n    }}\n}}\n"
    )
}

#[test]
fn a_while_true_stops_at_the_budget_with_the_loops_location() {
    let source = hook("        let mut n = 0u32;\n        while true { n += 1; }\n        n");
    let program = compile(&source);
    let err = update_vertex(&program, 1000);
    assert_ran_out(err.clone(), 1000, position(&source, "while true", 0));
    // The message says what the budget was; the location is printed from 1.
    let (line, column) = position(&source, "while true", 0);
    let text = err.unwrap_err().to_string();
    assert!(text.starts_with(&format!("{line}:{}: this loop ran past the step budget", column + 1)), "{text}");
    assert!(text.contains("may run 1000 iterations in all"), "{text}");
}

#[test]
fn a_loop_without_break_stops_too() {
    let source = hook("        let mut n = 0u32;\n        loop {\n            n = n.wrapping_add(best);\n        }");
    let program = compile(&source);
    assert_ran_out(update_vertex(&program, 77), 77, position(&source, "loop {", 0));
}

#[test]
fn a_long_loop_within_the_budget_runs_to_its_end() {
    // A million iterations, each a step: exactly the budget passes, one step less does not.
    let source = hook("        let mut n = 0u32;\n        for _ in 0..1_000_000u32 { n += 1; }\n        n");
    let program = compile(&source);
    assert_eq!(update_vertex(&program, 1_000_000), Ok(Value::from(1_000_000u32)));
    assert_ran_out(update_vertex(&program, 999_999), 999_999, position(&source, "for _", 0));
    // An inclusive range, a `while` with `continue`: one step per body entered.
    let source = hook(
        "        let mut n = 0u32;\n        for i in 1..=10u32 { n += i; }\n        let mut i = 0u32;\n        \
         while i < 10 { i += 1; if i % 2 == 0 { continue; } n += 1; }\n        n",
    );
    let program = compile(&source);
    assert_eq!(update_vertex(&program, 20), Ok(Value::from(60u32)));
    assert_ran_out(update_vertex(&program, 19), 19, position(&source, "while i", 0));
    assert_ran_out(update_vertex(&program, 9), 9, position(&source, "for i", 0));
}

#[test]
fn nested_loops_count_every_inner_iteration() {
    // 10 outer iterations of 1 + 10 steps each: 110 steps.
    let source = hook(
        "        let mut n = 0u32;\n        for i in 0..10u32 {\n            for j in 0..10u32 { n += i * j; }\n        }\n        n",
    );
    let program = compile(&source);
    assert_eq!(update_vertex(&program, 110), Ok(Value::from(2025u32)));
    // Step 110 is the inner loop's last iteration; step 100 starts the outer loop's 10th.
    assert_ran_out(update_vertex(&program, 109), 109, position(&source, "for j", 0));
    assert_ran_out(update_vertex(&program, 99), 99, position(&source, "for i", 0));
}

#[test]
fn a_hook_called_by_a_hook_shares_the_callers_budget() {
    let source = "struct Two;\nimpl LpVariant for Two {\n    fn label_score(&self, view: &View<'_>, v: VertexId, \
                  label: Label, freq: f64) -> f64 {\n        let mut s = freq;\n        for _ in 0..5u32 { s += 1.0; \
                  }\n        s\n    }\n    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: \
                  f64) -> Label {\n        let mut n = 0u32;\n        for _ in 0..5u32 { n += 1; }\n        \
                  let s = self.label_score(view, v, best, 0.0);\n        n + s as u32\n    }\n}\n";
    let program = compile(source);
    assert_eq!(update_vertex(&program, 10), Ok(Value::from(10u32)));
    // The caller's five steps come first: the tenth, past a budget of 9, is the callee's.
    assert_ran_out(update_vertex(&program, 9), 9, position(source, "for _", 0));
    assert_ran_out(update_vertex(&program, 4), 4, position(source, "for _", 1));
}

#[test]
fn sites_are_numbered_by_function_then_source_order() {
    let source =
        "struct Sites;\nimpl LpVariant for Sites {\n    fn update_vertex(&self, view: &View<'_>, v: VertexId, \
                  best: Label, score: f64) -> Label {\n        let mut n = 0u32;\n        while n < 3 {\n            \
                  for _ in 0..2u32 { n += 1; }\n        }\n        let m = loop { break n; };\n        m\n    }\n    \
                  fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {\n        \
                  let mut s = freq;\n        for _ in 0..2u32 { s += 1.0; }\n        s\n    }\n}\n";
    let program = compile(source);
    let p = &program.program;
    let sites: Vec<(String, (u32, u32))> = loop_sites(p)
        .iter()
        .map(|s| {
            let l = p.location(s.span);
            (p.functions[s.function as usize].name.clone(), (l.line, l.column))
        })
        .collect();
    // Hooks are in the kind's order (label_score before update_vertex), whatever the source's.
    let expected = vec![
        ("label_score".to_string(), position(source, "for _", 1)),
        ("update_vertex".to_string(), position(source, "while n", 0)),
        ("update_vertex".to_string(), position(source, "for _", 0)),
        ("update_vertex".to_string(), position(source, "loop {", 0)),
    ];
    assert_eq!(sites, expected);
    let looping = looping_functions(p);
    let names: Vec<&str> = p.functions.iter().zip(&looping).filter(|(_, &l)| l).map(|(f, _)| f.name.as_str()).collect();
    assert_eq!(names, ["label_score", "update_vertex"]);
}

#[test]
fn looping_hooks_get_a_counter_a_step_per_iteration_and_a_reporting_wrapper() {
    let source = "struct Emit;\nimpl LpVariant for Emit {\n    fn initial_label(&self, view: &View<'_>, v: VertexId) -> \
                  Label {\n        let mut l = v;\n        while l > 10 { l -= 10; }\n        l\n    }\n    fn \
                  load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {\n        \
                  let mut w = 0.0;\n        for _ in 0..3u32 { w += 1.0; }\n        (view.label(u), w)\n    }\n    \
                  fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {\n        \
                  let mut s = freq;\n        loop { s += 1.0; if s > 9.0 { break; } }\n        s\n    }\n    fn \
                  update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {\n        \
                  let s = self.label_score(view, v, best, score);\n        if s > 0.0 { best } else { v }\n    }\n}\n";
    let cuda = compile(source).device_functions();
    // Sites in kind order: initial_label 1, load_neighbor 2, label_score 3.
    assert!(cuda.contains("while ((l > 10u)) {\n        if (glp_loop_exhausted(glp_loops, 1u)) return {};"), "{cuda}");
    assert!(cuda.contains("if (glp_loop_exhausted(glp_loops, 2u)) return {};"), "{cuda}");
    assert!(cuda.contains("while (true) {\n        if (glp_loop_exhausted(glp_loops, 3u)) return {};"), "{cuda}");
    // Bodies take the counter; the wrappers keep the hooks' names and signatures.
    for (hook, args) in [
        ("initial_label", "glp_u32 v"),
        ("load_neighbor", "glp_u32 v, glp_u32 u, glp_u64 edge"),
        ("label_score", "glp_u32 v, glp_u32 label, double freq"),
        ("update_vertex", "glp_u32 v, glp_u32 best, double score"),
    ] {
        let common = format!("(const glp_lp_params& self, const glp_lp_view& view, {args}");
        assert!(
            cuda.contains(&format!("glp_lp_{hook}_loops{common}, glp_loop_guard& glp_loops) {{")),
            "{hook}\n{cuda}"
        );
        assert!(cuda.contains(&format!("glp_lp_{hook}{common}) {{")), "{hook}\n{cuda}");
    }
    // update_vertex has no loop of its own but calls a hook that loops, with its counter.
    assert!(cuda.contains("glp_lp_label_score_loops(self, view, v, best, score, glp_loops)"), "{cuda}");
    // Each wrapper reports its hook's index and vertex, and returns the hook's neutral value.
    let wrapper = |index: usize, neutral: &str| {
        format!(
            "    if (glp_loops.site != 0u) {{\n        glp_lp_loop_fault(view, glp_loops.site, {index}u, v);\n        \
             return {neutral};\n    }}\n    return glp_value;\n}}"
        )
    };
    assert!(cuda.contains(&wrapper(INITIAL_LABEL, "4294967295u")), "{cuda}");
    assert!(cuda.contains(&wrapper(LOAD_NEIGHBOR, "glp_tuple_u32_f64{4294967295u, 0.0}")), "{cuda}");
    assert!(cuda.contains(&wrapper(LABEL_SCORE, "freq")), "{cuda}");
    assert!(cuda.contains(&wrapper(UPDATE_VERTEX, "best")), "{cuda}");
    assert!(cuda.contains("glp_loop_guard glp_loops = glp_loop_guard_new(glp_lp_loop_budget(view));"), "{cuda}");
    // A hook that never loops is emitted as before: no counter, no wrapper.
    assert!(cuda.contains("glp_lp_pick_label(const glp_lp_params& self, const glp_lp_view& view, glp_u32 v) {"));
    assert!(!cuda.contains("glp_lp_pick_label_loops"), "{cuda}");
}

/// A kind with helpers (inherent impls): a helper that loops takes its caller's counter.
static HELPERS: KindSpec = test_kind(&[test_intrinsic("bump", &[Scalar::U32], Some(Scalar::U32), "a counter")]);

#[test]
fn helpers_that_loop_take_the_counter_and_others_do_not() {
    let source =
        "impl TestKind for T {\n    fn spin(&self, n: u32) -> u32 { let mut i = 0; while i < n { i += 1; } i }\n    \
                  fn twice(&self, n: u32) -> u32 { self.spin(n) + self.spin(n) }\n    fn plain(&self, n: u32) -> u32 \
                  { n + 1 }\n    fn unit(&self, n: u32) { let mut i = 0; loop { i += 1; if i > n { break; } } }\n}\n";
    let item: syn::ItemImpl = syn::parse_str(source).unwrap();
    let compiled = glp_codegen::program::compile_impl(&HELPERS, &item, Some(&[])).unwrap_or_else(|d| panic!("{d:?}"));
    let cuda = glp_codegen::cuda::emit_program(&HELPERS, &compiled.program);
    assert!(cuda.contains("glp_u32 t_fn_spin(const t_params& self, glp_u32 n, glp_loop_guard& glp_loops) {"), "{cuda}");
    assert!(
        cuda.contains("glp_u32 t_fn_twice(const t_params& self, glp_u32 n, glp_loop_guard& glp_loops) {"),
        "{cuda}"
    );
    assert!(cuda.contains("t_fn_spin(self, n, glp_loops)"), "{cuda}");
    assert!(cuda.contains("glp_u32 t_fn_plain(const t_params& self, glp_u32 n) {"), "{cuda}");
    // A function returning nothing returns at once without a value.
    assert!(cuda.contains("if (glp_loop_exhausted(glp_loops, 2u)) return;"), "{cuda}");
    // Helpers get no wrapper: only hooks are called by kernels.
    assert!(!cuda.contains("_loops(") && !cuda.contains("glp_loop_guard_new"), "{cuda}");
}
