//! One function of a program as CUDA: [`FunctionEmitter`] writes its statements and
//! expressions with Rust's semantics (see [`super::emit`] for the rules), hoisting `if`,
//! `match` and blocks used as values into statements; [`super::emit`] calls it for every
//! function, [`super::resumable`] for the parts of a resumable hook.

use super::emit::{
    binary, c_scalar, c_type, cast, comparison_name, literal, math, pattern_condition, tuple_name, wrapping,
};
use super::namer::Namer;
use super::{loop_guard, resumable};
use crate::ir::*;
use crate::program::kind::KindSpec;
use std::fmt::Write as _;

pub(super) struct FunctionEmitter<'a> {
    pub(super) kind: &'a KindSpec,
    pub(super) function: &'a Function,
    program: &'a Program,
    /// Per function of the program: whether it loops (takes the step counter).
    looping: &'a [bool],
    /// The site code of each loop of this function, by the loop statement's span.
    site_codes: Vec<(SpanId, usize)>,
    namer: Namer,
    names: Vec<String>,
    /// Per local: whether it lives in a resumable hook's frame ([`resumable`]): its `let`
    /// assigns the member, which the function binds by reference on entry.
    frame: Vec<bool>,
    /// Whether this emits one of a resumable hook's functions ([`resumable`]): a `return`
    /// stores its value in [`resumable::RESULT`] and returns true (the call finished), and a
    /// loop out of steps returns false (the caller reads the guard).
    resumable: bool,
    pub(super) out: String,
    pub(super) indent: usize,
}

impl<'a> FunctionEmitter<'a> {
    pub(super) fn new(
        kind: &'a KindSpec,
        program: &'a Program,
        function: &'a Function,
        looping: &'a [bool],
        site_codes: Vec<(SpanId, usize)>,
    ) -> Self {
        let mut namer = Namer::default();
        // Arguments keep the names the prototype gave them.
        let mut names = vec![String::new(); function.locals.len()];
        for &p in &function.params {
            names[p as usize] = namer.name(&function.locals[p as usize].name);
        }
        let frame = vec![false; function.locals.len()];
        FunctionEmitter {
            kind,
            program,
            function,
            looping,
            site_codes,
            namer,
            names,
            frame,
            resumable: false,
            out: String::new(),
            indent: 1,
        }
    }

    /// Switches to emitting a resumable hook's functions whose frame holds `frame`: names
    /// them first, in order, so that every function of the hook gives them the same names.
    pub(super) fn resumable(&mut self, frame: &[LocalId]) {
        self.resumable = true;
        for &id in frame {
            self.frame[id as usize] = true;
            self.local_name(id);
        }
    }

    /// Counts one iteration of the loop `stmt` (first statement of its body).
    pub(super) fn loop_step(&mut self, stmt: &Stmt) {
        // Every loop statement is in the site table the codes come from (same program).
        let site = self.site_codes.iter().find(|(span, _)| *span == stmt.span).map(|&(_, code)| code);
        let site = site.unwrap_or_else(|| panic!("a loop of `{}` missing from its site table", self.function.name));
        let step = if self.resumable {
            loop_guard::step_returning(site, " false")
        } else {
            loop_guard::step(site, &self.function.ret)
        };
        self.line(&step);
    }

    /// `{type} {name} = {value};` declaring local `id`, or `{name} = {value};` for a frame
    /// local; `value` `None` gives the zero of the type.
    fn declare(&mut self, id: LocalId, value: Option<&str>) {
        let cty = self.ctype(&self.function.locals[id as usize].ty);
        let name = self.local_name(id);
        let line = match (self.frame[id as usize], value) {
            (false, Some(v)) => format!("{cty} {name} = {v};"),
            (false, None) => format!("{cty} {name}{{}};"),
            (true, Some(v)) => format!("{name} = {v};"),
            (true, None) => format!("{name} = {{}};"),
        };
        self.line(&line);
    }

