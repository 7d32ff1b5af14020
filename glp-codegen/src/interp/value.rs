//! Values the interpreter computes with: scalars, short tuples of scalars stored inline,
//! `()` and the opaque context argument. All `Copy`; nothing is allocated per value.

use crate::ir::{Scalar, Type, MAX_TUPLE_LEN};
use std::fmt;

/// A value of the subset.
#[derive(Clone, Copy)]
pub enum Value {
    /// `()`: what statements and functions without a return value produce.
    Unit,
    Bool(bool),
    I32(i32),
    I64(i64),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    /// A tuple of up to [`MAX_TUPLE_LEN`] scalars.
    Tuple(Tuple),
    /// The kind's context object (`&View`): only passed along; its methods go to the
    /// [`super::Host`].
    Context,
}

/// A tuple of scalars, stored inline: the element types and their bit patterns.
#[derive(Clone, Copy)]
pub struct Tuple {
    len: u8,
    types: [Scalar; MAX_TUPLE_LEN],
    bits: [u64; MAX_TUPLE_LEN],
}

impl Tuple {
    /// A tuple of `items`; `None` when there are more than [`MAX_TUPLE_LEN`] of them or one
    /// is not a scalar.
    pub fn new(items: &[Value]) -> Option<Tuple> {
        if items.len() > MAX_TUPLE_LEN {
            return None;
        }
        let mut t = Tuple { len: items.len() as u8, types: [Scalar::Bool; MAX_TUPLE_LEN], bits: [0; MAX_TUPLE_LEN] };
        for (i, v) in items.iter().enumerate() {
            let (ty, bits) = v.to_bits()?;
            t.types[i] = ty;
            t.bits[i] = bits;
        }
        Some(t)
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `index`, `None` past the end.
    pub fn get(&self, index: usize) -> Option<Value> {
        (index < self.len()).then(|| Value::from_bits(self.types[index], self.bits[index]))
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.len()).map(|i| Value::from_bits(self.types[i], self.bits[i]))
    }
}

impl PartialEq for Tuple {
    /// Element-wise, with the scalars' own equality (NaN differs from itself).
    fn eq(&self, other: &Tuple) -> bool {
        self.len == other.len && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl fmt::Debug for Tuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = f.debug_tuple("");
        for v in self.iter() {
            t.field(&v);
        }
        t.finish()
    }
}

impl PartialEq for Value {
    /// Rust's `==` on values of the same type (floats compare as IEEE numbers); values of
    /// different types are unequal.
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Unit, Value::Unit) | (Value::Context, Value::Context) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::I32(a), Value::I32(b)) => a == b,
            (Value::I64(a), Value::I64(b)) => a == b,
            (Value::U32(a), Value::U32(b)) => a == b,
            (Value::U64(a), Value::U64(b)) => a == b,
            (Value::F32(a), Value::F32(b)) => a == b,
            (Value::F64(a), Value::F64(b)) => a == b,
            (Value::Tuple(a), Value::Tuple(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unit => f.write_str("()"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}i32"),
            Value::I64(v) => write!(f, "{v}i64"),
            Value::U32(v) => write!(f, "{v}u32"),
            Value::U64(v) => write!(f, "{v}u64"),
            Value::F32(v) => write!(f, "{v:?}f32"),
            Value::F64(v) => write!(f, "{v:?}f64"),
            Value::Tuple(t) => t.fmt(f),
            Value::Context => f.write_str("<context>"),
        }
    }
}

impl Value {
    /// The zero of a scalar type (`false`, `0`, `0.0`).
    pub fn zero(s: Scalar) -> Value {
        Value::from_bits(s, 0)
    }

    /// The value a variable of type `ty` holds before it is assigned (the zero of its type,
    /// as the CUDA emitter's `T x{}`).
    pub fn default_of(ty: &Type) -> Value {
        match ty {
            Type::Scalar(s) => Value::zero(*s),
            Type::Tuple(items) => {
                let zeros: [Value; MAX_TUPLE_LEN] =
                    std::array::from_fn(|i| Value::zero(items.get(i).copied().unwrap_or(Scalar::Bool)));
                Tuple::new(&zeros[..items.len().min(MAX_TUPLE_LEN)]).map_or(Value::Unit, Value::Tuple)
            }
            Type::Context => Value::Context,
            Type::Unit | Type::Never | Type::Var(_) | Type::Error => Value::Unit,
        }
    }

    /// A tuple value; `None` when `items` is too long or holds a non-scalar.
    pub fn tuple(items: &[Value]) -> Option<Value> {
        Tuple::new(items).map(Value::Tuple)
    }

