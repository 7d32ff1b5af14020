//! The parts every kind shares: a hook call's loop budget and failure latch, which function
//! runs each hook, the rendered failure, `Clone` and `Debug`. Checked on a label propagation
//! program with a host that has no view (its hooks use none).

use super::*;
use glp_codegen::ir::IntrinsicId;
use glp_codegen::kinds::lp::{INITIAL_LABEL, LP_KIND, PICK_LABEL, UPDATE_VERTEX};

/// `initial_label` loops `v` times (the loop is line 5, columns 9 to 39), `pick_label`
/// divides by `v`; the other hooks are left to the defaults.
const SPIN: &str = "struct Spin { step: u32 }
impl LpVariant for Spin {
    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {
        let mut i = 0;
        while i < v { i += self.step; }
        v
    }
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        100 / v
    }
}
";

/// A host without a view, whose own loop budget (1) a call must not use.
struct NoView;

impl Host for NoView {
    fn intrinsic(&self, _: IntrinsicId, _: &[Value]) -> Result<Value, RuntimeError> {
        Err(RuntimeError::host("no view".to_string()))
    }

    fn loop_budget(&self) -> u64 {
        1
    }
}

fn spin() -> LoadedProgram {
    LoadedProgram::from_source(&LP_KIND, "spin.rs", SPIN, &["step=1"]).unwrap()
}

/// Calls `initial_label` for `v` (looping `v` times) as if in iteration 7.
fn initial_label(program: &LoadedProgram, graph: (u64, u64), v: u32) -> Option<Value> {
    let f = program.hook_function(INITIAL_LABEL, false).unwrap();
    program.call(NoView, graph, f, &[Value::Context, v.into()], (INITIAL_LABEL, v, 7))
}

fn budget_of(failure: &HookFailure) -> u64 {
    match failure.error {
        RuntimeError::LoopBudget { budget, .. } => budget,
        ref other => panic!("not a loop budget failure: {other:?}"),
    }
}

#[test]
fn a_hook_call_runs_with_the_set_budget_whatever_the_graph_and_the_host() {
    let program = spin().with_loop_budget(3);
    assert_eq!(initial_label(&program, (1 << 30, 1 << 30), 3).and_then(Value::as_u32), Some(3));
    assert!(!program.failed());
    assert_eq!(initial_label(&program, (1 << 30, 1 << 30), 4), None);
    let failure = program.take_failure().unwrap();
    assert_eq!((failure.hook, failure.vertex, failure.iteration, budget_of(&failure)), (INITIAL_LABEL, 4, 7, 3));
}

#[test]
fn without_a_set_budget_a_hook_call_may_run_four_times_the_vertices_and_edges_of_its_graph() {
    let program = spin();
    // 4 * (2^22 + 1) = 16777220, above the floor of 2^24 = 16777216.
    assert_eq!(initial_label(&program, (1 << 22, 1), u32::MAX), None);
    assert_eq!(budget_of(&program.take_failure().unwrap()), 16_777_220);
}

#[test]
fn the_first_failure_is_latched_until_taken_and_a_clone_starts_without_it() {
    let program = spin();
    let pick = program.hook_function(PICK_LABEL, false).unwrap();
    let pick_label = |program: &LoadedProgram, v: u32| {
        program.call(NoView, (10, 10), pick, &[Value::Context, v.into()], (PICK_LABEL, v, 2)).and_then(Value::as_u32)
    };
    assert_eq!(pick_label(&program, 0), None);
    // Later calls return at once, a sound one too, and do not replace the first failure.
    assert_eq!(pick_label(&program, 5), None);
    assert_eq!(initial_label(&program, (0, 0), u32::MAX), None);
    let copy = program.clone();
    assert!(program.failed() && !copy.failed());
    assert_eq!(pick_label(&copy, 5), Some(20));

    let failure = program.take_failure().unwrap();
    assert_eq!((failure.hook, failure.vertex, failure.iteration), (PICK_LABEL, 0, 2));
    assert!(!program.failed() && program.take_failure().is_none());
    assert_eq!(pick_label(&program, 4), Some(25));
}

#[test]
fn a_hook_the_source_leaves_out_has_a_function_only_when_the_defaults_are_asked_for() {
    let program = spin();
    let name = |f: Option<FunctionId>| f.map(|f| program.program().functions[f as usize].name.clone());
    assert_eq!(name(program.hook_function(INITIAL_LABEL, false)).as_deref(), Some("initial_label"));
    assert_eq!(name(program.hook_function(INITIAL_LABEL, true)).as_deref(), Some("initial_label"));
    assert_eq!(program.hook_function(UPDATE_VERTEX, false), None);
    assert_eq!(name(program.hook_function(UPDATE_VERTEX, true)).as_deref(), Some("update_vertex"));
}

#[test]
fn a_loop_past_its_budget_renders_with_the_source_line_and_the_budget_help() {
    let program = spin().with_loop_budget(3);
    assert_eq!(initial_label(&program, (0, 0), 9), None);
    let failure = program.take_failure().unwrap();
    let expected = "this loop ran past the step budget: the loops of one call may run 3 iterations in all (a loop \
                    that never ends?)\n  --> spin.rs:5:9\n  |\n5 |         while i < v { i += self.step; }\n  |         \
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n   = help: every iteration of a loop counts, those of nested loops \
                    too; unless the run sets one, a hook call may run max(2^24, 4 * (vertices + stored edges)) of \
                    them\n   = note: the kind's";
    assert_eq!(program.render(&failure, "   = note: the kind's").to_string(), expected);
}

#[test]
fn other_failures_render_without_the_budget_help() {
    let program = spin();
    let pick = program.hook_function(PICK_LABEL, false).unwrap();
    assert_eq!(program.call(NoView, (1, 0), pick, &[Value::Context, 0u32.into()], (PICK_LABEL, 0, 0)), None);
    let text = program.render(&program.take_failure().unwrap(), "   = note: the kind's").to_string();
    assert!(text.contains("  --> spin.rs:9:9\n") && text.ends_with("^^^^^^^\n   = note: the kind's"), "{text}");
    assert!(!text.contains("help"), "{text}");
}

#[test]
fn the_debug_output_names_the_program_its_file_and_parameters_before_the_kinds_fields() {
    let program = spin();
    assert_eq!(format!("{program:?}"), r#"LoadedProgram { name: "Spin", file: "spin.rs", params: [U32(1)], .. }"#);
    struct Kind<'p>(&'p LoadedProgram);
    impl fmt::Debug for Kind<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.debug_fields(f, "Kind").field("hooks", &2).finish_non_exhaustive()
        }
    }
    let expected = r#"Kind { name: "Spin", file: "spin.rs", params: [U32(1)], hooks: 2, .. }"#;
    assert_eq!(format!("{:?}", Kind(&program)), expected);
}
