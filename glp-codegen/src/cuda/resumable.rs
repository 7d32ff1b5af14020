//! Resumable hooks: a hook whose body is a loop of data-dependent length (a rejection
//! sampler's draw) emitted as functions that run it one iteration at a time, so that an
//! engine with one thread per sample keeps every lane of a warp at work.
//!
//! # Why
//!
//! The lanes of a warp run a loop together until the last of them leaves it. A draw by
//! rejection takes a geometric number of attempts, so a warp's step lasts as long as its
//! longest draw: node2vec (p = 2, q = 0.5) on com-DBLP takes 1.6 attempts per step on average
//! but its warps 6.4 rounds (ncu on an H100: 8.5 of 32 lanes active). Run one attempt per
//! round instead, and let a lane whose draw ended write its vertex and begin its next step
//! in the next round while the others go on: a step then costs about its own attempts.
//!
//! # The split
//!
//! A hook's body is cut at its first top-level `while` or `loop` (*the loop*), when the
//! loop's body has no `break` or `continue` of its own:
//!
//! - `<hook>_begin` runs the statements before the loop and the loop's first test;
//! - `<hook>_attempt` runs one iteration of the loop's body (counted by the loop guard as
//!   the plain hook counts it) and the next test;
//! - `<hook>_end`, called by both when the test fails, runs the statements after the loop
//!   and the body's tail.
//!
//! Each returns whether the call finished, its value in [`RESULT`]; a `return` anywhere
//! finishes it. The locals the statements before the loop declare at the top level (the
//! only ones the loop and what follows it can see besides the arguments) live in a frame,
//! `<hook>_frame`, with the loop guard; each function binds them by reference on entry, so
//! that after inlining they stay in registers.
//!
//! Engines call `<hook>_resume(self, args.., frame, begin, result)`: with `begin` it starts a
//! call (a fresh guard from the kind's budget, `_begin`), then runs one attempt unless the
//! call already finished, and reports a loop out of steps as the plain hook's wrapper does
//! (the kind's `loop_fault`, the hook's neutral value, finished). A call runs the plain
//! hook's statements in the plain hook's order, so its value, its loop steps and its random
//! draws are the plain hook's; only other lanes' calls interleave with it. A hook that does
//! not loop, or cannot be split, gets a `_resume` that runs the whole hook at once and an
//! empty frame: an engine has one code path whatever the hook.
//!
//! # Fixed locals
//!
//! A local the statements before the loop declare by a plain (not `mut`) `let` whose value
//! is computed from the sampler's parameters (`self`'s fields), literals and other such
//! locals alone, through operators, casts and math functions, is *fixed*: it has the same
//! value at every call (node2vec's biases `1 / p`, `1 / q` and their bounds). It stays a
//! member of the frame, but `<hook>_fixed(self, frame)` sets it, once per frame, and
//! `_begin` skips its `let`: an engine calls `_fixed` before the frame's first `_resume`, so
//! that a walker pays for these values once per walk rather than once per step. Such a value
//! has no effect but its own (no draw, no read, no fault: integer division by zero does not
//! trap on the device), so computing it before the statements that preceded it changes no
//! result. A hook that does not split gets an empty `_fixed`.

use super::emit::{c_type, function_name, params_struct};
use super::function::{is_void, FunctionEmitter};
use super::loop_guard::{self, argument_names, GUARD};
use crate::ir::{Block, Expr, ExprKind, Function, LetTarget, LocalId, Stmt, StmtKind};
use std::fmt::Write as _;

/// The C name of the value a resumable hook's function finished with (a reference argument).
pub const RESULT: &str = "glp_result";

/// The C name of the frame argument.
const FRAME: &str = "glp_frame";

/// A hook's body cut at its loop (see the module docs).
pub struct Split<'f> {
    /// The statements before the loop but the fixed locals' `let`s.
    pub before: Vec<&'f Stmt>,
    /// The fixed locals (see the module docs) with their `let`s, in their order.
    pub fixed: Vec<(LocalId, &'f Stmt)>,
    /// The loop statement.
    pub the_loop: &'f Stmt,
    /// The loop's condition (`None` for `loop`).
    pub cond: Option<&'f Expr>,
    /// The loop's body.
    pub body: &'f Block,
    /// The statements after the loop.
    pub after: Vec<&'f Stmt>,
    /// The function body's value.
    pub tail: Option<&'f Expr>,
    /// The locals declared at the top level of [`Split::before`]: the frame's members.
    pub frame: Vec<LocalId>,
}

