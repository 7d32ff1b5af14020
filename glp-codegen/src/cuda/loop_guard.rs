//! The CUDA side of loop step budgets ([`crate::loops`]): the names and signatures of the
//! functions that take a step counter, and the wrapper that gives a looping hook its counter
//! and reports it when its loops ran out.

use super::emit::{c_type, function_name, literal, params_struct};
use super::namer::Namer;
use crate::ir::{Function, Literal, Type};
use crate::program::kind::{HookArg, KindSpec, Neutral};
use std::fmt::Write as _;

/// The C name of the step counter (`glp_loop_guard&`) in every function that loops; user
/// bindings never start with `glp_` ([`Namer`]).
pub const GUARD: &str = "glp_loops";

/// The C name of `f`'s body: a hook that loops is emitted as `<hook>_loops` taking the step
/// counter, under a wrapper of its own name ([`emit_hook_wrapper`]); every other function
/// keeps its name (a helper that loops takes the counter of the hook calling it).
pub fn body_name(kind: &KindSpec, f: &Function, looping: bool) -> String {
    let name = function_name(kind, f);
    if looping && f.role.hook_index().is_some() {
        format!("{name}_loops")
    } else {
        name
    }
}

/// The C names of `f`'s arguments (the order a fresh [`Namer`] gives them, as the body uses).
pub fn argument_names(f: &Function) -> Vec<String> {
    let mut namer = Namer::default();
    f.params.iter().map(|&p| namer.name(&f.locals[p as usize].name)).collect()
}

/// The declared parameters every emitted function of `f` starts with: the parameter block
/// and `f`'s arguments.
pub fn parameters(kind: &KindSpec, f: &Function) -> Vec<String> {
    let mut args = vec![format!("const {}& self", params_struct(kind))];
    for (&p, name) in f.params.iter().zip(argument_names(f)) {
        args.push(format!("{} {name}", c_type(kind, &f.locals[p as usize].ty)));
    }
    args
}

/// The declaration of `f`'s body: the parameter block, its arguments and, when it loops, the
/// step counter.
pub fn prototype(kind: &KindSpec, f: &Function, looping: bool) -> String {
    let mut args = parameters(kind, f);
    if looping {
        args.push(format!("glp_loop_guard& {GUARD}"));
    }
    format!("__device__ __forceinline__ {} {}({})", c_type(kind, &f.ret), body_name(kind, f, looping), args.join(", "))
}

/// The statement that counts one iteration of loop `site` in a function returning `ret`:
/// once the budget is spent, the function returns the zero of its type at once.
pub fn step(site: usize, ret: &Type) -> String {
    step_returning(site, if matches!(ret, Type::Unit | Type::Never) { "" } else { " {}" })
}

/// [`step`] returning `value` (with its leading space) once the budget is spent.
pub fn step_returning(site: usize, value: &str) -> String {
    format!("if (glp_loop_exhausted({GUARD}, {site}u)) return{value};")
}

/// Appends the wrapper of hook `f` (number `hook` of the kind), whose body loops: it creates
/// the step counter from the kind's budget, calls the body, and when a loop ran out records
/// the site, the hook and the vertex with the kind's `loop_fault` and returns the hook's
/// neutral value.
pub fn emit_hook_wrapper(kind: &KindSpec, f: &Function, hook: usize, out: &mut String) {
    let mut args = vec!["self".to_string()];
    args.extend(argument_names(f));
    args.push(GUARD.to_string());
    let call = format!("{}({})", body_name(kind, f, true), args.join(", "));
    let void = matches!(f.ret, Type::Unit | Type::Never);
    let _ = writeln!(out, "// `{}` with the step budget of its loops (glp-codegen's `loops`).", kind.hooks[hook].name);
    let _ = writeln!(out, "{} {{", prototype(kind, f, false));
    let _ = writeln!(out, "    glp_loop_guard {GUARD} = {};", new_guard(kind, f, hook));
    if void {
        let _ = writeln!(out, "    {call};");
    } else {
        let _ = writeln!(out, "    const {} glp_value = {call};", c_type(kind, &f.ret));
    }
    let _ = writeln!(out, "    if ({GUARD}.site != 0u) {{");
    let _ = writeln!(out, "        {};", fault_call(kind, f, hook, GUARD));
    if void {
        let _ = writeln!(out, "        return;");
        let _ = writeln!(out, "    }}");
    } else {
        let _ = writeln!(out, "        return {};", neutral_value(kind, f, hook));
        let _ = writeln!(out, "    }}");
        let _ = writeln!(out, "    return glp_value;");
    }
    let _ = writeln!(out, "}}");
}

