//! Loop step budgets: every loop of a program counts its iterations, so a hook that never
//! ends (`while true {}`, a `loop` without a reachable `break`, a `for` whose end was
//! computed wrongly) stops with an error instead of hanging the CPU or the GPU.
//!
//! # Design
//!
//! - The unit is one *call* of a function by its embedder (a hook called by an engine):
//!   every iteration of every loop that call runs counts one step, the loops of the
//!   functions it calls included (nested loops count their inner iterations). The budget is
//!   a number the embedder passes in per call ([`crate::interp::Host::loop_budget`] on the
//!   CPU, the kind's `loop_budget(context)` on the GPU), so a kind can derive it from its
//!   input ([`default_loop_budget`]) and tests can set a small
//!   one. A call may run exactly `budget` iterations; the next one is the error.
//! - A step is counted when a loop's body is entered (before `for`'s variable is read, after
//!   `while`'s condition held), the same on both back ends, so the CPU and the GPU stop at the
//!   same iteration.
//! - Interpreter: running out is [`crate::interp::RuntimeError::LoopBudget`] with the
//!   location of the loop (its `while`, `loop` or `for` keyword) and the budget.
//! - CUDA: one counter per hook call, in a `glp_loop_guard` (the prelude) that the hook
//!   creates and passes by reference to the functions it calls that loop; after inlining it
//!   lives in registers. Each iteration costs one increment and one compare
//!   (`glp_loop_exhausted`); functions that never loop, themselves or through their calls,
//!   are emitted exactly as before. Running out records the loop's *site* (its index in
//!   [`loop_sites`], from 1) in the guard and returns from the function at once (with the zero
//!   of its type); the functions it returns to stop at their next loop iteration for the same
//!   reason. A hook that loops is emitted as `<hook>_loops` (the body, taking the guard)
//!   and a wrapper of the hook's own name and signature that creates the guard, and, when a
//!   site was recorded, calls the kind's `loop_fault(context, site, hook, vertex)` and returns
//!   the hook's neutral value ([`crate::program::kind::HookSpec::neutral`]). The host maps the site
//!   back to the function and the source location with [`loop_sites`].
//!
//! Natively compiled hooks (the `#[glp::lp_variant]` macro keeps the user's item unchanged
//! for the CPU) run as plain Rust: their loops are rustc's, with no budget. The CUDA emitted
//! from them has the budget like any other.

mod budget;

pub use budget::{decode_loop_fault, default_loop_budget, LoopFault, LOOP_SITE_FAULT};

use crate::ir::{ExprKind, FunctionId, Program, SpanId, StmtKind};

/// A loop of a program: the function it is in and the span of its statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSite {
    pub function: FunctionId,
    pub span: SpanId,
}

/// Every `while`, `loop` and `for` of `program`, in the order their site codes count from 1:
/// functions in program order, each one's loops in source order (an outer loop before the
/// loops of its body).
pub fn loop_sites(program: &Program) -> Vec<LoopSite> {
    let mut sites = Vec::new();
    for (i, f) in program.functions.iter().enumerate() {
        crate::visit::walk_stmts(&f.body, &mut |s| {
            if matches!(s.kind, StmtKind::While { .. } | StmtKind::Loop { .. } | StmtKind::For { .. }) {
                sites.push(LoopSite { function: i as FunctionId, span: s.span });
            }
        });
    }
    sites
}

/// Per function of `program`: whether a call of it may run a loop, in its own body or in a
/// function it calls (those need a step counter).
pub fn looping_functions(program: &Program) -> Vec<bool> {
    let mut looping = vec![false; program.functions.len()];
    for site in loop_sites(program) {
        looping[site.function as usize] = true;
    }
    let calls: Vec<Vec<FunctionId>> = program
        .functions
        .iter()
        .map(|f| {
            let mut callees = Vec::new();
            crate::visit::walk_block(&f.body, &mut |e| {
                if let ExprKind::Call(callee, _) = e.kind {
                    callees.push(callee);
                }
            });
            callees
        })
        .collect();
    // Calls form a DAG (recursion is rejected); iterate to a fixed point all the same.
    let mut changed = true;
    while changed {
        changed = false;
        for (i, callees) in calls.iter().enumerate() {
            if !looping[i] && callees.iter().any(|&c| looping.get(c as usize).copied().unwrap_or(false)) {
                looping[i] = true;
                changed = true;
            }
        }
    }
    looping
}