/// `f`'s body cut at its first top-level `while` or `loop`, or `None` when it has none or
/// that loop's body breaks or continues it. A body ending in a statement used as its value
/// (a `loop` left only by `return`, which the front end lowers to a block holding it) counts
/// that block's statements as the body's.
pub fn split(f: &Function) -> Option<Split<'_>> {
    let mut stmts: Vec<&Stmt> = f.body.stmts.iter().collect();
    let mut tail = f.body.tail.as_deref();
    if let Some(Expr { kind: ExprKind::Block(Block { stmts: inner, tail: None }), .. }) = tail {
        stmts.extend(inner);
        tail = None;
    }
    let at = stmts.iter().position(|s| matches!(s.kind, StmtKind::While { .. } | StmtKind::Loop { .. }))?;
    let (cond, body) = match &stmts[at].kind {
        StmtKind::While { cond, body } => (Some(cond), body),
        StmtKind::Loop { body } => (None, body),
        _ => unreachable!("the position found a loop"),
    };
    if crate::visit::jumps_out(body) {
        return None;
    }
    let frame = stmts[..at]
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Let { target, .. } => Some(crate::visit::let_locals(target)),
            _ => None,
        })
        .flatten()
        .filter(|&id| !is_void(&f.locals[id as usize].ty))
        .collect();
    let (fixed, before) = fixed_lets(f, &stmts[..at]);
    Some(Split { before, fixed, the_loop: stmts[at], cond, body, after: stmts[at + 1..].to_vec(), tail, frame })
}

/// `before`'s statements parted into the fixed locals with their `let`s (see the module docs)
/// and the others, each in their order.
fn fixed_lets<'f>(f: &Function, before: &[&'f Stmt]) -> (Vec<(LocalId, &'f Stmt)>, Vec<&'f Stmt>) {
    let mut fixed_locals = Vec::new();
    let (mut fixed, mut others) = (Vec::new(), Vec::new());
    for &stmt in before {
        let fixed_local = match &stmt.kind {
            StmtKind::Let { target: LetTarget::Local(id), init: Some(init) } => {
                let decl = &f.locals[*id as usize];
                (!decl.mutable && !is_void(&decl.ty) && fixed_by_parameters(init, &fixed_locals)).then_some(*id)
            }
            _ => None,
        };
        match fixed_local {
            Some(id) => {
                fixed_locals.push(id);
                fixed.push((id, stmt));
            }
            None => others.push(stmt),
        }
    }
    (fixed, others)
}

/// Whether `e` is computed from the parameters, literals and `fixed` locals alone, with no
/// effect but its value.
fn fixed_by_parameters(e: &Expr, fixed: &[LocalId]) -> bool {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Param(_) => true,
        ExprKind::Local(id) => fixed.contains(id),
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) => fixed_by_parameters(a, fixed),
        ExprKind::Binary(_, a, b) => fixed_by_parameters(a, fixed) && fixed_by_parameters(b, fixed),
        ExprKind::Math(_, args) => args.iter().all(|a| fixed_by_parameters(a, fixed)),
        _ => false,
    }
}