    pub(super) fn emit(mut self, prototype: &str, out: &mut String) {
        let _ = writeln!(out, "{prototype} {{");
        let body = &self.function.body;
        let returns_value = !matches!(self.function.ret, Type::Unit);
        for stmt in &body.stmts {
            self.stmt(stmt);
        }
        if let Some(tail) = &body.tail {
            if tail.ty == Type::Never {
                self.expr_stmt(tail);
            } else if returns_value {
                let value = self.expr(tail);
                self.line(&format!("return {value};"));
            } else {
                self.expr_stmt(tail);
            }
        }
        out.push_str(&self.out);
        out.push_str("}\n");
    }

    pub(super) fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    pub(super) fn local_name(&mut self, id: LocalId) -> String {
        if self.names[id as usize].is_empty() {
            let name = self.namer.name(&self.function.locals[id as usize].name);
            self.names[id as usize] = name;
        }
        self.names[id as usize].clone()
    }

    pub(super) fn ctype(&self, ty: &Type) -> String {
        c_type(self.kind, ty)
    }

    pub(super) fn block_stmts(&mut self, block: &Block) {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
        if let Some(tail) = &block.tail {
            self.expr_stmt(tail);
        }
    }

    /// Emits `block`, writing its value to `target`.
    fn block_into(&mut self, block: &Block, target: Option<&str>) {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
        if let Some(tail) = &block.tail {
            self.expr_into(tail, target);
        }
    }

    /// Emits `e` as a statement, writing its value to `target` if given.
    pub(super) fn expr_into(&mut self, e: &Expr, target: Option<&str>) {
        match (&e.kind, target) {
            (ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(_), _) => self.control_flow(e, target),
            (_, Some(t)) if e.ty != Type::Never => {
                let value = self.expr(e);
                self.line(&format!("{t} = {value};"));
            }
            _ => self.expr_stmt(e),
        }
    }

