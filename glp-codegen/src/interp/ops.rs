//! The operators, casts and math functions, with Rust's (release build) semantics.

use super::value::Value;
use crate::ir::{BinaryOp, Literal, MathFn, Scalar, UnaryOp};
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

type OpResult = Result<Value, OpError>;

/// A literal as a value of type `ty` (the same conversions as the CUDA emitter).
pub(crate) fn literal(l: Literal, ty: Option<Scalar>) -> Value {
    match (l, ty) {
        (Literal::Bool(b), _) => Value::Bool(b),
        (Literal::Int(v), Some(Scalar::I32)) => Value::I32(v as i32),
        (Literal::Int(v), Some(Scalar::I64)) => Value::I64(v as i64),
        (Literal::Int(v), Some(Scalar::U32)) => Value::U32(v as u32),
        (Literal::Int(v), Some(Scalar::U64)) => Value::U64(v),
        (Literal::Int(v), Some(Scalar::F32)) => Value::F32(v as f64 as f32),
        (Literal::Int(v), Some(Scalar::F64)) => Value::F64(v as f64),
        (Literal::Int(v), Some(Scalar::Bool)) => Value::Bool(v != 0),
        // Unresolved integer literals default to i32, as in Rust.
        (Literal::Int(v), None) => Value::I32(v as i32),
        (Literal::Float(f), Some(Scalar::F32)) => Value::F32(f as f32),
        (Literal::Float(f), Some(s)) if s != Scalar::F64 => cast(Value::F64(f), s).unwrap_or(Value::F64(f)),
        (Literal::Float(f), _) => Value::F64(f),
    }
}

/// `!v` and `-v`.
pub(crate) fn unary(op: UnaryOp, v: Value) -> OpResult {
    Ok(match (op, v) {
        (UnaryOp::Neg, Value::I32(x)) => Value::I32(x.wrapping_neg()),
        (UnaryOp::Neg, Value::I64(x)) => Value::I64(x.wrapping_neg()),
        (UnaryOp::Neg, Value::U32(x)) => Value::U32(x.wrapping_neg()),
        (UnaryOp::Neg, Value::U64(x)) => Value::U64(x.wrapping_neg()),
        (UnaryOp::Neg, Value::F32(x)) => Value::F32(-x),
        (UnaryOp::Neg, Value::F64(x)) => Value::F64(-x),
        (UnaryOp::Not, Value::Bool(x)) => Value::Bool(!x),
        (UnaryOp::Not, Value::I32(x)) => Value::I32(!x),
        (UnaryOp::Not, Value::I64(x)) => Value::I64(!x),
        (UnaryOp::Not, Value::U32(x)) => Value::U32(!x),
        (UnaryOp::Not, Value::U64(x)) => Value::U64(!x),
        _ => return Err(OpError::Type),
    })
}

/// The shift amount Rust uses: the right operand reduced modulo the width (any integer
/// type; negative amounts wrap as their two's complement).
fn shift_amount(b: Value) -> Result<u32, OpError> {
    Ok(match b {
        Value::I32(y) => y as u32,
        Value::U32(y) => y,
        Value::I64(y) => y as u32,
        Value::U64(y) => y as u32,
        _ => return Err(OpError::Type),
    })
}