    /// The scalar type of a scalar value.
    pub fn scalar(&self) -> Option<Scalar> {
        Some(match self {
            Value::Bool(_) => Scalar::Bool,
            Value::I32(_) => Scalar::I32,
            Value::I64(_) => Scalar::I64,
            Value::U32(_) => Scalar::U32,
            Value::U64(_) => Scalar::U64,
            Value::F32(_) => Scalar::F32,
            Value::F64(_) => Scalar::F64,
            Value::Unit | Value::Tuple(_) | Value::Context => return None,
        })
    }

    /// Whether the value has type `ty` (`Never` and unresolved types accept anything).
    pub fn has_type(&self, ty: &Type) -> bool {
        match (self, ty) {
            (_, Type::Never | Type::Var(_) | Type::Error) => true,
            (Value::Unit, Type::Unit) | (Value::Context, Type::Context) => true,
            (Value::Tuple(t), Type::Tuple(items)) => t.len() == items.len() && t.types[..t.len()] == items[..],
            (v, Type::Scalar(s)) => v.scalar() == Some(*s),
            _ => false,
        }
    }

    /// Type and bit pattern of a scalar (bool as 0/1, floats by their IEEE bits).
    pub(crate) fn to_bits(self) -> Option<(Scalar, u64)> {
        Some(match self {
            Value::Bool(v) => (Scalar::Bool, v as u64),
            Value::I32(v) => (Scalar::I32, v as u32 as u64),
            Value::I64(v) => (Scalar::I64, v as u64),
            Value::U32(v) => (Scalar::U32, v as u64),
            Value::U64(v) => (Scalar::U64, v),
            Value::F32(v) => (Scalar::F32, v.to_bits() as u64),
            Value::F64(v) => (Scalar::F64, v.to_bits()),
            Value::Unit | Value::Tuple(_) | Value::Context => return None,
        })
    }

    pub(crate) fn from_bits(s: Scalar, bits: u64) -> Value {
        match s {
            Scalar::Bool => Value::Bool(bits != 0),
            Scalar::I32 => Value::I32(bits as u32 as i32),
            Scalar::I64 => Value::I64(bits as i64),
            Scalar::U32 => Value::U32(bits as u32),
            Scalar::U64 => Value::U64(bits),
            Scalar::F32 => Value::F32(f32::from_bits(bits as u32)),
            Scalar::F64 => Value::F64(f64::from_bits(bits)),
        }
    }

    /// Element `index` of a tuple.
    pub fn field(&self, index: usize) -> Option<Value> {
        match self {
            Value::Tuple(t) => t.get(index),
            _ => None,
        }
    }

    pub fn as_bool(self) -> Option<bool> {
        if let Value::Bool(v) = self {
            Some(v)
        } else {
            None
        }
    }
    pub fn as_i32(self) -> Option<i32> {
        if let Value::I32(v) = self {
            Some(v)
        } else {
            None
        }
    }
    pub fn as_i64(self) -> Option<i64> {
        if let Value::I64(v) = self {
            Some(v)
        } else {
            None
        }
    }
    pub fn as_u32(self) -> Option<u32> {
        if let Value::U32(v) = self {
            Some(v)
        } else {
            None
        }
    }
    pub fn as_u64(self) -> Option<u64> {
        if let Value::U64(v) = self {
            Some(v)
        } else {
            None
        }
    }
    pub fn as_f32(self) -> Option<f32> {
        if let Value::F32(v) = self {
            Some(v)
        } else {
            None
        }
    }
    pub fn as_f64(self) -> Option<f64> {
        if let Value::F64(v) = self {
            Some(v)
        } else {
            None
        }
    }

    /// An integer's value, widened without loss.
    pub(crate) fn as_i128(self) -> Option<i128> {
        Some(match self {
            Value::I32(v) => v as i128,
            Value::I64(v) => v as i128,
            Value::U32(v) => v as i128,
            Value::U64(v) => v as i128,
            _ => return None,
        })
    }

    /// The integer of type `s` holding `v` (callers keep `v` in range).
    pub(crate) fn from_i128(s: Scalar, v: i128) -> Value {
        match s {
            Scalar::I32 => Value::I32(v as i32),
            Scalar::I64 => Value::I64(v as i64),
            Scalar::U32 => Value::U32(v as u32),
            Scalar::U64 => Value::U64(v as u64),
            Scalar::Bool => Value::Bool(v != 0),
            Scalar::F32 => Value::F32(v as f32),
            Scalar::F64 => Value::F64(v as f64),
        }
    }
}

macro_rules! from_scalar {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::$variant(v)
            }
        }
    )*};
}
from_scalar!(bool => Bool, i32 => I32, i64 => I64, u32 => U32, u64 => U64, f32 => F32, f64 => F64);

impl From<()> for Value {
    fn from(_: ()) -> Value {
        Value::Unit
    }
}
