//! Values the interpreter computes with: scalars ([`ScalarValue`], shared with the kernel
//! parameters), short tuples of scalars stored inline, `()` and the opaque context argument.
//! All `Copy`; nothing is allocated per value.

use crate::ir::{Scalar, ScalarValue, Type, MAX_TUPLE_LEN};
use std::fmt;

/// A value of the subset.
#[derive(Clone, Copy)]
pub enum Value {
    /// `()`: what statements and functions without a return value produce.
    Unit,
    /// A `bool`, an integer or a float.
    Scalar(ScalarValue),
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
            let (ty, bits) = v.as_scalar()?.to_bits();
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
        (index < self.len()).then(|| Value::Scalar(ScalarValue::from_bits(self.types[index], self.bits[index])))
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.len()).map(|i| Value::Scalar(ScalarValue::from_bits(self.types[i], self.bits[i])))
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
            (Value::Scalar(a), Value::Scalar(b)) => a == b,
            (Value::Tuple(a), Value::Tuple(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unit => f.write_str("()"),
            Value::Scalar(ScalarValue::Bool(v)) => write!(f, "{v}"),
            Value::Scalar(ScalarValue::F32(v)) => write!(f, "{v:?}f32"),
            Value::Scalar(ScalarValue::F64(v)) => write!(f, "{v:?}f64"),
            // Integers with their type as a suffix: `3u32`.
            Value::Scalar(v) => write!(f, "{v}{}", v.scalar()),
            Value::Tuple(t) => t.fmt(f),
            Value::Context => f.write_str("<context>"),
        }
    }
}

macro_rules! accessors {
    ($($name:ident -> $t:ty: $variant:ident),*) => {$(
        #[doc = concat!("The `", stringify!($t), "` this value holds, if it is one.")]
        pub fn $name(self) -> Option<$t> {
            match self {
                Value::Scalar(ScalarValue::$variant(v)) => Some(v),
                _ => None,
            }
        }
    )*};
}

impl Value {
    /// The zero of a scalar type (`false`, `0`, `0.0`).
    pub fn zero(s: Scalar) -> Value {
        Value::Scalar(ScalarValue::zero(s))
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

    /// The scalar this value is, if it is one.
    pub fn as_scalar(self) -> Option<ScalarValue> {
        match self {
            Value::Scalar(v) => Some(v),
            _ => None,
        }
    }

    /// The scalar type of a scalar value.
    pub fn scalar(&self) -> Option<Scalar> {
        self.as_scalar().map(ScalarValue::scalar)
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

    /// Element `index` of a tuple.
    pub fn field(&self, index: usize) -> Option<Value> {
        match self {
            Value::Tuple(t) => t.get(index),
            _ => None,
        }
    }

    accessors!(
        as_bool -> bool: Bool,
        as_i32 -> i32: I32,
        as_i64 -> i64: I64,
        as_u32 -> u32: U32,
        as_u64 -> u64: U64,
        as_f32 -> f32: F32,
        as_f64 -> f64: F64
    );

    /// An integer's value, widened without loss.
    pub(crate) fn as_i128(self) -> Option<i128> {
        self.as_scalar()?.as_i128()
    }
}

impl From<ScalarValue> for Value {
    fn from(v: ScalarValue) -> Value {
        Value::Scalar(v)
    }
}

macro_rules! from_scalar {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::Scalar(ScalarValue::$variant(v))
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