fn compare<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> OpResult {
    Ok(Value::Bool(match op {
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
        Ok(Value::$variant(match op {
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
        Ok(Value::$variant(match op {
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

/// `a op b` for every operator but the short-circuit ones (which the evaluator handles;
/// here they are the plain logical operators).
pub(crate) fn binary(op: BinaryOp, a: Value, b: Value) -> OpResult {
    if op.is_shift() {
        let n = shift_amount(b)?;
        let left = op == BinaryOp::Shl;
        return Ok(match a {
            Value::I32(x) => Value::I32(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            Value::I64(x) => Value::I64(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            Value::U32(x) => Value::U32(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            Value::U64(x) => Value::U64(if left { x.wrapping_shl(n) } else { x.wrapping_shr(n) }),
            _ => return Err(OpError::Type),
        });
    }
    match (a, b) {
        (Value::I32(x), Value::I32(y)) => int_binary!(op, x, y, I32),
        (Value::I64(x), Value::I64(y)) => int_binary!(op, x, y, I64),
        (Value::U32(x), Value::U32(y)) => int_binary!(op, x, y, U32),
        (Value::U64(x), Value::U64(y)) => int_binary!(op, x, y, U64),
        (Value::F32(x), Value::F32(y)) => float_binary!(op, x, y, F32),
        (Value::F64(x), Value::F64(y)) => float_binary!(op, x, y, F64),
        (Value::Bool(x), Value::Bool(y)) => match op {
            BinaryOp::BitAnd | BinaryOp::And => Ok(Value::Bool(x & y)),
            BinaryOp::BitOr | BinaryOp::Or => Ok(Value::Bool(x | y)),
            BinaryOp::BitXor => Ok(Value::Bool(x ^ y)),
            _ => compare(op, x, y),
        },
        (Value::Unit, Value::Unit) => compare(op, (), ()),
        (Value::Tuple(x), Value::Tuple(y)) if x.len() == y.len() => {
            // Rust's tuple comparisons: lexicographic, each element by `partial_cmp`
            // (an unordered pair decides `false`), the last by the operator itself.
            match op {
                BinaryOp::Eq => Ok(Value::Bool(x == y)),
                BinaryOp::Ne => Ok(Value::Bool(x != y)),
                _ if op.is_comparison() => {
                    let n = x.len();
                    for i in 0..n {
                        let (p, q) = (x.get(i).ok_or(OpError::Type)?, y.get(i).ok_or(OpError::Type)?);
                        if i + 1 == n {
                            return binary(op, p, q);
                        }
                        match partial_cmp(p, q)? {
                            Some(Ordering::Equal) => continue,
                            Some(o) => {
                                let want = if matches!(op, BinaryOp::Lt | BinaryOp::Le) {
                                    Ordering::Less
                                } else {
                                    Ordering::Greater
                                };
                                return Ok(Value::Bool(o == want));
                            }
                            None => return Ok(Value::Bool(false)),
                        }
                    }
                    // Empty tuples are equal.
                    compare(op, (), ())
                }
                _ => Err(OpError::Type),
            }
        }
        _ => Err(OpError::Type),
    }
}

fn partial_cmp(a: Value, b: Value) -> Result<Option<Ordering>, OpError> {
    Ok(match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.partial_cmp(&y),
        (Value::I32(x), Value::I32(y)) => x.partial_cmp(&y),
        (Value::I64(x), Value::I64(y)) => x.partial_cmp(&y),
        (Value::U32(x), Value::U32(y)) => x.partial_cmp(&y),
        (Value::U64(x), Value::U64(y)) => x.partial_cmp(&y),
        (Value::F32(x), Value::F32(y)) => x.partial_cmp(&y),
        (Value::F64(x), Value::F64(y)) => x.partial_cmp(&y),
        _ => return Err(OpError::Type),
    })
}

macro_rules! cast_from {
    ($x:expr, $to:expr) => {{
        let x = $x;
        match $to {
            Scalar::I32 => Value::I32(x as i32),
            Scalar::I64 => Value::I64(x as i64),
            Scalar::U32 => Value::U32(x as u32),
            Scalar::U64 => Value::U64(x as u64),
            Scalar::F32 => Value::F32(x as f32),
            Scalar::F64 => Value::F64(x as f64),
            // Only `bool as bool` type-checks; others compare with zero.
            Scalar::Bool => Value::Bool(x as f64 != 0.0),
        }
    }};
}

/// `v as to`: Rust's `as` (integers truncate or sign-extend, floats to integers saturate
/// with NaN to 0, integers to floats round to nearest, f64 to f32 rounds).
pub(crate) fn cast(v: Value, to: Scalar) -> OpResult {
    Ok(match v {
        Value::Bool(x) if to == Scalar::Bool => Value::Bool(x),
        Value::Bool(x) => cast_from!(x as u8, to),
        Value::I32(x) if to == Scalar::Bool => Value::Bool(x != 0),
        Value::I32(x) => cast_from!(x, to),
        Value::I64(x) if to == Scalar::Bool => Value::Bool(x != 0),
        Value::I64(x) => cast_from!(x, to),
        Value::U32(x) if to == Scalar::Bool => Value::Bool(x != 0),
        Value::U32(x) => cast_from!(x, to),
        Value::U64(x) if to == Scalar::Bool => Value::Bool(x != 0),
        Value::U64(x) => cast_from!(x, to),
        Value::F32(x) => cast_from!(x, to),
        Value::F64(x) => cast_from!(x, to),
        Value::Unit | Value::Tuple(_) | Value::Context => return Err(OpError::Type),
    })
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
            Some(Value::$variant(v)) => Ok(v),
            _ => Err(OpError::Type),
        };
        Value::$variant(match $f {
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
                Some(Value::I32(n)) => $powi(x, n),
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
            Some(Value::$variant(v)) => Ok(v),
            _ => Err(OpError::Type),
        };
        match $f {
            MathFn::Abs => Value::$variant($abs(x)),
            MathFn::Min => Value::$variant(x.min(other()?)),
            MathFn::Max => Value::$variant(x.max(other()?)),
            MathFn::CountOnes => Value::U32(x.count_ones()),
            MathFn::LeadingZeros => Value::U32(x.leading_zeros()),
            MathFn::TrailingZeros => Value::U32(x.trailing_zeros()),
            MathFn::WrappingAdd => Value::$variant(x.wrapping_add(other()?)),
            MathFn::WrappingSub => Value::$variant(x.wrapping_sub(other()?)),
            MathFn::WrappingMul => Value::$variant(x.wrapping_mul(other()?)),
            _ => return Err(OpError::Type),
        }
    }};
}

/// A math function: what Rust's method of the same name computes (`abs` of `MIN` wraps,
/// as in a release build).
pub(crate) fn math(f: MathFn, x: Value, y: Option<Value>) -> OpResult {
    Ok(match x {
        Value::F32(x) => float_math!(f, x, y, F32, powi_f32),
        Value::F64(x) => float_math!(f, x, y, F64, powi_f64),
        Value::I32(x) => int_math!(f, x, y, I32, i32::wrapping_abs),
        Value::I64(x) => int_math!(f, x, y, I64, i64::wrapping_abs),
        Value::U32(x) => int_math!(f, x, y, U32, |v: u32| v),
        Value::U64(x) => int_math!(f, x, y, U64, |v: u64| v),
        _ => return Err(OpError::Type),
    })
}
