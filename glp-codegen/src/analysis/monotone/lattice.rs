//! The abstract values of the monotonicity analysis: a value's direction ([`Dir`]) and sign
//! ([`Sign`]) as `freq` grows, together a [`Fact`] (with the parameter expression of a
//! `Const` value and the reason of an `Unknown` one), and their joins (the tables of the
//! parent module's docs).

use crate::ir::{Expr, Scalar, Type};
use std::rc::Rc;

/// How a value moves when `freq` grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dir {
    Const,
    Inc,
    Dec,
    Unknown,
}

impl Dir {
    pub(super) fn join(self, other: Dir) -> Dir {
        match (self, other) {
            (a, b) if a == b => a,
            (Dir::Const, d) | (d, Dir::Const) => d,
            _ => Dir::Unknown,
        }
    }

    pub(super) fn flip(self) -> Dir {
        match self {
            Dir::Inc => Dir::Dec,
            Dir::Dec => Dir::Inc,
            d => d,
        }
    }
}

/// What is known of a value's sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sign {
    Pos,
    NonNeg,
    NonPos,
    Unknown,
}

impl Sign {
    pub(super) fn join(self, other: Sign) -> Sign {
        match (self, other) {
            (a, b) if a == b => a,
            (Sign::Pos, Sign::NonNeg) | (Sign::NonNeg, Sign::Pos) => Sign::NonNeg,
            _ => Sign::Unknown,
        }
    }

    pub(super) fn non_neg(self) -> bool {
        matches!(self, Sign::Pos | Sign::NonNeg)
    }

    pub(super) fn neg(self) -> Sign {
        match self {
            Sign::Pos | Sign::NonNeg => Sign::NonPos,
            Sign::NonPos => Sign::NonNeg,
            Sign::Unknown => Sign::Unknown,
        }
    }

    /// The sign of a float sum (a sum of two floats is 0 only when they cancel exactly).
    pub(super) fn add(self, other: Sign) -> Sign {
        match (self, other) {
            (Sign::Pos, s) | (s, Sign::Pos) if s.non_neg() => Sign::Pos,
            (a, b) if a.non_neg() && b.non_neg() => Sign::NonNeg,
            (Sign::NonPos, Sign::NonPos) => Sign::NonPos,
            _ => Sign::Unknown,
        }
    }

    /// The sign of a float product or quotient (they may underflow to 0).
    pub(super) fn mul(self, other: Sign) -> Sign {
        match (self, other) {
            (a, b) if a.non_neg() && b.non_neg() => Sign::NonNeg,
            (Sign::NonPos, Sign::NonPos) => Sign::NonNeg,
            (a, Sign::NonPos) | (Sign::NonPos, a) if a.non_neg() => Sign::NonPos,
            _ => Sign::Unknown,
        }
    }

    /// What the type alone says, combined with `self`.
    pub(super) fn refine(self, ty: &Type) -> Sign {
        match (self, type_sign(ty)) {
            (Sign::Pos, _) => Sign::Pos,
            (s, Sign::Unknown) => s,
            (_, t) => t,
        }
    }
}

pub(super) fn type_sign(ty: &Type) -> Sign {
    match ty.scalar() {
        Some(Scalar::Bool | Scalar::U32 | Scalar::U64) => Sign::NonNeg,
        _ => Sign::Unknown,
    }
}

/// What the analysis knows of one value.
#[derive(Debug, Clone)]
pub(super) struct Fact {
    pub(super) dir: Dir,
    pub(super) sign: Sign,
    /// For a `Const` value computed from parameters and literals alone: that computation.
    pub(super) param: Option<Expr>,
    /// Why `dir` is `Unknown` (the first cause).
    pub(super) why: Option<Rc<str>>,
}

impl Fact {
    pub(super) fn constant(sign: Sign, param: Option<Expr>) -> Fact {
        Fact { dir: Dir::Const, sign, param, why: None }
    }

    pub(super) fn unknown(why: String) -> Fact {
        Fact { dir: Dir::Unknown, sign: Sign::Unknown, param: None, why: Some(why.into()) }
    }

    /// A value moving in direction `dir` (not `Unknown`: use [`Fact::unknown`]).
    pub(super) fn moving(dir: Dir, sign: Sign) -> Fact {
        Fact { dir, sign, param: None, why: None }
    }

    pub(super) fn is_const(&self) -> bool {
        self.dir == Dir::Const
    }

    /// The fact of a value that is `self` on one path and `other` on another.
    pub(super) fn join(&self, other: &Fact) -> Fact {
        let dir = self.dir.join(other.dir);
        let why = self.why.clone().or_else(|| other.why.clone()).or_else(|| {
            (dir == Dir::Unknown).then(|| "a value grows with ‹arg› on one path and shrinks on another".into())
        });
        Fact {
            dir,
            sign: self.sign.join(other.sign),
            param: if self.param == other.param { self.param.clone() } else { None },
            why,
        }
    }

    /// The same lattice point (the reason does not count).
    pub(super) fn same(&self, other: &Fact) -> bool {
        self.dir == other.dir && self.sign == other.sign && self.param == other.param
    }
}

pub(super) fn join_opt(a: &Option<Fact>, b: &Option<Fact>) -> Option<Fact> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.join(b)),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

pub(super) fn min_sign(a: Sign, b: Sign) -> Sign {
    match (a, b) {
        (Sign::Pos, Sign::Pos) => Sign::Pos,
        (a, b) if a.non_neg() && b.non_neg() => Sign::NonNeg,
        (Sign::NonPos, _) | (_, Sign::NonPos) => Sign::NonPos,
        _ => Sign::Unknown,
    }
}

pub(super) fn max_sign(a: Sign, b: Sign) -> Sign {
    match (a, b) {
        (Sign::Pos, _) | (_, Sign::Pos) => Sign::Pos,
        (a, b) if a.non_neg() || b.non_neg() => Sign::NonNeg,
        (Sign::NonPos, Sign::NonPos) => Sign::NonPos,
        _ => Sign::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_join_and_flip() {
        assert_eq!(Dir::Const.join(Dir::Inc), Dir::Inc);
        assert_eq!(Dir::Dec.join(Dir::Const), Dir::Dec);
        assert_eq!(Dir::Inc.join(Dir::Dec), Dir::Unknown);
        assert_eq!(Dir::Unknown.join(Dir::Const), Dir::Unknown);
        assert_eq!(Dir::Inc.flip(), Dir::Dec);
        assert_eq!(Dir::Const.flip(), Dir::Const);
    }

    #[test]
    fn signs_of_float_arithmetic() {
        assert_eq!(Sign::Pos.add(Sign::NonNeg), Sign::Pos);
        assert_eq!(Sign::NonNeg.add(Sign::NonPos), Sign::Unknown);
        assert_eq!(Sign::NonPos.mul(Sign::NonPos), Sign::NonNeg);
        // A product of positives may underflow to zero.
        assert_eq!(Sign::Pos.mul(Sign::Pos), Sign::NonNeg);
        assert_eq!(Sign::Unknown.refine(&Type::Scalar(Scalar::U32)), Sign::NonNeg);
        assert_eq!(max_sign(Sign::Unknown, Sign::Pos), Sign::Pos);
        assert_eq!(min_sign(Sign::Unknown, Sign::NonPos), Sign::NonPos);
    }
}
