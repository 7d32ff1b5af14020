//! What the GPU kernels need to know about a variant's hooks, decided from its program:
//! whether its score is non-decreasing in `freq` (the high-degree kernel's sketch bound;
//! the generic [`crate::analysis::monotone`] answers), whether the score is the label's
//! weighted count (the sketch strategies), whether every neighbour weighs 1 (popcounts
//! instead of sums), whether `load_neighbor` is the default hook (the kernels read the
//! neighbour's label themselves), whether the first sweep from all-distinct labels is a
//! minimum (`distinct_first_sweep`). Each is conservative: "no" is always correct.

use super::{INITIAL_LABEL, LABEL_SCORE, LOAD_NEIGHBOR, LP_KIND, PICK_LABEL};
use crate::analysis::monotone::{monotonicity, Monotonicity, Query};
use crate::ir::{ExprKind, Literal, Program, Role};
use crate::program::features::writes_hook;

/// Name of the emitted monotonicity predicate.
pub const PREDICATE: &str = "glp_lp_score_monotone";

/// The index of `freq` among `label_score`'s arguments.
fn freq_arg() -> Option<usize> {
    LP_KIND.hooks[LABEL_SCORE].args.iter().position(|(name, _)| *name == "freq")
}

/// Decides whether `program`'s `label_score` is non-decreasing in `freq`.
pub fn score_monotonicity(program: &Program) -> Monotonicity {
    let Some(arg) = freq_arg() else {
        return Monotonicity::Unproven { reason: "label_score has no freq argument".to_string() };
    };
    let query = Query { kind: &LP_KIND, hook: LABEL_SCORE, arg, value: "the score", non_negative: &["random_f64"] };
    monotonicity(program, query)
}

/// The device function `glp_lp_score_monotone(params)`: whether `program`'s score is proven
/// non-decreasing in `freq` for the parameter values of the running kernel.
pub fn emit_predicate(program: &Program) -> String {
    let verdict = score_monotonicity(program);
    format!(
        "\n// label_score non-decreasing in freq: {}\n\
         __device__ __forceinline__ bool {PREDICATE}(const {}& self) {{ return {}; }}\n",
        verdict.to_string().replace('\n', " "),
        crate::cuda::params_struct(&LP_KIND),
        verdict.cuda_predicate()
    )
}

/// Whether `program`'s `label_score` is exactly the weighted count of the label: the default
/// hook, or a body that is just `freq`. Sketches estimate that count and nothing else, so
/// only such variants may use them. Conservative: any other body says no (`freq * 1.0` too).
pub fn score_is_frequency(program: &Program) -> bool {
    let Some(score) = program.functions.iter().find(|f| f.role == Role::Hook(LABEL_SCORE)) else {
        return true; // the default: `freq`
    };
    let freq_arg = freq_arg();
    let Some(&freq) = freq_arg.and_then(|i| score.params.get(i)) else {
        return false;
    };
    score.body.stmts.is_empty()
        && matches!(score.body.tail.as_deref().map(|t| &t.kind), Some(ExprKind::Local(l)) if *l == freq)
}

/// Whether every neighbour contributes weight exactly 1 (`load_neighbor`'s body is a single
/// tuple whose weight is the literal `1.0`, as in the default hook): the kernels then count
/// with popcounts instead of summing weights. Conservative: any other body says no.
pub fn unit_neighbor_weight(program: &Program) -> bool {
    let Some(f) = program.functions.iter().find(|f| f.role.hook_index() == Some(LOAD_NEIGHBOR)) else {
        return false;
    };
    if !f.body.stmts.is_empty() {
        return false;
    }
    match f.body.tail.as_deref().map(|t| &t.kind) {
        Some(ExprKind::Tuple(items)) => {
            matches!(items.get(1).map(|e| &e.kind), Some(ExprKind::Literal(Literal::Float(w))) if *w == 1.0)
        }
        _ => false,
    }
}

/// Whether `program`'s `load_neighbor` is the default hook's body, `(view.label(u), 1.0)`: the
/// neighbour's shown label with weight 1. The kernels then read the label at the neighbour's
/// device position themselves, which in a degree-ordered run (glp-runtime's `VertexOrder`)
/// spares the hook's two id translations per edge. Conservative: any other body says no.
pub fn default_load_neighbor(program: &Program) -> bool {
    let Some(f) = program.functions.iter().find(|f| f.role.hook_index() == Some(LOAD_NEIGHBOR)) else {
        return false;
    };
    let (Some(&view), Some(&u), Some(label)) = (f.params.first(), f.params.get(2), LP_KIND.intrinsic_index("label"))
    else {
        return false;
    };
    if !f.body.stmts.is_empty() {
        return false;
    }
    let Some(ExprKind::Tuple(items)) = f.body.tail.as_deref().map(|t| &t.kind) else {
        return false;
    };
    let local = |e: &crate::ir::Expr, id| matches!(e.kind, ExprKind::Local(l) if l == id);
    let reads_label_of_u = match items.first().map(|e| &e.kind) {
        Some(ExprKind::Intrinsic(i, args)) => {
            *i as usize == label && args.len() == 2 && local(&args[0], view) && local(&args[1], u)
        }
        _ => false,
    };
    reads_label_of_u && items.len() == 2 && matches!(items[1].kind, ExprKind::Literal(Literal::Float(w)) if w == 1.0)
}