    pub(super) fn expr_stmt(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(_) => self.control_flow(e, None),
            _ => {
                let value = self.expr(e);
                self.line(&format!("{value};"));
            }
        }
    }

    /// `if`, `match` and blocks as statements.
    fn control_flow(&mut self, e: &Expr, target: Option<&str>) {
        match &e.kind {
            ExprKind::If { cond, then, otherwise } => {
                let c = self.expr(cond);
                self.line(&format!("if ({c}) {{"));
                self.indent += 1;
                self.block_into(then, target);
                self.indent -= 1;
                match otherwise {
                    None => self.line("}"),
                    Some(other) => {
                        self.line("} else {");
                        self.indent += 1;
                        self.expr_into(other, target);
                        self.indent -= 1;
                        self.line("}");
                    }
                }
            }
            ExprKind::Match { scrutinee, arms } => {
                let s = self.expr(scrutinee);
                let ty = scrutinee.ty.scalar().unwrap_or(Scalar::I32);
                let tmp = self.namer.temp();
                self.line(&format!("const {} {tmp} = {s};", c_scalar(ty)));
                let mut first = true;
                for arm in arms {
                    let keyword = if first { "if" } else { "} else if" };
                    if arm.patterns.is_empty() {
                        self.line(if first { "{" } else { "} else {" });
                    } else {
                        let conds: Vec<String> = arm.patterns.iter().map(|p| pattern_condition(&tmp, *p, ty)).collect();
                        self.line(&format!("{keyword} ({}) {{", conds.join(" || ")));
                    }
                    first = false;
                    self.indent += 1;
                    self.expr_into(&arm.body, target);
                    self.indent -= 1;
                    if arm.patterns.is_empty() {
                        break;
                    }
                }
                self.line("}");
            }
            ExprKind::Block(b) if b.stmts.is_empty() => {
                if let Some(tail) = &b.tail {
                    self.expr_into(tail, target);
                }
            }
            ExprKind::Block(b) => {
                self.line("{");
                self.indent += 1;
                self.block_into(b, target);
                self.indent -= 1;
                self.line("}");
            }
            _ => self.expr_into(e, target),
        }
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Let { target, init } => match target {
                LetTarget::Local(id) if is_void(&self.function.locals[*id as usize].ty) => {
                    // `let u = ();`, `let _ = view.count_label(l);`: C has no void variables.
                    if let Some(e) = init {
                        self.expr_into(e, None);
                    }
                }
                LetTarget::Local(id) => match init {
                    Some(e) if needs_statements(e) => {
                        self.declare(*id, None);
                        let name = self.local_name(*id);
                        self.expr_into(e, Some(&name));
                    }
                    Some(e) => {
                        let value = self.expr(e);
                        self.declare(*id, Some(&value));
                    }
                    None => self.declare(*id, None),
                },
                LetTarget::Tuple(items) => {
                    let Some(e) = init else {
                        // `let (a, b);`: assigned later.
                        for id in items.iter().flatten() {
                            self.declare(*id, None);
                        }
                        return;
                    };
                    let tmp = self.namer.temp();
                    let cty = self.ctype(&e.ty);
                    if needs_statements(e) {
                        self.line(&format!("{cty} {tmp}{{}};"));
                        self.expr_into(e, Some(&tmp));
                    } else {
                        let value = self.expr(e);
                        self.line(&format!("const {cty} {tmp} = {value};"));
                    }
                    for (i, item) in items.iter().enumerate() {
                        if let Some(id) = item {
                            self.declare(*id, Some(&format!("{tmp}._{i}")));
                        }
                    }
                }
            },
            StmtKind::Assign { target, value, .. } if is_void(&self.function.locals[*target as usize].ty) => {
                self.expr_into(value, None);
            }
            StmtKind::Assign { target, op, value } => {
                let name = self.local_name(*target);
                let ty = self.function.locals[*target as usize].ty.scalar().unwrap_or(Scalar::I32);
                if needs_statements(value) {
                    let tmp = self.namer.temp();
                    self.line(&format!("{} {tmp}{{}};", c_scalar(ty)));
                    self.expr_into(value, Some(&tmp));
                    let rhs = match op {
                        Some(op) => binary(*op, &name, &tmp, ty, value.ty.scalar().unwrap_or(ty)),
                        None => tmp,
                    };
                    self.line(&format!("{name} = {rhs};"));
                } else {
                    let v = self.expr(value);
                    let rhs = match op {
                        Some(op) => binary(*op, &name, &v, ty, value.ty.scalar().unwrap_or(ty)),
                        None => v,
                    };
                    self.line(&format!("{name} = {rhs};"));
                }
            }
            StmtKind::Expr(e) => self.expr_stmt(e),
            StmtKind::While { cond, body } => {
                if needs_statements(cond) {
                    self.line("while (true) {");
                    self.indent += 1;
                    let tmp = self.namer.temp();
                    self.line(&format!("bool {tmp}{{}};"));
                    self.expr_into(cond, Some(&tmp));
                    self.line(&format!("if (!{tmp}) break;"));
                } else {
                    let c = self.expr(cond);
                    self.line(&format!("while ({c}) {{"));
                    self.indent += 1;
                }
                self.loop_step(stmt);
                self.block_stmts(body);
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Loop { body } => {
                self.line("while (true) {");
                self.indent += 1;
                self.loop_step(stmt);
                self.block_stmts(body);
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::For { var, start, end, inclusive, body } => {
                let ty = self.function.locals[*var as usize].ty.scalar().unwrap_or(Scalar::I32);
                let cty = c_scalar(ty);
                // The end is computed before the loop variable is set: keep Rust's order.
                let [s, e]: [String; 2] =
                    self.operands(&[start, end], false).try_into().expect("two operands give two values");
                let name = self.local_name(*var);
                let end_tmp = self.namer.temp();
                self.line("{");
                self.indent += 1;
                self.line(&format!("const {cty} {end_tmp} = {e};"));
                if *inclusive {
                    // `a..=b` may end at the type's maximum: test before stepping.
                    let next = self.namer.temp();
                    let more = self.namer.temp();
                    self.line(&format!("{cty} {next} = {s};"));
                    self.line(&format!("bool {more} = {next} <= {end_tmp};"));
                    self.line(&format!("while ({more}) {{"));
                    self.indent += 1;
                    self.line(&format!("const {cty} {name} = {next};"));
                    self.line(&format!("{more} = {next} != {end_tmp};"));
                    self.line(&format!("{next} = {};", wrapping(BinaryOp::Add, &next, &format!("(({cty})1)"), ty)));
                } else {
                    self.line(&format!("for ({cty} {name} = {s}; {name} < {end_tmp}; ++{name}) {{"));
                    self.indent += 1;
                }
                self.loop_step(stmt);
                self.block_stmts(body);
                self.indent -= 1;
                self.line("}");
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Return(None) if self.resumable => self.line("return true;"),
            StmtKind::Return(None) => self.line("return;"),
            StmtKind::Return(Some(e)) => {
                let v = self.value(e);
                if self.resumable {
                    self.finish(&v);
                } else {
                    self.line(&format!("return {v};"));
                }
            }
        }
    }

    /// Ends a resumable hook's call with `value` (a C expression of the hook's type, or empty
    /// for a unit hook).
    pub(super) fn finish(&mut self, value: &str) {
        if !value.is_empty() && !is_void(&self.function.ret) {
            self.line(&format!("{} = {value};", resumable::RESULT));
        }
        self.line("return true;");
    }

    /// The value of `e`, hoisting statements into a temporary when it needs them.
    pub(super) fn value(&mut self, e: &Expr) -> String {
        if is_void(&e.ty) && needs_statements(e) {
            // No value to keep (C has no void variables): run the statements.
            self.expr_into(e, None);
            return "((void)0)".to_string();
        }
        if needs_statements(e) {
            let tmp = self.namer.temp();
            let cty = self.ctype(&e.ty);
            self.line(&format!("{cty} {tmp}{{}};"));
            self.expr_into(e, Some(&tmp));
            tmp
        } else {
            self.expr(e)
        }
    }

    /// The values of operands, arguments or tuple elements, which Rust evaluates left to
    /// right. Two things could break that order in C: the statements a later operand
    /// hoists run before the whole expression (`a + { a = 5; a }` must read the old `a`), and
    /// C leaves the order of operands and arguments unspecified (calls of helpers and of the
    /// context's methods may have effects). So an operand is first copied to a temporary
    /// when a later one hoists statements and it reads mutable locals or calls something, or
    /// when both it and a later operand call something. `braced` operands (a braced
    /// initializer, which C++ evaluates in order) need the first rule only.
    fn operands(&mut self, items: &[&Expr], braced: bool) -> Vec<String> {
        let mut values = Vec::with_capacity(items.len());
        for (i, e) in items.iter().enumerate() {
            let hoisted = needs_statements(e);
            let v = self.value(e);
            let later = &items[i + 1..];
            let copy = !hoisted
                && !is_void(&e.ty)
                && e.ty != Type::Context
                && ((later.iter().any(|x| needs_statements(x)) && !self.is_stable(e))
                    || (!braced && has_calls(e) && later.iter().any(|x| has_calls(x))));
            if copy {
                let tmp = self.namer.temp();
                self.line(&format!("const {} {tmp} = {v};", self.ctype(&e.ty)));
                values.push(tmp);
            } else {
                values.push(v);
            }
        }
        values
    }

    /// Whether `e`'s value cannot change while other operands are evaluated: it calls nothing
    /// and reads no mutable local.
    fn is_stable(&self, e: &Expr) -> bool {
        let mut stable = true;
        crate::visit::walk_expr(e, &mut |x: &Expr| match x.kind {
            ExprKind::Call(..) | ExprKind::Intrinsic(..) => stable = false,
            ExprKind::Local(id) => stable &= !self.function.locals[id as usize].mutable,
            _ => {}
        });
        stable
    }

    /// A C expression for `e`. Sub-expressions that need statements are hoisted first, in
    /// evaluation order (short-circuit operators keep theirs).
    pub(super) fn expr(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Literal(l) => literal(*l, e.ty.scalar().unwrap_or(Scalar::I32)),
            ExprKind::Local(id) if is_void(&self.function.locals[*id as usize].ty) => "((void)0)".to_string(),
            ExprKind::Local(id) => self.local_name(*id),
            ExprKind::Param(p) => format!("self.{}", self.program.params[*p as usize].name),
            ExprKind::Unary(op, inner) => {
                let v = self.value(inner);
                let ty = e.ty.scalar().unwrap_or(Scalar::I32);
                match (op, ty) {
                    (UnaryOp::Neg, s) if s.is_integer() => {
                        wrapping(BinaryOp::Sub, &format!("(({})0)", c_scalar(s)), &v, s)
                    }
                    (UnaryOp::Neg, _) => format!("(-{v})"),
                    (UnaryOp::Not, Scalar::Bool) => format!("(!{v})"),
                    (UnaryOp::Not, s) => format!("(({})~{v})", c_scalar(s)),
                }
            }
            ExprKind::Binary(op, a, b) if op.is_logical() && needs_statements(b) => {
                // Keep the short circuit: evaluate the right side only when needed.
                let tmp = self.namer.temp();
                let left = self.value(a);
                self.line(&format!("bool {tmp} = {left};"));
                let test = if *op == BinaryOp::And { tmp.clone() } else { format!("!{tmp}") };
                self.line(&format!("if ({test}) {{"));
                self.indent += 1;
                self.expr_into(b, Some(&tmp));
                self.indent -= 1;
                self.line("}");
                tmp
            }
            ExprKind::Binary(op, a, b) if op.is_comparison() && matches!(a.ty, Type::Tuple(_)) => {
                // C structs have no operators: the program defines a comparison function
                // per compared tuple type.
                let [x, y]: [String; 2] =
                    self.operands(&[a, b], false).try_into().expect("two operands give two values");
                let name = tuple_name(if let Type::Tuple(items) = &a.ty { items } else { &[] });
                match op {
                    BinaryOp::Ne => format!("(!{name}_eq({x}, {y}))"),
                    _ => format!("{name}_{}({x}, {y})", comparison_name(*op)),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let [x, y]: [String; 2] =
                    self.operands(&[a, b], false).try_into().expect("two operands give two values");
                let ty = a.ty.scalar().unwrap_or(Scalar::I32);
                let rhs_ty = b.ty.scalar().unwrap_or(ty);
                binary(*op, &x, &y, ty, rhs_ty)
            }
            ExprKind::Cast(inner, target) => {
                let v = self.value(inner);
                cast(&v, inner.ty.scalar().unwrap_or(Scalar::I32), *target)
            }
            ExprKind::Tuple(items) if items.is_empty() => "((void)0)".to_string(),
            ExprKind::Tuple(items) => {
                // A braced initializer: C++ evaluates it left to right.
                let values = self.operands(&items.iter().collect::<Vec<_>>(), true);
                format!("{}{{{}}}", self.ctype(&e.ty), values.join(", "))
            }
            ExprKind::TupleField(base, index) => {
                let v = self.value(base);
                format!("{v}._{index}")
            }
            ExprKind::Call(f, args) => {
                let callee = &self.program.functions[*f as usize];
                let looping = self.looping.get(*f as usize).copied().unwrap_or(false);
                let mut values = vec!["self".to_string()];
                values.extend(self.operands(&args.iter().collect::<Vec<_>>(), false));
                if looping {
                    // A caller of a looping function loops too: it holds the hook call's counter.
                    values.push(loop_guard::GUARD.to_string());
                }
                format!("{}({})", loop_guard::body_name(self.kind, callee, looping), values.join(", "))
            }
            ExprKind::Intrinsic(id, args) => {
                let spec = &self.kind.intrinsics[*id as usize];
                let values = self.operands(&args.iter().collect::<Vec<_>>(), false);
                format!("{}{}({})", self.kind.c_prefix, spec.name, values.join(", "))
            }
            ExprKind::Math(f, args) => {
                let values = self.operands(&args.iter().collect::<Vec<_>>(), false);
                math(*f, &values, args[0].ty.scalar().unwrap_or(Scalar::F64))
            }
            ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(_) => self.value(e),
            ExprKind::Error => "0".to_string(),
        }
    }
}

/// Whether `e` contains an `if`, `match` or block (which C cannot write as an expression).
pub(super) fn needs_statements(e: &Expr) -> bool {
    let mut found = false;
    crate::visit::walk_expr(e, &mut |x: &Expr| {
        found |= matches!(x.kind, ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(_));
    });
    found
}

/// Whether `e` calls a helper or a method of the context.
fn has_calls(e: &Expr) -> bool {
    let mut found = false;
    crate::visit::walk_expr(e, &mut |x: &Expr| {
        found |= matches!(x.kind, ExprKind::Call(..) | ExprKind::Intrinsic(..));
    });
    found
}

/// Types without values in C (`()` and never): no variable can hold them.
pub(super) fn is_void(ty: &Type) -> bool {
    matches!(ty, Type::Unit | Type::Never)
}
