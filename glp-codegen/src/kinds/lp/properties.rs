//! What the GPU kernels need to know about a variant's hooks, decided from its program:
//! whether its score is non-decreasing in `freq` (the high-degree kernel's sketch bound;
//! the generic [`crate::analysis::monotone`] answers), whether the score is the label's
//! weighted count (the sketch strategies), whether every neighbour weighs 1 (popcounts
//! instead of sums). Each is conservative: "no" is always correct.

use super::{LABEL_SCORE, LOAD_NEIGHBOR, LP_KIND};
use crate::analysis::monotone::{monotonicity, Monotonicity, Query};
use crate::ir::{ExprKind, Literal, Program, Role};

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
}
