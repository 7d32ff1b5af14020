//! The edge program hooks trait ([`EdgeProgram`]), the messages' combine ([`Combinable`])
//! and the vertex values' scalars ([`VertexValue`]).

use crate::error::Error;
use crate::graph::VertexId;
use glp_codegen::interp::Value;
use glp_codegen::ir::ScalarValue;
use std::fmt;

use super::EdgeView;

pub use glp_codegen::kinds::edge::{is_idempotent, BOTH, IN, MAX, MIN, NO_SOURCE, OUT, SUM};

/// An edge program: the hooks an engine calls, written as plain Rust in the subset the
/// compiler lowers to CUDA (put `#[glp::edge_program]` on the impl).
///
/// A run gives each vertex `v` the value `init(view, v)`, then iterates: every edge carries
/// `edge(view, from, to, value of from, weight)` (a message, or none) to `to`, the messages
/// a vertex receives are combined by `combine` (in a fixed order: sums do not depend on the
/// thread count), and `apply(view, v, old, combined)` gives its new value (`combined` is the
/// combine's identity when no message came). A run stops after an iteration in which no
/// vertex `changed`, or after `iterations` of them.
pub trait EdgeProgram: Sync {
    /// A vertex's value: a scalar or a tuple of scalars.
    type Value: VertexValue;
    /// What an edge carries: a scalar.
    type Message: Combinable;

    /// The program's name in messages. Default: the type's name.
    fn name(&self) -> &str {
        let full = std::any::type_name::<Self>();
        full.rsplit("::").next().unwrap_or(full)
    }

    /// The identity of [`EdgeProgram::combine`] for the message type (not a hook: the
    /// attribute writes it from `combine` and [`identity`], and refuses an impl that writes
    /// its own: the GPU's kernels and the interpreter combine from the combine's identity).
    fn identity(&self) -> Self::Message;

    /// [`MIN`], [`MAX`] or [`SUM`]: how a vertex's messages combine.
    fn combine(&self) -> u32;

    /// [`OUT`], [`IN`] or [`BOTH`]: which way edges carry values. Default: [`OUT`].
    fn direction(&self) -> u32 {
        OUT
    }

    /// Whether an iteration processes only the edges from the vertices that changed in the
    /// previous one (all of them in the first); a vertex that then receives no message keeps
    /// its value (`apply` is not called for it). Default: false.
    fn frontier(&self) -> bool {
        false
    }

    /// The most iterations a run makes. Default: `u32::MAX` (until no vertex changes).
    fn iterations(&self) -> u32 {
        u32::MAX
    }

    /// Whether the program reads edge weights: a run refuses a graph without them (on a
    /// graph with none every weight is 1). Default: false.
    fn weighted(&self) -> bool {
        false
    }

    /// The value of `v` before the first iteration.
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> Self::Value;

    /// The message the edge from `from` (whose value is `value`) carries to `to`, as
    /// `(true, message)`, or `(false, _)` for none.
    fn edge(
        &self,
        view: &EdgeView<'_>,
        from: VertexId,
        to: VertexId,
        value: Self::Value,
        weight: f64,
    ) -> (bool, Self::Message);

    /// `v`'s new value from its old one and its combined messages.
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: Self::Value, combined: Self::Message) -> Self::Value;

    /// Whether a vertex whose value went from `old` to `new` changed. Default: `old != new`.
    fn changed(&self, old: Self::Value, new: Self::Value) -> bool {
        old != new
    }

    /// `v`'s share of [`EdgeView::aggregated`], summed over every vertex before each
    /// iteration (PageRank's rank of the vertices without out-edges). Default: 0.
    fn aggregate(&self, _view: &EdgeView<'_>, _v: VertexId, _value: Self::Value) -> f64 {
        0.0
    }

    /// Whether a vertex whose value is `value` is settled: no later message changes it, and
    /// the first message that settles a vertex settles it as all of that iteration's messages
    /// would (BFS: a reached vertex keeps its depth, and every message of an iteration carries
    /// the same depth). The frontier engine then skips settled receivers and stops pulling a
    /// receiver's messages once its value settles (Ligra's and Beamer's bottom-up step); the
    /// CPU engine ignores it, so a wrong promise shows as a difference. Default: false.
    fn settled(&self, _value: Self::Value) -> bool {
        false
    }

    /// An error that ends the run, or `None`. Not a hook: a program whose hooks can fail (one
    /// run on the interpreter) records the first failure and reports it here; the engine
    /// asks after every phase of an iteration. Default: `None`.
    fn failure(&self) -> Option<Error> {
        None
    }
}