/// Whether `program`'s first synchronous sweep is decided by the tie rule alone on a graph
/// whose rows list no target twice: `initial_label` is the default (every vertex starts
/// with its own id, so labels are all distinct), `pick_label` is not written (the sweep
/// sees those labels), `load_neighbor` is the default (each neighbour gives its label with
/// weight 1) and the score is the frequency. Every label then has frequency 1 and score 1 at
/// every vertex, so the most frequent label is the tie rule's pick among the neighbours'
/// labels: with ties to the smallest label, their minimum, which the GPU engine computes with
/// one read per edge instead of counting (`update_vertex` still runs on it). Conservative.
pub fn distinct_first_sweep(program: &Program) -> bool {
    let starts_with_own_id =
        program.functions.iter().find(|f| f.role.hook_index() == Some(INITIAL_LABEL)).is_some_and(|f| {
            let v = f.params.get(1).copied();
            f.body.stmts.is_empty()
                && matches!(f.body.tail.as_deref().map(|t| &t.kind), Some(ExprKind::Local(l)) if Some(*l) == v)
        });
    starts_with_own_id
        && !writes_hook(program, PICK_LABEL)
        && default_load_neighbor(program)
        && score_is_frequency(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_predicate_has_the_kinds_prefix() {
        assert!(PREDICATE.starts_with(LP_KIND.c_prefix));
    }

    fn compiled(source: &str) -> Program {
        super::super::compile_source(source).unwrap_or_else(|e| panic!("{}", e.render("test.rs", source))).program
    }

    #[test]
    fn only_a_score_that_is_freq_counts_as_the_frequency() {
        let default = compiled("struct A; impl LpVariant for A {}");
        assert!(score_is_frequency(&default));
        let explicit = compiled(
            "struct B; impl LpVariant for B { fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, \
             freq: f64) -> f64 { freq } }",
        );
        assert!(score_is_frequency(&explicit));
        for body in ["freq * 1.0", "freq + 0.0", "-freq", "{ let x = freq; x }", "view.degree(v) as f64", "2.0"] {
            let program = compiled(&format!(
                "struct C; impl LpVariant for C {{ fn label_score(&self, view: &View<'_>, v: VertexId, label: \
                 Label, freq: f64) -> f64 {{ {body} }} }}"
            ));
            assert!(!score_is_frequency(&program), "{body}");
        }
    }

    #[test]
    fn the_distinct_first_sweep_needs_own_ids_shown_once_and_scored_by_frequency() {
        assert!(distinct_first_sweep(&compiled("struct A; impl LpVariant for A {}")));
        let update = "fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label { v }";
        assert!(distinct_first_sweep(&compiled(&format!("struct B; impl LpVariant for B {{ {update} }}"))));
        for hook in [
            "fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label { v + 1 }",
            "fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label { 0 }",
            "fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label { view.next_label(v) }",
            "fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) { \
             (view.label(u), view.edge_weight(edge)) }",
            "fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 { freq * 2.0 }",
        ] {
            assert!(
                !distinct_first_sweep(&compiled(&format!("struct C; impl LpVariant for C {{ {hook} }}"))),
                "{hook}"
            );
        }
    }

    #[test]
    fn only_the_default_neighbor_load_is_recognised() {
        let hook = |body: &str| {
            compiled(&format!(
                "struct N; impl LpVariant for N {{ fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: \
                 VertexId, edge: EdgeId) -> (Label, f64) {{ {body} }} }}"
            ))
        };
        assert!(default_load_neighbor(&compiled("struct A; impl LpVariant for A {}")));
        assert!(default_load_neighbor(&hook("(view.label(u), 1.0)")));
        for body in [
            "(view.label(v), 1.0)",
            "(view.next_label(u), 1.0)",
            "(view.label(u), 2.0)",
            "(view.label(u), view.edge_weight(edge))",
            "(view.label(u + 0), 1.0)",
            "{ let l = view.label(u); (l, 1.0) }",
            "(u, 1.0)",
        ] {
            assert!(!default_load_neighbor(&hook(body)), "{body}");
        }
    }
}
