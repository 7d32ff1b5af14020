//! Checks that need the whole typed program: locals assigned before use (and immutable ones
//! once; see [`crate::init`]), no recursion (GPU code has no call stack to
//! speak of), every context method called only from hooks allowed to call it (directly or
//! through helpers), per-vertex state touched only by its own vertex, and loops only where a
//! step budget exists (hooks taking the context).

use crate::diag::Diagnostic;
use crate::ir::*;
use crate::program::kind::KindSpec;
use std::collections::BTreeSet;

/// Validates `program`; returns the errors found.
pub fn validate(kind: &KindSpec, program: &Program) -> Vec<Diagnostic> {
    let mut errors: Vec<Diagnostic> = program.functions.iter().flat_map(crate::init::check).collect();
    let calls: Vec<Vec<(FunctionId, SpanId)>> = program.functions.iter().map(calls_of).collect();
    let before = errors.len();
    check_recursion(program, &calls, &mut errors);
    if errors.len() == before {
        check_intrinsic_use(kind, program, &calls, &mut errors);
        check_loops_have_a_budget(kind, program, &calls, &mut errors);
    }
    errors
}

/// Every function hook `hook` (the function of that index) reaches, itself included.
fn reached_from(hook: usize, calls: &[Vec<(FunctionId, SpanId)>]) -> BTreeSet<usize> {
    let mut reached = BTreeSet::from([hook]);
    let mut stack = vec![hook];
    while let Some(g) = stack.pop() {
        for &(callee, _) in &calls[g] {
            if reached.insert(callee as usize) {
                stack.push(callee as usize);
            }
        }
    }
    reached
}

/// A loop's step budget comes from the context ([`crate::loops`]): hooks that take no context
/// (a sampler's `steps`) may not loop, themselves or through helpers.
fn check_loops_have_a_budget(
    kind: &KindSpec,
    program: &Program,
    calls: &[Vec<(FunctionId, SpanId)>],
    errors: &mut Vec<Diagnostic>,
) {
    let sites = crate::loops::loop_sites(program);
    let mut reported = BTreeSet::new();
    for (index, f) in program.functions.iter().enumerate() {
        let Some(hook) = f.role.hook_index() else { continue };
        let spec = &kind.hooks[hook];
        if spec.args.iter().any(|(_, a)| *a == crate::program::kind::HookArg::Context) {
            continue;
        }
        let reached = reached_from(index, calls);
        for site in sites.iter().filter(|s| reached.contains(&(s.function as usize))) {
            if reported.insert(site.span) {
                errors.push(
                    Diagnostic::new(site.span, format!("loops are not allowed in `{}`", spec.name))
                        .with_help(format!(
                            "`{}` takes no `{}`, which every loop's step budget comes from; compute the value without a loop",
                            spec.name,
                            kind.context_signature()
                        )),
                );
            }
        }
    }
}

/// The helper calls in `f`, in source order.
fn calls_of(f: &Function) -> Vec<(FunctionId, SpanId)> {
    let mut out = Vec::new();
    crate::visit::walk_block(&f.body, &mut |e: &Expr| {
        if let ExprKind::Call(callee, _) = e.kind {
            out.push((callee, e.span));
        }
    });
    out
}

fn check_recursion(program: &Program, calls: &[Vec<(FunctionId, SpanId)>], errors: &mut Vec<Diagnostic>) {
    // Depth-first search; a call to a function on the current path closes a cycle.
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }
    fn visit(
        f: usize,
        program: &Program,
        calls: &[Vec<(FunctionId, SpanId)>],
        state: &mut [State],
        path: &mut Vec<usize>,
        errors: &mut Vec<Diagnostic>,
    ) {
        state[f] = State::OnPath;
        path.push(f);
        for &(callee, span) in &calls[f] {
            let callee = callee as usize;
            match state[callee] {
                State::OnPath => {
                    let start = path.iter().position(|&g| g == callee).unwrap_or(0);
                    let cycle: Vec<&str> = path[start..]
                        .iter()
                        .chain(std::iter::once(&callee))
                        .map(|&g| program.functions[g].name.as_str())
                        .collect();
                    errors.push(
                        Diagnostic::new(span, format!("recursion is not supported: {}", cycle.join(" -> ")))
                            .with_help("GPU threads have a tiny stack; rewrite the recursion as a loop"),
                    );
                }
                State::New => visit(callee, program, calls, state, path, errors),
                State::Done => {}
            }
        }
        path.pop();
        state[f] = State::Done;
    }
    let mut state = vec![State::New; program.functions.len()];
    for f in 0..program.functions.len() {
        if state[f] == State::New {
            visit(f, program, calls, &mut state, &mut Vec::new(), errors);
        }
    }
}

fn check_intrinsic_use(
    kind: &KindSpec,
    program: &Program,
    calls: &[Vec<(FunctionId, SpanId)>],
    errors: &mut Vec<Diagnostic>,
) {
    let mut reported = BTreeSet::new();
    for (index, f) in program.functions.iter().enumerate() {
        let Some(hook) = f.role.hook_index() else { continue };
        let reached = reached_from(index, calls);
        for &g in &reached {
            let function = &program.functions[g];
            crate::visit::walk_block(&function.body, &mut |e: &Expr| {
                let ExprKind::Intrinsic(id, args) = &e.kind else { return };
                let spec = &kind.intrinsics[*id as usize];
                if !spec.allowed_in.contains(&hook) && reported.insert((e.span, hook)) {
                    let allowed: Vec<&str> = spec.allowed_in.iter().map(|&h| kind.hooks[h].name).collect();
                    let via = if g == index { String::new() } else { format!(" (through `{}`)", function.name) };
                    errors.push(
                        Diagnostic::new(
                            e.span,
                            format!("`{}` cannot be used in `{}`{via}", spec.name, kind.hooks[hook].name),
                        )
                        .with_help(format!("{}; allowed in: {}", spec.doc, allowed.join(", "))),
                    );
                }
                if let Some(arg) = spec.own_vertex_arg {
                    check_own_vertex(kind, function, spec.name, args.get(arg + 1), e.span, errors, &mut reported);
                }
            });
        }
    }
}

fn check_own_vertex(
    kind: &KindSpec,
    f: &Function,
    name: &str,
    arg: Option<&Expr>,
    span: SpanId,
    errors: &mut Vec<Diagnostic>,
    reported: &mut BTreeSet<(SpanId, usize)>,
) {
    let own = f.role.hook_index().and_then(|h| kind.hooks[h].vertex_arg).map(|arg| f.params[arg]);
    let ok = match (own, arg.map(|a| &a.kind)) {
        (Some(own), Some(ExprKind::Local(id))) => *id == own && !f.locals[own as usize].mutable,
        _ => false,
    };
    if !ok && reported.insert((span, usize::MAX)) {
        errors.push(
            Diagnostic::new(span, format!("`{name}` may only touch the hook's own vertex"))
                .with_help("call it directly in the hook and pass the hook's vertex argument unchanged"),
        );
    }
}
