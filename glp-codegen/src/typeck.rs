//! Type checking and inference: Rust's rules for the subset.
//!
//! Every expression gets a type. Unsuffixed literals, locals without annotation and
//! parameters whose field type the compiler cannot see start as inference variables; they
//! are unified through the operators, calls and assignments they take part in (union-find),
//! and default as rustc defaults them (integers to `i32`, floats to `f64`). A parameter
//! whose type stays unknown is an error asking for an annotation: the macro sees only the
//! impl, and the type it infers for each parameter is checked against the real field type
//! by rustc in the generated code.

use crate::diag::Diagnostic;
use crate::frontend::{Lowered, VarKind};
use crate::ir::*;
use crate::program::kind::KindSpec;

/// Infers and checks the types of `lowered`; errors are appended to its diagnostics.
pub fn check(kind: &KindSpec, lowered: &mut Lowered) {
    let mut checker = Checker {
        kind,
        vars: lowered.vars.iter().map(|k| Slot::Unbound(*k)).collect(),
        parent: (0..lowered.vars.len() as u32).collect(),
        errors: Vec::new(),
        signatures: lowered.program.functions.iter().map(|f| (arg_types(f), f.ret.clone())).collect(),
        locals: Vec::new(),
        params: Vec::new(),
        ret: Type::Unit,
        deferred: Vec::new(),
    };
    // Parameter types: known scalars, or the variables the front end made.
    let program = &mut lowered.program;
    let mut param_types: Vec<Type> = program.params.iter().map(|p| Type::Scalar(p.ty)).collect();
    for (var, kind) in lowered.vars.iter().enumerate() {
        if let VarKind::Param(p) = kind {
            param_types[*p as usize] = Type::Var(var as u32);
        }
    }
    checker.params = param_types.clone();
    for f in &mut program.functions {
        checker.locals = f.locals.iter().map(|l| l.ty.clone()).collect();
        checker.ret = f.ret.clone();
        let body_ty = checker.block_with(&mut f.body, Some(&f.ret));
        let ret = f.ret.clone();
        checker.unify(&body_ty, &ret, f.body.tail.as_ref().map_or(f.span, |t| t.span), "the function's return type");
        for (decl, ty) in f.locals.iter_mut().zip(&checker.locals) {
            decl.ty = ty.clone();
        }
    }
    // Requirements on types unknown when they were met (`!x` with `x` still open: an
    // integer or a bool), checked now that inference is done.
    for (ty, class, span, what) in std::mem::take(&mut checker.deferred) {
        if !matches!(checker.resolve(&ty), Type::Var(_)) {
            checker.require(&ty, class, span, &what);
        }
    }
    // Resolve every variable and write the final types back.
    let mut unresolved_params = Vec::new();
    for (i, ty) in param_types.iter().enumerate() {
        match checker.resolve(ty) {
            Type::Scalar(s) => program.params[i].ty = s,
            _ => unresolved_params.push(i),
        }
    }
    for i in unresolved_params {
        let name = &program.params[i].name;
        checker.errors.push(
            Diagnostic::new(lowered.param_uses[i], format!("cannot infer the type of parameter `{name}`"))
                .with_help(format!("annotate it where it is read, e.g. `let {name}: f64 = self.{name};`")),
        );
    }
    for f in &mut program.functions {
        for decl in &mut f.locals {
            decl.ty = checker.finalize(&decl.ty);
            if matches!(decl.ty, Type::Var(_)) {
                let message = format!("type annotations needed for `{}`", decl.name);
                checker.errors.push(Diagnostic::new(decl.span, message));
                decl.ty = Type::Error;
            }
        }
        crate::visit::walk_block_mut(&mut f.body, &mut |e: &mut Expr| {
            e.ty = checker.finalize(&e.ty);
        });
        check_final(&f.body, &mut checker.errors);
    }
    lowered.diagnostics.errors.extend(checker.errors);
}

fn arg_types(f: &Function) -> Vec<Type> {
    f.params.iter().map(|&p| f.locals[p as usize].ty.clone()).collect()
}

#[derive(Debug, Clone)]
enum Slot {
    Unbound(VarKind),
    Bound(Type),
}