/// A fresh step counter for one call of hook `f` (number `hook` of the kind), from the
/// kind's budget.
pub fn new_guard(kind: &KindSpec, f: &Function, hook: usize) -> String {
    format!("glp_loop_guard_new({}loop_budget({}))", kind.c_prefix, context_name(kind, f, hook))
}

/// The call of the kind's `loop_fault` reporting that `guard` (a C `glp_loop_guard`) ran out
/// in hook `f` (number `hook` of the kind).
///
/// Panics if the kind's hook takes no context (every kind's hooks do: the budget and the
/// fault record are the context's).
pub fn fault_call(kind: &KindSpec, f: &Function, hook: usize, guard: &str) -> String {
    let spec = &kind.hooks[hook];
    let names = argument_names(f);
    let vertex = spec.vertex_arg.map_or("0u", |arg| names[arg].as_str());
    format!("{}loop_fault({}, {guard}.site, {hook}u, {vertex})", kind.c_prefix, context_name(kind, f, hook))
}

/// The C name of hook `f`'s context argument (the kind's view), for its loop budget.
pub fn context_name(kind: &KindSpec, f: &Function, hook: usize) -> String {
    let spec = &kind.hooks[hook];
    let context = spec
        .args
        .iter()
        .position(|(_, a)| *a == HookArg::Context)
        .unwrap_or_else(|| panic!("hook `{}` of kind `{}` takes no context", spec.name, kind.trait_name));
    argument_names(f).swap_remove(context)
}

/// The C value of hook `f`'s neutral value (number `hook` of the kind), what it returns when
/// its loops ran out.
pub fn neutral_value(kind: &KindSpec, f: &Function, hook: usize) -> String {
    neutral(kind, kind.hooks[hook].neutral, &f.ret, &argument_names(f))
}

/// The C value of a hook's neutral value `items` for return type `ret`.
fn neutral(kind: &KindSpec, items: &[Neutral], ret: &Type, names: &[String]) -> String {
    let scalars = match ret {
        Type::Scalar(s) => vec![*s],
        Type::Tuple(items) => items.clone(),
        _ => Vec::new(),
    };
    // A lone `Zero` zeroes every scalar, whatever the shape (a declared type's neutral).
    let zeros = vec![Neutral::Zero; scalars.len()];
    let items = if items == [Neutral::Zero] { &zeros[..] } else { items };
    let values: Vec<String> = items
        .iter()
        .zip(&scalars)
        .map(|(n, &ty)| match *n {
            Neutral::Zero => literal(Literal::Int(0), ty),
            Neutral::Constant(name) => match kind.constant(name) {
                Some(c) => literal(Literal::Int(c.value), ty),
                None => panic!("neutral value: `{name}` is not a constant of kind `{}`", kind.trait_name),
            },
            Neutral::Arg(i) => names[i].clone(),
        })
        .collect();
    assert_eq!(values.len(), scalars.len(), "the neutral value of a `{ret}` hook of kind `{}`", kind.trait_name);
    match ret {
        Type::Tuple(_) => format!("{}{{{}}}", c_type(kind, ret), values.join(", ")),
        _ => values.join(""),
    }
}
