//! The operators, casts and math functions, with Rust's (release build) semantics. Scalars
//! are [`crate::ir::ScalarValue`]s; only comparisons also take tuples and `()`.

use super::value::Value;
use crate::ir::{BinaryOp, Literal, MathFn, Scalar, ScalarValue as S, UnaryOp};
use std::cmp::Ordering;

/// Why an operation produced no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpError {
    DivideByZero,
    RemainderByZero,
    DivideOverflow,
    RemainderOverflow,
    /// Operands of types the operator does not take (an ill-typed program).
    Type,
}

type OpResult<T = S> = Result<T, OpError>;

/// A literal as a value of type `ty` (the same conversions as the CUDA emitter).
pub(crate) fn literal(l: Literal, ty: Option<Scalar>) -> S {
    match (l, ty) {
        (Literal::Bool(b), _) => S::Bool(b),
        (Literal::Int(v), Some(Scalar::I32)) => S::I32(v as i32),
        (Literal::Int(v), Some(Scalar::I64)) => S::I64(v as i64),
        (Literal::Int(v), Some(Scalar::U32)) => S::U32(v as u32),
        (Literal::Int(v), Some(Scalar::U64)) => S::U64(v),
        (Literal::Int(v), Some(Scalar::F32)) => S::F32(v as f64 as f32),
        (Literal::Int(v), Some(Scalar::F64)) => S::F64(v as f64),
        (Literal::Int(v), Some(Scalar::Bool)) => S::Bool(v != 0),
        // Unresolved integer literals default to i32, as in Rust.
        (Literal::Int(v), None) => S::I32(v as i32),
        (Literal::Float(f), Some(Scalar::F32)) => S::F32(f as f32),
        (Literal::Float(f), Some(s)) if s != Scalar::F64 => cast(S::F64(f), s),
        (Literal::Float(f), _) => S::F64(f),
    }
}

/// `!v` and `-v`.
pub(crate) fn unary(op: UnaryOp, v: S) -> OpResult {
    Ok(match (op, v) {
        (UnaryOp::Neg, S::I32(x)) => S::I32(x.wrapping_neg()),
        (UnaryOp::Neg, S::I64(x)) => S::I64(x.wrapping_neg()),
        (UnaryOp::Neg, S::U32(x)) => S::U32(x.wrapping_neg()),
        (UnaryOp::Neg, S::U64(x)) => S::U64(x.wrapping_neg()),
        (UnaryOp::Neg, S::F32(x)) => S::F32(-x),
        (UnaryOp::Neg, S::F64(x)) => S::F64(-x),
        (UnaryOp::Not, S::Bool(x)) => S::Bool(!x),
        (UnaryOp::Not, S::I32(x)) => S::I32(!x),
        (UnaryOp::Not, S::I64(x)) => S::I64(!x),
        (UnaryOp::Not, S::U32(x)) => S::U32(!x),
        (UnaryOp::Not, S::U64(x)) => S::U64(!x),
        _ => return Err(OpError::Type),
    })
}

/// The shift amount Rust uses: the right operand reduced modulo the width (any integer
/// type; negative amounts wrap as their two's complement).
fn shift_amount(b: S) -> Result<u32, OpError> {
    Ok(match b {
        S::I32(y) => y as u32,
        S::U32(y) => y,
        S::I64(y) => y as u32,
        S::U64(y) => y as u32,
        _ => return Err(OpError::Type),
    })
}

fn compare<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> OpResult {
    Ok(S::Bool(match op {
        BinaryOp::Eq => a == b,
        BinaryOp::Ne => a != b,
        BinaryOp::Lt => a < b,
        BinaryOp::Le => a <= b,
        BinaryOp::Gt => a > b,
        BinaryOp::Ge => a >= b,
        _ => return Err(OpError::Type),
    }))
}

macro_rules! int_binary {
    ($op:expr, $a:expr, $b:expr, $variant:ident) => {{
        let (a, b, op) = ($a, $b, $op);
        Ok(S::$variant(match op {
            BinaryOp::Add => a.wrapping_add(b),
            BinaryOp::Sub => a.wrapping_sub(b),
            BinaryOp::Mul => a.wrapping_mul(b),
            BinaryOp::Div => match a.checked_div(b) {
                Some(v) => v,
                None if b == 0 => return Err(OpError::DivideByZero),
                None => return Err(OpError::DivideOverflow),
            },
            BinaryOp::Rem => match a.checked_rem(b) {
                Some(v) => v,
                None if b == 0 => return Err(OpError::RemainderByZero),
                None => return Err(OpError::RemainderOverflow),
            },
            BinaryOp::BitAnd => a & b,
            BinaryOp::BitOr => a | b,
            BinaryOp::BitXor => a ^ b,
            _ => return compare(op, a, b),
        }))
    }};
}

macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr, $variant:ident) => {{
        let (a, b, op) = ($a, $b, $op);
        Ok(S::$variant(match op {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            // `%` on floats is C's fmod (LLVM's frem).
            BinaryOp::Rem => a % b,
            _ => return compare(op, a, b),
        }))
    }};
}

/// `a op b` on values: scalars, or (for comparisons) tuples and `()`.
pub(crate) fn binary(op: BinaryOp, a: Value, b: Value) -> OpResult<Value> {
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => scalar_binary(op, x, y).map(Value::Scalar),
        (Value::Unit, Value::Unit) => compare(op, (), ()).map(Value::Scalar),
        (Value::Tuple(x), Value::Tuple(y)) if x.len() == y.len() => {
            // Rust's tuple comparisons: lexicographic, each element by `partial_cmp`
            // (an unordered pair decides `false`), the last by the operator itself.
            let verdict = match op {
                BinaryOp::Eq => x == y,
                BinaryOp::Ne => x != y,
                _ if op.is_comparison() => 'lexicographic: {
                    let n = x.len();
                    for (i, (p, q)) in x.iter().zip(y.iter()).enumerate() {
                        let (Value::Scalar(p), Value::Scalar(q)) = (p, q) else { return Err(OpError::Type) };
                        if i + 1 == n {
                            return scalar_binary(op, p, q).map(Value::Scalar);
                        }
                        match partial_cmp(p, q)? {
                            Some(Ordering::Equal) => continue,
                            Some(o) => {
                                let want = if matches!(op, BinaryOp::Lt | BinaryOp::Le) {
                                    Ordering::Less
                                } else {
                                    Ordering::Greater
                                };
                                break 'lexicographic o == want;
                            }
                            None => break 'lexicographic false,
                        }
                    }
                    // Empty tuples are equal.
                    return compare(op, (), ()).map(Value::Scalar);
                }
                _ => return Err(OpError::Type),
            };
            Ok(Value::Scalar(S::Bool(verdict)))
        }
        _ => Err(OpError::Type),
    }
}