struct Checker<'k> {
    kind: &'k KindSpec,
    vars: Vec<Slot>,
    parent: Vec<u32>,
    errors: Vec<Diagnostic>,
    signatures: Vec<(Vec<Type>, Type)>,
    locals: Vec<Type>,
    params: Vec<Type>,
    ret: Type,
    /// Requirements met by a variable no class narrows to (see [`Checker::require`]),
    /// checked again at the end.
    deferred: Vec<(Type, Class, SpanId, String)>,
}

/// What an operand must be.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Class {
    Numeric,
    Integer,
    Float,
    IntegerOrBool,
    Bool,
    Signed,
}

impl Class {
    fn admits(self, s: Scalar) -> bool {
        match self {
            Class::Numeric => s.is_numeric(),
            Class::Integer => s.is_integer(),
            Class::Float => s.is_float(),
            Class::IntegerOrBool => s.is_integer() || s == Scalar::Bool,
            Class::Bool => s == Scalar::Bool,
            Class::Signed => s.is_signed_integer() || s.is_float(),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Class::Numeric => "a number",
            Class::Integer => "an integer",
            Class::Float => "a float",
            Class::IntegerOrBool => "an integer or bool",
            Class::Bool => "a bool",
            Class::Signed => "a signed number",
        }
    }
}

