//! The transfer functions: the fact of each operation (unary and binary operators, casts,
//! math functions) from its operands' facts, by the rules of the parent module's docs. A
//! factor or divisor of unknown sign built from parameters becomes a run-time condition
//! ([`Analyzer::assume`]).

use super::analyzer::Analyzer;
use super::evaluate;
use super::lattice::{max_sign, min_sign, Dir, Fact, Sign};
use crate::ir::{BinaryOp, Expr, ExprKind, Literal, MathFn, Scalar, Type, UnaryOp};

impl Analyzer<'_> {
    pub(super) fn unary(&mut self, op: UnaryOp, x: &Fact, e: &Expr) -> Fact {
        let param = x.param.as_ref().map(|p| rebuild(e, ExprKind::Unary(op, Box::new(p.clone()))));
        let float = e.ty.scalar().is_some_and(Scalar::is_float);
        match op {
            _ if x.is_const() => {
                let sign = if op == UnaryOp::Neg && float { x.sign.neg() } else { Sign::Unknown };
                Fact::constant(sign, param)
            }
            UnaryOp::Neg if float => Fact { dir: x.dir.flip(), sign: x.sign.neg(), param: None, why: x.why.clone() },
            UnaryOp::Neg => propagate(x, || self.at(e, "integer negation (it wraps) of a value that depends on ‹arg›")),
            UnaryOp::Not => propagate(x, || self.at(e, "`!` of a value that depends on ‹arg›")),
        }
    }

    pub(super) fn binary(&mut self, op: BinaryOp, a: &Fact, b: &Fact, ty: Scalar, e: &Expr) -> Fact {
        let float = ty.is_float();
        if a.is_const() && b.is_const() {
            let sign = match op {
                BinaryOp::Add if float => a.sign.add(b.sign),
                BinaryOp::Sub if float => a.sign.add(b.sign.neg()),
                BinaryOp::Mul if float => a.sign.mul(b.sign),
                BinaryOp::Div if b.sign == Sign::Pos => a.sign.mul(Sign::NonNeg),
                BinaryOp::Rem if !float && a.sign.non_neg() && b.sign == Sign::Pos => Sign::NonNeg,
                _ => Sign::Unknown,
            };
            return Fact::constant(sign, combine_param(op, e, a, b));
        }
        if let Some(unknown) = [a, b].into_iter().find(|f| f.dir == Dir::Unknown) {
            return unknown.clone();
        }
        let wraps = || self.at(e, &format!("integer `{}` (it wraps) on a value that depends on ‹arg›", op.symbol()));
        match op {
            BinaryOp::Add | BinaryOp::Sub if !float => Fact::unknown(wraps()),
            BinaryOp::Mul if !float => Fact::unknown(wraps()),
            BinaryOp::Add => self.sum(a, b, e),
            BinaryOp::Sub => {
                let minus_b = Fact { dir: b.dir.flip(), sign: b.sign.neg(), param: None, why: None };
                self.sum(a, &minus_b, e)
            }
            BinaryOp::Mul if a.is_const() => self.scale(b, a, e),
            BinaryOp::Mul if b.is_const() => self.scale(a, b, e),
            BinaryOp::Mul if a.sign.non_neg() && b.sign.non_neg() && a.dir == b.dir => {
                Fact::moving(a.dir, Sign::NonNeg)
            }
            BinaryOp::Mul => self.unknown(
                e,
                "product of two factors that depend on ‹arg›, not both non-negative and moving the same way",
            ),
            BinaryOp::Div if b.is_const() => {
                if b.sign == Sign::Pos || (b.sign != Sign::NonPos && self.assume(b, BinaryOp::Gt, e)) {
                    Fact::moving(a.dir, a.sign.mul(Sign::NonNeg))
                } else if self.assume(b, BinaryOp::Lt, e) {
                    Fact::moving(a.dir.flip(), a.sign.mul(Sign::NonPos))
                } else {
                    self.unknown(e, "division by a value not known to be non-zero")
                }
            }
            BinaryOp::Div => self.unknown(e, "division by a value that depends on ‹arg›"),
            _ => self.unknown(e, &format!("`{}` on a value that depends on ‹arg›", op.symbol())),
        }
    }

    /// `a + b`, floats.
    pub(super) fn sum(&self, a: &Fact, b: &Fact, e: &Expr) -> Fact {
        match a.dir.join(b.dir) {
            Dir::Unknown => self.unknown(e, "sum of a term that grows and one that shrinks with ‹arg›"),
            dir => Fact::moving(dir, a.sign.add(b.sign)),
        }
    }

    /// `x * k` with `k` `Const`, floats.
    pub(super) fn scale(&mut self, x: &Fact, k: &Fact, e: &Expr) -> Fact {
        match k.sign {
            Sign::Pos | Sign::NonNeg => Fact::moving(x.dir, x.sign.mul(k.sign)),
            Sign::NonPos => Fact::moving(x.dir.flip(), x.sign.mul(k.sign)),
            Sign::Unknown if self.assume(k, BinaryOp::Ge, e) => Fact::moving(x.dir, x.sign.mul(Sign::NonNeg)),
            Sign::Unknown if self.assume(k, BinaryOp::Le, e) => Fact::moving(x.dir.flip(), x.sign.mul(Sign::NonPos)),
            Sign::Unknown => self.unknown(e, "a factor of unknown sign that is not a parameter expression"),
        }
    }

    /// Assumes `k op 0`, `k` a `Const` value: true when `k` is a parameter expression and
    /// the condition is recorded for run time, or reads no parameter and holds.
    pub(super) fn assume(&mut self, k: &Fact, op: BinaryOp, e: &Expr) -> bool {
        let Some(p) = &k.param else { return false };
        let Some(ty) = p.ty.scalar() else { return false };
        let zero = Expr {
            kind: ExprKind::Literal(if ty.is_float() { Literal::Float(0.0) } else { Literal::Int(0) }),
            ty: p.ty.clone(),
            span: e.span,
        };
        let condition = Expr {
            kind: ExprKind::Binary(op, Box::new(p.clone()), Box::new(zero)),
            ty: Type::Scalar(Scalar::Bool),
            span: e.span,
        };
        let mut reads_params = false;
        crate::visit::walk_expr(p, &mut |x| reads_params |= matches!(x.kind, ExprKind::Param(_)));
        if !reads_params {
            return evaluate(&condition, &[], &[]);
        }
        self.conditions.push(condition);
        true
    }

    pub(super) fn cast(&self, x: &Fact, inner: &Expr, to: Scalar, e: &Expr) -> Fact {
        let from = inner.ty.scalar().unwrap_or(Scalar::I32);
        let range_fits = || {
            let (lo, hi) = crate::typeck::int_range(from);
            let (tlo, thi) = crate::typeck::int_range(to);
            tlo <= lo && hi <= thi
        };
        let keeps_order = from == to
            || (from.is_numeric() && to.is_float())
            || (from.is_float() && to.is_integer())
            || (from.is_integer() && to.is_integer() && range_fits());
        let sign = match x.sign {
            // Truncation toward zero, or an f64 underflowing to an f32 zero.
            Sign::Pos if (from.is_float() && to.is_integer()) || to == Scalar::F32 => Sign::NonNeg,
            s if keeps_order => s,
            _ => Sign::Unknown,
        };
        if x.is_const() {
            let param = x.param.as_ref().map(|p| rebuild(e, ExprKind::Cast(Box::new(p.clone()), to)));
            return Fact::constant(sign, param);
        }
        if keeps_order {
            Fact { dir: x.dir, sign, param: None, why: x.why.clone() }
        } else {
            propagate(x, || {
                self.at(e, &format!("cast from {from} to {to} (it wraps) of a value that depends on ‹arg›"))
            })
        }
    }

    pub(super) fn math(&mut self, f: MathFn, args: &[Fact], e: &Expr) -> Fact {
        let x = &args[0];
        if args.iter().all(Fact::is_const) {
            let param = args
                .iter()
                .map(|a| a.param.clone())
                .collect::<Option<Vec<_>>>()
                .map(|ps| rebuild(e, ExprKind::Math(f, ps)));
            let sign = match f {
                MathFn::Abs | MathFn::Sqrt | MathFn::Exp => Sign::NonNeg,
                MathFn::Min => min_sign(x.sign, args[1].sign),
                MathFn::Max => max_sign(x.sign, args[1].sign),
                MathFn::Floor | MathFn::Ceil | MathFn::Round => x.sign.mul(Sign::NonNeg),
                _ => Sign::Unknown,
            };
            return Fact::constant(sign, param);
        }
        if let Some(unknown) = args.iter().find(|a| a.dir == Dir::Unknown) {
            return unknown.clone();
        }
        match f {
            MathFn::Min | MathFn::Max => {
                let (a, b) = (x, &args[1]);
                match a.dir.join(b.dir) {
                    Dir::Unknown => {
                        self.unknown(e, "`min`/`max` of a value that grows and one that shrinks with ‹arg›")
                    }
                    dir => {
                        let sign = if f == MathFn::Min { min_sign(a.sign, b.sign) } else { max_sign(a.sign, b.sign) };
                        Fact::moving(dir, sign)
                    }
                }
            }
            MathFn::Floor | MathFn::Ceil | MathFn::Round => Fact::moving(x.dir, x.sign.mul(Sign::NonNeg)),
            MathFn::Sqrt | MathFn::Abs if x.sign.non_neg() => Fact::moving(x.dir, Sign::NonNeg),
            MathFn::Sqrt | MathFn::Abs => self.unknown(e, &format!("`{}` of a value that may be negative", f.name())),
            MathFn::Exp | MathFn::Ln | MathFn::Log2 | MathFn::Powi | MathFn::Powf => {
                self.unknown(e, &format!("`{}` is not correctly rounded, so not guaranteed monotone", f.name()))
            }
            _ => self.unknown(e, &format!("`{}` of a value that depends on ‹arg›", f.name())),
        }
    }
}

/// An `Unknown` fact keeping `x`'s reason when it has one, else `why`.
pub(super) fn propagate(x: &Fact, why: impl FnOnce() -> String) -> Fact {
    match &x.why {
        Some(w) if x.dir == Dir::Unknown => Fact::unknown(w.to_string()),
        _ => Fact::unknown(why()),
    }
}

/// `e`'s operator applied to the parameter expressions of both operands, when both are.
pub(super) fn combine_param(op: BinaryOp, at: &Expr, a: &Fact, b: &Fact) -> Option<Expr> {
    let (x, y) = (a.param.clone()?, b.param.clone()?);
    let ty = if op.is_comparison() || op.is_logical() { Type::Scalar(Scalar::Bool) } else { x.ty.clone() };
    Some(Expr { kind: ExprKind::Binary(op, Box::new(x), Box::new(y)), ty, span: at.span })
}

/// `e` with its operands replaced.
pub(super) fn rebuild(e: &Expr, kind: ExprKind) -> Expr {
    Expr { kind, ty: e.ty.clone(), span: e.span }
}
