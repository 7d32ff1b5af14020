//! The analysis of expressions: literals, locals and parameters get their facts, operations
//! go to their rules ([`super::transfer`]), `if`/`match`/`&&`/`||` to the branches of
//! [`super::analyzer`], calls analyse the callee.

use super::analyzer::{Analyzer, Arm, State};
use super::lattice::{type_sign, Fact, Sign};
use super::transfer::{combine_param, propagate};
use crate::ir::{Expr, ExprKind, Literal, Scalar};

impl Analyzer<'_> {
    pub(super) fn expr(&mut self, e: &Expr, s: &mut State, taint: bool, r: &mut Option<Fact>) -> Fact {
        let fact = match &e.kind {
            ExprKind::Literal(l) => {
                // Negative literals are `Neg` around a positive one; integer literals wrap
                // into their type.
                let ty = e.ty.scalar().unwrap_or(Scalar::I32);
                let sign = match *l {
                    Literal::Int(0) | Literal::Bool(_) => Sign::NonNeg,
                    Literal::Int(v) if ty.is_float() || i128::from(v) <= crate::typeck::int_range(ty).1 => Sign::Pos,
                    Literal::Float(x) if x > 0.0 && (ty == Scalar::F64 || x as f32 > 0.0) => Sign::Pos,
                    Literal::Float(x) if x >= 0.0 => Sign::NonNeg,
                    _ => Sign::Unknown,
                };
                Fact::constant(sign, Some(e.clone()))
            }
            ExprKind::Local(id) => {
                s.env[*id as usize].clone().unwrap_or_else(|| Fact::constant(Sign::Unknown.refine(&e.ty), None))
            }
            ExprKind::Param(_) => Fact::constant(type_sign(&e.ty), Some(e.clone())),
            ExprKind::Unary(op, inner) => {
                let x = self.expr(inner, s, taint, r);
                self.unary(*op, &x, e)
            }
            ExprKind::Binary(op, a, b) if op.is_logical() => {
                let x = self.expr(a, s, taint, r);
                let right = |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| this.expr(b, st, t, r);
                let skip =
                    |_: &mut Self, _: &mut State, _: bool, _: &mut Option<Fact>| Fact::constant(Sign::NonNeg, None);
                let y = self.branches(e, &x, &[&right, &skip], s, taint, r);
                if x.is_const() && y.is_const() {
                    Fact::constant(Sign::NonNeg, combine_param(*op, e, &x, &y))
                } else {
                    let cause = if x.is_const() { &y } else { &x };
                    propagate(cause, || self.at(e, "`&&`/`||` on a value that depends on ‹arg›"))
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a, s, taint, r);
                let y = self.expr(b, s, taint, r);
                let ty = a.ty.scalar().unwrap_or(Scalar::I32);
                self.binary(*op, &x, &y, ty, e)
            }
            ExprKind::Cast(inner, to) => {
                let x = self.expr(inner, s, taint, r);
                self.cast(&x, inner, *to, e)
            }
            ExprKind::Tuple(items) => {
                let mut fact = Fact::constant(Sign::Unknown, None);
                for (i, item) in items.iter().enumerate() {
                    let f = self.expr(item, s, taint, r);
                    fact = if i == 0 { f } else { fact.join(&f) };
                }
                Fact { param: None, ..fact }
            }
            ExprKind::TupleField(base, _) => {
                let f = self.expr(base, s, taint, r);
                Fact { param: None, ..f }
            }
            ExprKind::Call(callee, args) => {
                let facts: Vec<Fact> = args.iter().map(|a| self.expr(a, s, taint, r)).collect();
                let callee = &self.program.functions[*callee as usize];
                let mut f = self.function(callee, facts);
                f.sign = f.sign.refine(&e.ty);
                f
            }
            ExprKind::Intrinsic(id, args) => {
                let facts: Vec<Fact> = args.iter().map(|a| self.expr(a, s, taint, r)).collect();
                let spec = &self.kind.intrinsics[*id as usize];
                if spec.ret.is_none() {
                    self.fail(
                        self.at(e, &format!("`{}.{}` changes the {}'s state", self.context, spec.name, self.context)),
                    );
                }
                match facts.iter().find(|f| !f.is_const()) {
                    None => {
                        let sign = if self.non_negative.contains(&spec.name) { Sign::NonNeg } else { type_sign(&e.ty) };
                        Fact::constant(sign, None)
                    }
                    Some(arg) => propagate(arg, || {
                        self.at(e, &format!("`{}.{}` of a value that depends on ‹arg›", self.context, spec.name))
                    }),
                }
            }
            ExprKind::Math(f, args) => {
                let facts: Vec<Fact> = args.iter().map(|a| self.expr(a, s, taint, r)).collect();
                self.math(*f, &facts, e)
            }
            ExprKind::If { cond, then, otherwise } => {
                let c = self.expr(cond, s, taint, r);
                let then_arm =
                    |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| this.block(then, st, t, r);
                let else_arm = |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| match otherwise {
                    Some(o) => this.expr(o, st, t, r),
                    None => Fact::constant(Sign::Unknown, None),
                };
                self.branches(e, &c, &[&then_arm, &else_arm], s, taint, r)
            }
            ExprKind::Match { scrutinee, arms } => {
                let c = self.expr(scrutinee, s, taint, r);
                let closures: Vec<_> = arms
                    .iter()
                    .map(|arm| {
                        move |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| {
                            this.expr(&arm.body, st, t, r)
                        }
                    })
                    .collect();
                let refs: Vec<&Arm<'_, '_>> = closures.iter().map(|c| c as &Arm<'_, '_>).collect();
                self.branches(e, &c, &refs, s, taint, r)
            }
            ExprKind::Block(b) => self.block(b, s, taint, r),
            ExprKind::Error => {
                self.fail(self.at(e, "a node that failed to compile"));
                self.unknown(e, "a node that failed to compile")
            }
        };
        Fact { sign: fact.sign.refine(&e.ty), ..fact }
    }
}