impl Checker<'_> {
    fn find(&mut self, v: u32) -> u32 {
        let mut root = v;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        let mut v = v;
        while self.parent[v as usize] != root {
            let next = self.parent[v as usize];
            self.parent[v as usize] = root;
            v = next;
        }
        root
    }

    /// The type `ty` stands for now (a root variable if still unknown).
    fn resolve(&mut self, ty: &Type) -> Type {
        match ty {
            Type::Var(v) => {
                let root = self.find(*v);
                match &self.vars[root as usize] {
                    Slot::Bound(t) => t.clone(),
                    Slot::Unbound(_) => Type::Var(root),
                }
            }
            other => other.clone(),
        }
    }

    /// The final type: defaults applied to literal variables.
    fn finalize(&mut self, ty: &Type) -> Type {
        match self.resolve(ty) {
            Type::Var(root) => match self.vars[root as usize] {
                Slot::Unbound(VarKind::Int) => Type::Scalar(Scalar::I32),
                Slot::Unbound(VarKind::Float) => Type::Scalar(Scalar::F64),
                _ => Type::Var(root),
            },
            other => other,
        }
    }

    fn kind_admits(kind: VarKind, ty: &Type) -> bool {
        match (kind, ty) {
            (VarKind::Int, Type::Scalar(s)) => s.is_integer(),
            (VarKind::Float, Type::Scalar(s)) => s.is_float(),
            (VarKind::Int | VarKind::Float, Type::Error | Type::Never) => true,
            (VarKind::Int | VarKind::Float, _) => false,
            (VarKind::Param(_), Type::Scalar(_) | Type::Error | Type::Never) => true,
            (VarKind::Param(_), _) => false,
            (VarKind::Any, _) => true,
        }
    }

    fn kind_name(kind: VarKind) -> &'static str {
        match kind {
            VarKind::Int => "an integer",
            VarKind::Float => "a float",
            VarKind::Param(_) => "a scalar",
            VarKind::Any => "a value",
        }
    }

    /// Makes `a` and `b` the same type; reports a mismatch at `span`.
    fn unify(&mut self, a: &Type, b: &Type, span: SpanId, what: &str) {
        let (a, b) = (self.resolve(a), self.resolve(b));
        match (&a, &b) {
            _ if a == b => {}
            (Type::Error, _) | (_, Type::Error) | (Type::Never, _) | (_, Type::Never) => {}
            (Type::Var(x), Type::Var(y)) => {
                let (Slot::Unbound(kx), Slot::Unbound(ky)) =
                    (self.vars[*x as usize].clone(), self.vars[*y as usize].clone())
                else {
                    return;
                };
                let merged = match (kx, ky) {
                    (VarKind::Any, k) | (k, VarKind::Any) => k,
                    (VarKind::Param(p), VarKind::Int | VarKind::Float) => {
                        // A parameter used with a literal: it takes the literal's default.
                        let _ = p;
                        ky
                    }
                    (VarKind::Int | VarKind::Float, VarKind::Param(_)) => kx,
                    (k1, k2) if k1 == k2 => k1,
                    (VarKind::Param(_), VarKind::Param(_)) => kx,
                    _ => {
                        self.mismatch(span, what, Self::kind_name(kx), Self::kind_name(ky));
                        return;
                    }
                };
                // Keep the parameter's variable as the root so its name survives in messages.
                let (root, child) = if matches!(ky, VarKind::Param(_)) { (*y, *x) } else { (*x, *y) };
                self.parent[child as usize] = root;
                self.vars[root as usize] = Slot::Unbound(merged);
            }
            (Type::Var(x), t) | (t, Type::Var(x)) => {
                let Slot::Unbound(k) = self.vars[*x as usize].clone() else { return };
                if Self::kind_admits(k, t) {
                    self.vars[*x as usize] = Slot::Bound(t.clone());
                } else {
                    self.mismatch(span, what, Self::kind_name(k), &t.to_string());
                }
            }
            _ => self.mismatch(span, what, &a.to_string(), &b.to_string()),
        }
    }

    fn mismatch(&mut self, span: SpanId, what: &str, a: &str, b: &str) {
        self.errors.push(
            Diagnostic::new(span, format!("mismatched types in {what}: `{a}` and `{b}`"))
                .with_help("the subset never converts implicitly (as in Rust): use `as` to cast".to_string()),
        );
    }

    /// Requires `ty` to belong to `class`, narrowing a literal variable when it can.
    fn require(&mut self, ty: &Type, class: Class, span: SpanId, what: &str) {
        match self.resolve(ty) {
            Type::Scalar(s) if class.admits(s) => {}
            Type::Error | Type::Never => {}
            Type::Var(v) => {
                let Slot::Unbound(k) = self.vars[v as usize].clone() else { return };
                let ok = match (k, class) {
                    (VarKind::Int, Class::Float | Class::Bool)
                    | (VarKind::Float, Class::Integer | Class::IntegerOrBool | Class::Bool) => false,
                    (VarKind::Any | VarKind::Param(_), Class::Integer) => {
                        self.vars[v as usize] = Slot::Unbound(VarKind::Int);
                        true
                    }
                    // No variable kind is "integer or bool": decide once inference is done
                    // (`!self.flag` returned as a `bool`).
                    (VarKind::Any | VarKind::Param(_), Class::IntegerOrBool) => {
                        self.deferred.push((Type::Var(v), class, span, what.to_string()));
                        true
                    }
                    (VarKind::Any | VarKind::Param(_), Class::Float) => {
                        self.vars[v as usize] = Slot::Unbound(VarKind::Float);
                        true
                    }
                    (VarKind::Any | VarKind::Param(_), Class::Bool) => {
                        self.vars[v as usize] = Slot::Bound(Type::Scalar(Scalar::Bool));
                        true
                    }
                    _ => true,
                };
                if !ok {
                    self.errors.push(Diagnostic::new(span, format!("{what} must be {}", class.describe())));
                }
            }
            other => {
                self.errors
                    .push(Diagnostic::new(span, format!("{what} must be {}, found `{other}`", class.describe())));
            }
        }
    }

    fn block(&mut self, block: &mut Block) -> Type {
        self.block_with(block, None)
    }

    /// A block whose value should have type `expected` (see [`Checker::expr_with`]).
    fn block_with(&mut self, block: &mut Block, expected: Option<&Type>) -> Type {
        // A block ending in a local not yet typed (the value local of a `loop`) gives it the
        // expected tuple type first, so the tuples assigned to it see their element types.
        if let (Some(Type::Tuple(_)), Some(ExprKind::Local(id))) =
            (expected.map(|t| self.resolve(t)), block.tail.as_deref().map(|t| &t.kind))
        {
            let local = self.locals[*id as usize].clone();
            if let Type::Var(v) = self.resolve(&local) {
                if matches!(self.vars[v as usize], Slot::Unbound(VarKind::Any)) {
                    let span = block.tail.as_deref().map_or(SpanId::default(), |t| t.span);
                    self.unify(&local, expected.expect("matched above"), span, "the block's value");
                }
            }
        }
        let mut diverges = false;
        for stmt in &mut block.stmts {
            diverges |= self.stmt(stmt);
        }
        match &mut block.tail {
            Some(tail) => self.expr_with(tail, expected),
            None if diverges => Type::Never,
            None => Type::Unit,
        }
    }

    /// Checks a statement; returns whether it always diverges (return, break, continue).
    fn stmt(&mut self, stmt: &mut Stmt) -> bool {
        let span = stmt.span;
        match &mut stmt.kind {
            StmtKind::Let { target, init } => {
                let Some(init) = init else { return false };
                let expected = match target {
                    LetTarget::Local(id) => Some(self.locals[*id as usize].clone()),
                    LetTarget::Tuple(_) => None,
                };
                let ty = self.expr_with(init, expected.as_ref());
                match target {
                    LetTarget::Local(id) => {
                        let local = self.locals[*id as usize].clone();
                        self.unify(&local, &ty, init.span, "this `let`");
                    }
                    LetTarget::Tuple(items) => match self.resolve(&ty) {
                        Type::Tuple(elems) if elems.len() == items.len() => {
                            for (item, elem) in items.iter().zip(elems) {
                                if let Some(id) = item {
                                    let local = self.locals[*id as usize].clone();
                                    self.unify(&local, &Type::Scalar(elem), span, "this `let`");
                                }
                            }
                        }
                        Type::Error => {}
                        other => self.errors.push(Diagnostic::new(
                            init.span,
                            format!("expected a tuple of {} values, found `{other}`", items.len()),
                        )),
                    },
                }
                false
            }
            StmtKind::Assign { target, op, value } => {
                let local = self.locals[*target as usize].clone();
                let ty = self.expr_with(value, Some(&local));
                match op {
                    Some(op) if op.is_shift() => {
                        self.require(&local, Class::Integer, span, "the shifted value");
                        self.require(&ty, Class::Integer, value.span, "the shift amount");
                    }
                    Some(op) => {
                        self.unify(&local, &ty, value.span, "this assignment");
                        self.require(&local, operator_class(*op), span, "the operand");
                    }
                    None => self.unify(&local, &ty, value.span, "this assignment"),
                }
                false
            }
            StmtKind::Expr(e) => self.expr(e) == Type::Never,
            StmtKind::While { cond, body } => {
                let ty = self.expr(cond);
                self.unify(&ty, &Type::Scalar(Scalar::Bool), cond.span, "the loop condition");
                let body_ty = self.block(body);
                self.unify(&body_ty, &Type::Unit, span, "the loop body");
                false
            }
            StmtKind::Loop { body } => {
                let body_ty = self.block(body);
                self.unify(&body_ty, &Type::Unit, span, "the loop body");
                // A `loop` without `break` is left only by `return`.
                !crate::visit::breaks_out(body)
            }
            StmtKind::For { var, start, end, body, .. } => {
                let a = self.expr(start);
                let b = self.expr(end);
                let v = self.locals[*var as usize].clone();
                self.unify(&a, &b, end.span, "the range");
                self.unify(&v, &a, start.span, "the range");
                self.require(&v, Class::Integer, start.span, "the range bound");
                let body_ty = self.block(body);
                self.unify(&body_ty, &Type::Unit, span, "the loop body");
                false
            }
            StmtKind::Break | StmtKind::Continue => true,
            StmtKind::Return(value) => {
                let ret = self.ret.clone();
                let ty = match value {
                    Some(e) => self.expr_with(e, Some(&ret)),
                    None => Type::Unit,
                };
                self.unify(&ty, &ret, value.as_ref().map_or(span, |e| e.span), "the returned value");
                true
            }
        }
    }

    fn expr(&mut self, e: &mut Expr) -> Type {
        self.expr_with(e, None)
    }

    /// Checks `e` where a value of type `expected` is wanted. Only tuples use it: their
    /// elements' types are decided when the tuple is built, so elements still unknown
    /// (`100`, an unannotated local) take the expected element type first, as rustc infers
    /// `return (s, 100)` with `s: u32` to be a `(u32, u32)`. Blocks, `if` and `match` pass it
    /// on to their values.
    fn expr_with(&mut self, e: &mut Expr, expected: Option<&Type>) -> Type {
        let span = e.span;
        let expected = expected.map(|t| self.resolve(t)).filter(|t| !matches!(t, Type::Var(_) | Type::Error));
        let ty = match &mut e.kind {
            ExprKind::Literal(_) | ExprKind::Error => e.ty.clone(),
            ExprKind::Local(id) => self.locals[*id as usize].clone(),
            ExprKind::Param(p) => self.params[*p as usize].clone(),
            ExprKind::Unary(op, inner) => {
                let t = self.expr(inner);
                match op {
                    UnaryOp::Neg => self.require(&t, Class::Signed, span, "the negated value"),
                    UnaryOp::Not => self.require(&t, Class::IntegerOrBool, span, "the operand of `!`"),
                }
                t
            }
            ExprKind::Binary(op, a, b) => {
                let ta = self.expr(a);
                // `(x, y) == (1.5, 3)`: the right tuple's literals take the left's types.
                let tb = if op.is_comparison() { self.expr_with(b, Some(&ta)) } else { self.expr(b) };
                let op = *op;
                if op.is_shift() {
                    self.require(&ta, Class::Integer, a.span, "the shifted value");
                    self.require(&tb, Class::Integer, b.span, "the shift amount");
                    ta
                } else if op.is_logical() {
                    let bool_ty = Type::Scalar(Scalar::Bool);
                    self.unify(&ta, &bool_ty, a.span, "the operand of a logical operator");
                    self.unify(&tb, &bool_ty, b.span, "the operand of a logical operator");
                    bool_ty
                } else if op.is_comparison() {
                    self.unify(&ta, &tb, span, "the comparison");
                    Type::Scalar(Scalar::Bool)
                } else {
                    self.unify(&ta, &tb, span, &format!("the operands of `{}`", op.symbol()));
                    self.require(&ta, operator_class(op), span, "the operand");
                    ta
                }
            }
            ExprKind::Cast(inner, target) => {
                let t = self.expr(inner);
                let target = *target;
                match self.resolve(&t) {
                    Type::Scalar(Scalar::Bool) if !target.is_integer() && target != Scalar::Bool => {
                        self.errors.push(
                            Diagnostic::new(span, format!("cannot cast `bool` to `{target}`"))
                                .with_help("cast to an integer first"),
                        );
                    }
                    Type::Scalar(s) if s != Scalar::Bool && target == Scalar::Bool => {
                        self.errors.push(
                            Diagnostic::new(span, format!("cannot cast `{s}` to `bool`"))
                                .with_help("compare with zero instead"),
                        );
                    }
                    Type::Tuple(_) | Type::Unit | Type::Context => {
                        self.errors.push(Diagnostic::new(span, format!("cannot cast `{t}` to `{target}`")));
                    }
                    _ => {}
                }
                Type::Scalar(target)
            }
            ExprKind::Tuple(items) => {
                if items.is_empty() {
                    Type::Unit
                } else {
                    let want = match &expected {
                        Some(Type::Tuple(want)) if want.len() == items.len() => want.clone(),
                        _ => Vec::new(),
                    };
                    let mut scalars = Vec::new();
                    for (i, item) in items.iter_mut().enumerate() {
                        let t = self.expr(item);
                        if let (Type::Var(_), Some(w)) = (self.resolve(&t), want.get(i)) {
                            self.unify(&t, &Type::Scalar(*w), item.span, "a tuple element");
                        }
                        match self.finalize(&t) {
                            Type::Scalar(s) => {
                                self.unify(&t, &Type::Scalar(s), item.span, "a tuple element");
                                scalars.push(s);
                            }
                            Type::Error => return Type::Error,
                            other => {
                                self.errors.push(Diagnostic::new(
                                    item.span,
                                    format!("tuple elements must be scalars, found `{other}`"),
                                ));
                                return Type::Error;
                            }
                        }
                    }
                    Type::Tuple(scalars)
                }
            }
            ExprKind::TupleField(base, index) => {
                let t = self.expr(base);
                match self.resolve(&t) {
                    Type::Tuple(items) => match items.get(*index as usize) {
                        Some(s) => Type::Scalar(*s),
                        None => {
                            self.errors.push(Diagnostic::new(
                                span,
                                format!("no field `{index}` on a tuple of {} values", items.len()),
                            ));
                            Type::Error
                        }
                    },
                    Type::Error => Type::Error,
                    other => {
                        self.errors.push(Diagnostic::new(span, format!("`.{index}` needs a tuple, found `{other}`")));
                        Type::Error
                    }
                }
            }
            ExprKind::Call(f, args) => {
                let (params, ret) = self.signatures[*f as usize].clone();
                for (arg, want) in args.iter_mut().zip(&params) {
                    let t = self.expr_with(arg, Some(want));
                    self.unify(&t, want, arg.span, "the argument");
                }
                ret
            }
            ExprKind::Intrinsic(id, args) => {
                let spec = &self.kind.intrinsics[*id as usize];
                let (want, ret) = (spec.args, spec.ret);
                let name = spec.name;
                if args.len() != want.len() + 1 {
                    self.errors.push(Diagnostic::new(
                        span,
                        format!("`{name}` takes {} argument(s), {} given", want.len(), args.len() - 1),
                    ));
                }
                for (arg, want) in args.iter_mut().skip(1).zip(want) {
                    let t = self.expr(arg);
                    self.unify(&t, &Type::Scalar(*want), arg.span, &format!("the argument of `{name}`"));
                }
                ret.map_or(Type::Unit, Type::Scalar)
            }
            ExprKind::Math(f, args) => {
                let pinned = e.ty.scalar();
                let f = *f;
                let types: Vec<Type> = args.iter_mut().map(|a| self.expr(a)).collect();
                let spans: Vec<SpanId> = args.iter().map(|a| a.span).collect();
                if let Some(s) = pinned {
                    self.unify(&types[0], &Type::Scalar(s), spans[0], &format!("`{}`", f.name()));
                }
                self.math(f, &types, &spans, span)
            }
            ExprKind::If { cond, then, otherwise } => {
                let c = self.expr(cond);
                self.unify(&c, &Type::Scalar(Scalar::Bool), cond.span, "the condition");
                let t = self.block_with(then, expected.as_ref());
                match otherwise {
                    Some(other) => {
                        // Without an expected type, the `then` branch's guides the `else`.
                        let o = self.expr_with(other, Some(expected.as_ref().unwrap_or(&t)));
                        self.unify(&t, &o, other.span, "the branches of `if`");
                        if self.resolve(&t) == Type::Never {
                            o
                        } else {
                            t
                        }
                    }
                    None => {
                        self.unify(&t, &Type::Unit, span, "an `if` without `else`");
                        Type::Unit
                    }
                }
            }
            ExprKind::Match { scrutinee, arms } => {
                let s = self.expr(scrutinee);
                self.require(&s, Class::Integer, scrutinee.span, "the matched value");
                let mut result = Type::Never;
                for arm in arms.iter_mut() {
                    if !arm.patterns.is_empty() {
                        self.unify(&s, &arm.ty, arm.span, "the pattern");
                    }
                    // Without an expected type, the first arm's value guides the others.
                    let guide = match (&expected, self.resolve(&result)) {
                        (Some(t), _) => Some(t.clone()),
                        (None, Type::Never) => None,
                        (None, first) => Some(first),
                    };
                    let t = self.expr_with(&mut arm.body, guide.as_ref());
                    if self.resolve(&result) == Type::Never {
                        result = t;
                    } else {
                        self.unify(&result, &t, arm.body.span, "the arms of `match`");
                    }
                }
                if !arms.iter().any(|a| a.patterns.is_empty()) {
                    self.errors.push(
                        Diagnostic::new(span, "`match` needs a final `_` arm")
                            .with_help("the subset checks exhaustiveness only through `_`"),
                    );
                }
                result
            }
            ExprKind::Block(b) => self.block_with(b, expected.as_ref()),
        };
        e.ty = ty.clone();
        ty
    }

    fn math(&mut self, f: MathFn, types: &[Type], spans: &[SpanId], span: SpanId) -> Type {
        let what = format!("the receiver of `{}`", f.name());
        let receiver = types[0].clone();
        match f {
            MathFn::Abs => self.require(&receiver, Class::Signed, spans[0], &what),
            MathFn::Min | MathFn::Max => {
                self.unify(&types[0], &types[1], spans[1], &format!("the arguments of `{}`", f.name()));
                self.require(&receiver, Class::Numeric, spans[0], &what);
            }
            MathFn::Sqrt | MathFn::Exp | MathFn::Ln | MathFn::Log2 | MathFn::Floor | MathFn::Ceil | MathFn::Round => {
                self.require(&receiver, Class::Float, spans[0], &what)
            }
            MathFn::Powi => {
                self.require(&receiver, Class::Float, spans[0], &what);
                self.unify(&types[1], &Type::Scalar(Scalar::I32), spans[1], "the exponent of `powi`");
            }
            MathFn::Powf => {
                self.require(&receiver, Class::Float, spans[0], &what);
                self.unify(&types[0], &types[1], spans[1], "the arguments of `powf`");
            }
            MathFn::CountOnes | MathFn::LeadingZeros | MathFn::TrailingZeros => {
                self.require(&receiver, Class::Integer, span, &what);
                return Type::Scalar(Scalar::U32);
            }
            MathFn::WrappingAdd | MathFn::WrappingSub | MathFn::WrappingMul => {
                self.unify(&types[0], &types[1], spans[1], &format!("the arguments of `{}`", f.name()));
                self.require(&receiver, Class::Integer, spans[0], &what);
            }
        }
        receiver
    }
}