/// A message type: a scalar the engines combine.
pub trait Combinable: Copy + Send + Sync + fmt::Debug {
    /// `self` combined with `other` by combine `op` ([`MIN`], [`MAX`], [`SUM`]; integers
    /// add wrapping, as the GPU's atomics do).
    fn combine(self, other: Self, op: u32) -> Self;
}

/// A message type whose Rust type fixes the identities of the combines (the natives; the
/// interpreter's messages take theirs from the program's declared type).
pub trait Identity: Combinable {
    /// The identity of combine `op`: the type's largest value for [`MIN`] (`+inf` for
    /// floats), its smallest for [`MAX`], 0 for [`SUM`].
    fn identity(op: u32) -> Self;
}

/// The identity of combine `op` for message type `M` ([`EdgeProgram::identity`] as the
/// attribute writes it).
pub fn identity<M: Identity>(op: u32) -> M {
    M::identity(op)
}

macro_rules! integer_message {
    ($($t:ty),*) => {$(
        impl Combinable for $t {
            #[inline]
            fn combine(self, other: Self, op: u32) -> Self {
                match op {
                    MIN => self.min(other),
                    MAX => self.max(other),
                    _ => self.wrapping_add(other),
                }
            }
        }
        impl Identity for $t {
            fn identity(op: u32) -> Self {
                match op {
                    MIN => <$t>::MAX,
                    MAX => <$t>::MIN,
                    _ => 0,
                }
            }
        }
    )*};
}
integer_message!(u32, u64, i32, i64);

macro_rules! float_message {
    ($($t:ty),*) => {$(
        impl Combinable for $t {
            #[inline]
            fn combine(self, other: Self, op: u32) -> Self {
                match op {
                    MIN => self.min(other),
                    MAX => self.max(other),
                    _ => self + other,
                }
            }
        }
        impl Identity for $t {
            fn identity(op: u32) -> Self {
                match op {
                    MIN => <$t>::INFINITY,
                    MAX => <$t>::NEG_INFINITY,
                    _ => 0.0,
                }
            }
        }
    )*};
}
float_message!(f32, f64);

impl Combinable for ScalarValue {
    /// Combines two scalars of one type as their Rust types do; `self` when the types differ
    /// (the interpreter checks a message's type before it is combined).
    fn combine(self, other: Self, op: u32) -> Self {
        use ScalarValue as S;
        match (self, other) {
            (S::U32(a), S::U32(b)) => S::U32(a.combine(b, op)),
            (S::U64(a), S::U64(b)) => S::U64(a.combine(b, op)),
            (S::I32(a), S::I32(b)) => S::I32(a.combine(b, op)),
            (S::I64(a), S::I64(b)) => S::I64(a.combine(b, op)),
            (S::F32(a), S::F32(b)) => S::F32(a.combine(b, op)),
            (S::F64(a), S::F64(b)) => S::F64(a.combine(b, op)),
            (S::Bool(a), S::Bool(b)) => S::Bool(match op {
                MIN => a && b,
                _ => a || b,
            }),
            _ => self,
        }
    }
}

/// A vertex value type: a scalar or a tuple of scalars, which outputs write scalar by scalar.
pub trait VertexValue: Copy + Send + Sync + PartialEq + fmt::Debug {
    /// Calls `f` with each of the value's scalars, in order.
    fn for_each_scalar(self, f: &mut dyn FnMut(ScalarValue));
}

macro_rules! scalar_value {
    ($($t:ty),*) => {$(
        impl VertexValue for $t {
            fn for_each_scalar(self, f: &mut dyn FnMut(ScalarValue)) {
                f(self.into())
            }
        }
    )*};
}
scalar_value!(bool, u32, u64, i32, i64, f32, f64);

macro_rules! tuple_value {
    ($(($($t:ident $i:tt),*)),*) => {$(
        impl<$($t: VertexValue),*> VertexValue for ($($t,)*) {
            fn for_each_scalar(self, f: &mut dyn FnMut(ScalarValue)) {
                $(self.$i.for_each_scalar(f);)*
            }
        }
    )*};
}
tuple_value!((A 0, B 1), (A 0, B 1, C 2), (A 0, B 1, C 2, D 3));

impl VertexValue for Value {
    fn for_each_scalar(self, f: &mut dyn FnMut(ScalarValue)) {
        match self {
            Value::Scalar(s) => f(s),
            Value::Tuple(t) => t.iter().filter_map(Value::as_scalar).for_each(f),
            Value::Unit | Value::Context => {}
        }
    }
}