/// `a op b` on scalars, for every operator but the short-circuit ones (which the evaluator
/// handles; here they are the plain logical operators).
pub(crate) fn scalar_binary(op: BinaryOp, a: S, b: S) -> OpResult {
    if op.is_shift() {
        let n = shift_amount(b)?;
        let left = op == BinaryOp::Shl;
        return Ok(match a {
            S::I32(x) => S::I32(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            S::I64(x) => S::I64(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            S::U32(x) => S::U32(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            S::U64(x) => S::U64(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            _ => return Err(OpError::Type),
        });
    }
    match (a, b) {
        (S::I32(x), S::I32(y)) => int_binary!(op, x, y, I32),
        (S::I64(x), S::I64(y)) => int_binary!(op, x, y, I64),
        (S::U32(x), S::U32(y)) => int_binary!(op, x, y, U32),
        (S::U64(x), S::U64(y)) => int_binary!(op, x, y, U64),
        (S::F32(x), S::F32(y)) => float_binary!(op, x, y, F32),
        (S::F64(x), S::F64(y)) => float_binary!(op, x, y, F64),
        (S::Bool(x), S::Bool(y)) => match op {
            BinaryOp::BitAnd | BinaryOp::And => Ok(S::Bool(x & y)),
            BinaryOp::BitOr | BinaryOp::Or => Ok(S::Bool(x | y)),
            BinaryOp::BitXor => Ok(S::Bool(x ^ y)),
            _ => compare(op, x, y),
        },
        _ => Err(OpError::Type),
    }
}

fn partial_cmp(a: S, b: S) -> Result<Option<Ordering>, OpError> {
    Ok(match (a, b) {
        (S::Bool(x), S::Bool(y)) => x.partial_cmp(&y),
        (S::I32(x), S::I32(y)) => x.partial_cmp(&y),
        (S::I64(x), S::I64(y)) => x.partial_cmp(&y),
        (S::U32(x), S::U32(y)) => x.partial_cmp(&y),
        (S::U64(x), S::U64(y)) => x.partial_cmp(&y),
        (S::F32(x), S::F32(y)) => x.partial_cmp(&y),
        (S::F64(x), S::F64(y)) => x.partial_cmp(&y),
        _ => return Err(OpError::Type),
    })
}

macro_rules! cast_from {
    ($x:expr, $to:expr) => {{
        let x = $x;
        match $to {
            Scalar::I32 => S::I32(x as i32),
            Scalar::I64 => S::I64(x as i64),
            Scalar::U32 => S::U32(x as u32),
            Scalar::U64 => S::U64(x as u64),
            Scalar::F32 => S::F32(x as f32),
            Scalar::F64 => S::F64(x as f64),
            // Only `bool as bool` type-checks; others compare with zero.
            Scalar::Bool => S::Bool(x as f64 != 0.0),
        }
    }};
}

/// `v as to`: Rust's `as` (integers truncate or sign-extend, floats to integers saturate
/// with NaN to 0, integers to floats round to nearest, f64 to f32 rounds).
pub(crate) fn cast(v: S, to: Scalar) -> S {
    match v {
        S::Bool(x) if to == Scalar::Bool => S::Bool(x),
        S::Bool(x) => cast_from!(x as u8, to),
        S::I32(x) if to == Scalar::Bool => S::Bool(x != 0),
        S::I32(x) => cast_from!(x, to),
        S::I64(x) if to == Scalar::Bool => S::Bool(x != 0),
        S::I64(x) => cast_from!(x, to),
        S::U32(x) if to == Scalar::Bool => S::Bool(x != 0),
        S::U32(x) => cast_from!(x, to),
        S::U64(x) if to == Scalar::Bool => S::Bool(x != 0),
        S::U64(x) => cast_from!(x, to),
        S::F32(x) => cast_from!(x, to),
        S::F64(x) => cast_from!(x, to),
    }
}

/// `a.powi(b)` by binary exponentiation, the algorithm of compiler-rt's `__powidf2` /
/// `__powisf2` (what Rust's `powi` calls) and of the CUDA prelude's `glp_powi`.
macro_rules! powi {
    ($a:expr, $b:expr, $t:ty) => {{
        let (mut a, mut b): ($t, i32) = ($a, $b);
        let recip = b < 0;
        let mut r: $t = 1.0;
        loop {
            if b & 1 != 0 {
                r *= a;
            }
            b /= 2;
            if b == 0 {
                break;
            }
            a *= a;
        }
        if recip {
            1.0 / r
        } else {
            r
        }
    }};
}

pub(crate) fn powi_f64(a: f64, b: i32) -> f64 {
    powi!(a, b, f64)
}

pub(crate) fn powi_f32(a: f32, b: i32) -> f32 {
    powi!(a, b, f32)
}

macro_rules! float_math {
    ($f:expr, $x:expr, $y:expr, $variant:ident, $powi:ident) => {{
        let (x, y) = ($x, $y);
        let other = || match y {
            Some(S::$variant(v)) => Ok(v),
            _ => Err(OpError::Type),
        };
        S::$variant(match $f {
            MathFn::Abs => x.abs(),
            MathFn::Min => x.min(other()?),
            MathFn::Max => x.max(other()?),
            MathFn::Sqrt => x.sqrt(),
            MathFn::Exp => x.exp(),
            MathFn::Ln => x.ln(),
            MathFn::Log2 => x.log2(),
            MathFn::Floor => x.floor(),
            MathFn::Ceil => x.ceil(),
            MathFn::Round => x.round(),
            MathFn::Powf => x.powf(other()?),
            MathFn::Powi => match y {
                Some(S::I32(n)) => $powi(x, n),
                _ => return Err(OpError::Type),
            },
            _ => return Err(OpError::Type),
        })
    }};
}

macro_rules! int_math {
    ($f:expr, $x:expr, $y:expr, $variant:ident, $abs:expr) => {{
        let (x, y) = ($x, $y);
        let other = || match y {
            Some(S::$variant(v)) => Ok(v),
            _ => Err(OpError::Type),
        };
        match $f {
            MathFn::Abs => S::$variant($abs(x)),
            MathFn::Min => S::$variant(x.min(other()?)),
            MathFn::Max => S::$variant(x.max(other()?)),
            MathFn::CountOnes => S::U32(x.count_ones()),
            MathFn::LeadingZeros => S::U32(x.leading_zeros()),
            MathFn::TrailingZeros => S::U32(x.trailing_zeros()),
            MathFn::WrappingAdd => S::$variant(x.wrapping_add(other()?)),
            MathFn::WrappingSub => S::$variant(x.wrapping_sub(other()?)),
            MathFn::WrappingMul => S::$variant(x.wrapping_mul(other()?)),
            _ => return Err(OpError::Type),
        }
    }};
}

/// A math function: what Rust's method of the same name computes (`abs` of `MIN` wraps,
/// as in a release build).
pub(crate) fn math(f: MathFn, x: S, y: Option<S>) -> OpResult {
    Ok(match x {
        S::F32(x) => float_math!(f, x, y, F32, powi_f32),
        S::F64(x) => float_math!(f, x, y, F64, powi_f64),
        S::I32(x) => int_math!(f, x, y, I32, i32::wrapping_abs),
        S::I64(x) => int_math!(f, x, y, I64, i64::wrapping_abs),
        S::U32(x) => int_math!(f, x, y, U32, |v: u32| v),
        S::U64(x) => int_math!(f, x, y, U64, |v: u64| v),
        _ => return Err(OpError::Type),
    })
}