/// Appends hook number `hook`'s frame and its `_fixed`, its `_begin`, `_attempt` and `_end`
/// when it loops (`looping`) and splits, and its `_resume`, emitted by `emitter` (a fresh
/// emitter of the hook).
pub(super) fn emit_resumable_hook(mut emitter: FunctionEmitter<'_>, looping: bool, hook: usize, out: &mut String) {
    let (kind, f) = (emitter.kind, emitter.function);
    let name = function_name(kind, f);
    let split = if looping { split(f) } else { None };
    let frame = split.as_ref().map_or(&[][..], |s| &s.frame[..]);
    emitter.resumable(frame);
    let members: Vec<(String, String)> =
        frame.iter().map(|&id| (emitter.ctype(&f.locals[id as usize].ty), emitter.local_name(id))).collect();

    let _ =
        writeln!(out, "// `{}` one loop iteration at a time (glp-codegen's `cuda::resumable`).", kind.hooks[hook].name);
    let _ = writeln!(out, "struct {name}_frame {{");
    if split.is_some() {
        let _ = writeln!(out, "    glp_loop_guard {GUARD};");
    }
    for (cty, member) in &members {
        let _ = writeln!(out, "    {cty} {member};");
    }
    let _ = writeln!(out, "}};");
    let _ =
        writeln!(out, "// Sets `{}`'s fixed locals: once per frame, before its first round.", kind.hooks[hook].name);
    let _ = writeln!(
        out,
        "__device__ __forceinline__ void {name}_fixed(const {}& self, {name}_frame& {FRAME}) {{",
        params_struct(kind)
    );
    for &(id, stmt) in split.iter().flat_map(|s| &s.fixed) {
        let (cty, member) = (emitter.ctype(&f.locals[id as usize].ty), emitter.local_name(id));
        emitter.line(&format!("{cty}& {member} = {FRAME}.{member};"));
        emitter.stmt(stmt);
    }
    out.push_str(&std::mem::take(&mut emitter.out));
    let _ = writeln!(out, "}}\n");

    let mut params = loop_guard::parameters(kind, f);
    params.push(format!("{name}_frame& {FRAME}"));
    let mut args = vec!["self".to_string()];
    args.extend(argument_names(f));
    args.push(FRAME.to_string());
    let result = (!is_void(&f.ret)).then(|| format!("{}& {RESULT}", c_type(kind, &f.ret)));
    if result.is_some() {
        args.push(RESULT.to_string());
    }
    let call = |part: &str| format!("{name}_{part}({})", args.join(", "));
    let header = |emitter: &mut FunctionEmitter<'_>, part: &str, out: &mut String| {
        let mut declared = params.clone();
        declared.extend(result.clone());
        let _ = writeln!(out, "__device__ __forceinline__ bool {name}_{part}({}) {{", declared.join(", "));
        emitter.line(&format!("glp_loop_guard& {GUARD} = {FRAME}.{GUARD};"));
        for (cty, member) in &members {
            emitter.line(&format!("{cty}& {member} = {FRAME}.{member};"));
        }
    };
    let close = |emitter: &mut FunctionEmitter<'_>, out: &mut String| {
        out.push_str(&std::mem::take(&mut emitter.out));
        out.push_str("}\n\n");
    };

    if let Some(split) = &split {
        // The loop's test: a failed one ends the call (`_end`).
        let test = |emitter: &mut FunctionEmitter<'_>| {
            if let Some(cond) = split.cond {
                let c = emitter.value(cond);
                emitter.line(&format!("if (!({c})) return {};", call("end")));
            }
            emitter.line("return false;");
        };
        if split.cond.is_some() {
            header(&mut emitter, "end", out);
            for stmt in &split.after {
                emitter.stmt(stmt);
            }
            match split.tail {
                Some(tail) if tail.ty == crate::ir::Type::Never => emitter.expr_stmt(tail),
                Some(tail) if result.is_some() => {
                    let value = emitter.value(tail);
                    emitter.finish(&value);
                }
                Some(tail) => {
                    emitter.expr_stmt(tail);
                    emitter.finish("");
                }
                None => emitter.finish(""),
            }
            close(&mut emitter, out);
        }
        header(&mut emitter, "begin", out);
        for stmt in &split.before {
            emitter.stmt(stmt);
        }
        test(&mut emitter);
        close(&mut emitter, out);
        header(&mut emitter, "attempt", out);
        emitter.loop_step(split.the_loop);
        emitter.block_stmts(split.body);
        test(&mut emitter);
        close(&mut emitter, out);
    }

    let mut declared = params.clone();
    declared.push("bool glp_begin".to_string());
    declared.extend(result.clone());
    let _ = writeln!(
        out,
        "// `{}` one round: with glp_begin a new call; true when the call finished.",
        kind.hooks[hook].name
    );
    let _ = writeln!(out, "__device__ __forceinline__ bool {name}_resume({}) {{", declared.join(", "));
    if split.is_none() {
        let mut plain = vec!["self".to_string()];
        plain.extend(argument_names(f));
        let whole = format!("{name}({})", plain.join(", "));
        match result {
            Some(_) => {
                let _ = writeln!(out, "    {RESULT} = {whole};");
            }
            None => {
                let _ = writeln!(out, "    {whole};");
            }
        }
        let _ = writeln!(out, "    return true;");
        let _ = writeln!(out, "}}");
        return;
    }
    let guard = format!("{FRAME}.{GUARD}");
    let _ = writeln!(out, "    bool glp_finished = false;");
    let _ = writeln!(out, "    if (glp_begin) {{");
    let _ = writeln!(out, "        {guard} = {};", loop_guard::new_guard(kind, f, hook));
    let _ = writeln!(out, "        glp_finished = {};", call("begin"));
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "    if (!glp_finished && {guard}.site == 0u) glp_finished = {};", call("attempt"));
    let _ = writeln!(out, "    if ({guard}.site != 0u) {{");
    let _ = writeln!(out, "        {};", loop_guard::fault_call(kind, f, hook, &guard));
    if result.is_some() {
        let _ = writeln!(out, "        {RESULT} = {};", loop_guard::neutral_value(kind, f, hook));
    }
    let _ = writeln!(out, "        return true;");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "    return glp_finished;");
    let _ = writeln!(out, "}}");
}