fn operator_class(op: BinaryOp) -> Class {
    match op {
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => Class::IntegerOrBool,
        BinaryOp::Shl | BinaryOp::Shr => Class::Integer,
        BinaryOp::And | BinaryOp::Or => Class::Bool,
        _ => Class::Numeric,
    }
}

/// Checks that need the final types:
///
/// - integer literals fit their type (`300u8`-style overflow is an error, as in rustc); the
///   magnitude of `i32::MIN` is allowed only right under a negation (`-2147483648`);
/// - unsigned values are not negated (`let x: u32 = -1;`);
/// - match patterns are values of the matched type.
fn check_final(block: &Block, errors: &mut Vec<Diagnostic>) {
    let mut negated = std::collections::HashSet::new();
    crate::visit::walk_block(block, &mut |e: &Expr| {
        if let ExprKind::Unary(UnaryOp::Neg, inner) = &e.kind {
            if matches!(inner.kind, ExprKind::Literal(Literal::Int(_))) {
                negated.insert(inner.span);
            }
        }
    });
    // One error per node: typeck may have reported it already.
    let reported: std::collections::HashSet<SpanId> = errors.iter().map(|d| d.span).collect();
    crate::visit::walk_block(block, &mut |e: &Expr| match (&e.kind, &e.ty) {
        (ExprKind::Literal(Literal::Int(v)), Type::Scalar(s)) => {
            let max: u64 = match s {
                Scalar::I32 if negated.contains(&e.span) => 1 << 31,
                Scalar::I64 if negated.contains(&e.span) => 1 << 63,
                Scalar::I32 => i32::MAX as u64,
                Scalar::I64 => i64::MAX as u64,
                Scalar::U32 => u32::MAX as u64,
                _ => u64::MAX,
            };
            if *v > max {
                let (min, max) = int_range(*s);
                errors.push(
                    Diagnostic::new(e.span, format!("literal out of range for `{s}`")).with_help(format!(
                        "the literal `{v}` does not fit into `{s}`, whose range is `{min}..={max}`"
                    )),
                );
            }
        }
        (ExprKind::Unary(UnaryOp::Neg, _), Type::Scalar(s))
            if s.is_integer() && !s.is_signed_integer() && !reported.contains(&e.span) =>
        {
            errors.push(Diagnostic::new(e.span, format!("cannot apply unary operator `-` to type `{s}`")).with_help(
                format!("unsigned values cannot be negated: write `0{s}.wrapping_sub(x)`, or cast to a signed type"),
            ));
        }
        (ExprKind::Match { scrutinee, arms }, _) => {
            let Type::Scalar(s) = scrutinee.ty else { return };
            if !s.is_integer() {
                return;
            }
            let (min, max) = int_range(s);
            for arm in arms {
                // `i128::MIN`/`MAX` are open range ends (and a failed pattern, already reported).
                let bounds = arm.patterns.iter().flat_map(|p| match *p {
                    MatchPattern::Value(v) => [v, v],
                    MatchPattern::Range(lo, hi) => [lo, hi],
                });
                if let Some(v) = bounds.filter(|&v| v != i128::MIN && v != i128::MAX).find(|v| !(min..=max).contains(v))
                {
                    errors.push(
                        Diagnostic::new(arm.span, format!("pattern `{v}` is out of range for `{s}`"))
                            .with_help(format!("the matched value is a `{s}`, whose range is `{min}..={max}`")),
                    );
                }
            }
        }
        _ => {}
    });
}

/// The smallest and largest values of integer type `s`.
pub fn int_range(s: Scalar) -> (i128, i128) {
    match s {
        Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
        Scalar::I64 => (i64::MIN.into(), i64::MAX.into()),
        Scalar::U32 => (0, u32::MAX.into()),
        Scalar::U64 => (0, u64::MAX.into()),
        _ => (0, 0),
    }
}
