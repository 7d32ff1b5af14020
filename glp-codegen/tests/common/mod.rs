//! What the compiler's tests share: the test program kinds ([`test_kind`], [`TEST_KIND`]
//! with a context whose methods can be observed, [`Ctx`]), and for the interpreter's
//! differential tests (`interp_*.rs`): conversions between native values and interpreter
//! values, the [`programs!`] macro (one definition, two compilers) with the lints its
//! programs trip on purpose allowed in one place ([`two_compilers!`]), the harness that
//! compares them over edge and random inputs ([`harness`]) and NVRTC, which checks that the
//! same programs compile as CUDA ([`nvrtc`]).
//!
//! Each test file includes it with `mod common;` (`#[macro_use]` for the macros) and uses
//! what it needs; the rest is not dead code, only unused by that file.

#![allow(dead_code, unused_imports, unused_macros)]

pub mod harness;
pub mod nvrtc;

pub use glp_codegen::interp::{Host, Interpreter, RuntimeError, Value};
pub use glp_codegen::ir::{Program, Scalar, ScalarValue, Type};
pub use glp_codegen::program::kind::{IntrinsicSpec, KindSpec};
pub use harness::{check_all, compile};
use std::sync::atomic::{AtomicU32, Ordering};

// ----- test program kinds ----------------------------------------------------------------

/// A test program kind: programs are `impl TestKind for T` blocks of plain functions (no
/// hooks, helpers allowed) taking a `&Ctx` whose methods are `intrinsics`.
pub const fn test_kind(intrinsics: &'static [IntrinsicSpec]) -> KindSpec {
    KindSpec {
        description: "test program",
        noun: "program",
        state_hint: "state lives in the context",
        trait_name: "TestKind",
        context_type: "Ctx",
        type_aliases: &[],
        declared_types: &[],
        constants: &[],
        hooks: &[],
        intrinsics,
        default_hooks: "impl TestKind for Defaults {}",
        c_prefix: "t_",
        helpers: true,
        host_methods: &[],
    }
}

/// A context method of a test kind, usable in every function.
pub const fn test_intrinsic(
    name: &'static str,
    args: &'static [Scalar],
    ret: Option<Scalar>,
    doc: &'static str,
) -> IntrinsicSpec {
    IntrinsicSpec { name, args, ret, allowed_in: &[], own_vertex_arg: None, feature: None, doc }
}

/// The kind of the differential tests, with a context whose methods can be observed.
pub static TEST_KIND: KindSpec = test_kind(&[
    test_intrinsic("probe", &[Scalar::I32], Some(Scalar::Bool), "counts the call; x > 0"),
    test_intrinsic("calls", &[], Some(Scalar::U32), "calls of probe so far"),
    test_intrinsic("label", &[Scalar::U32], Some(Scalar::U32), "u * 7 % 13"),
    test_intrinsic("check", &[Scalar::I64], Some(Scalar::I64), "x, failing when negative"),
]);

/// The context: the same object serves the native code and, as a [`Host`], the interpreter.
#[derive(Default)]
pub struct Ctx {
    calls: AtomicU32,
}

impl Ctx {
    pub fn probe(&self, x: i32) -> bool {
        self.calls.fetch_add(1, Ordering::Relaxed);
        x > 0
    }
    pub fn calls(&self) -> u32 {
        self.calls.load(Ordering::Relaxed)
    }
    pub fn label(&self, u: u32) -> u32 {
        u.wrapping_mul(7) % 13
    }
    pub fn check(&self, x: i64) -> i64 {
        if x < 0 {
            panic!("attempt to check a negative value");
        }
        x
    }
}

impl Host for Ctx {
    fn intrinsic(&self, id: u32, args: &[Value]) -> Result<Value, RuntimeError> {
        Ok(match id {
            0 => self.probe(args[0].as_i32().unwrap()).into(),
            1 => self.calls().into(),
            2 => self.label(args[0].as_u32().unwrap()).into(),
            3 => {
                let x = args[0].as_i64().unwrap();
                if x < 0 {
                    return Err(RuntimeError::host("attempt to check a negative value"));
                }
                x.into()
            }
            _ => return Err(RuntimeError::host("no such intrinsic")),
        })
    }
}

// ----- conversions between native values and interpreter values ----------------------------

pub trait FromValue {
    fn from_value(v: Value) -> Self;
}
macro_rules! from_value {
    ($($t:ty => $m:ident),*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> $t {
                v.$m().expect(concat!("expected ", stringify!($t)))
            }
        }
    )*};
}
from_value!(bool => as_bool, i32 => as_i32, i64 => as_i64, u32 => as_u32, u64 => as_u64, f32 => as_f32, f64 => as_f64);

pub trait IntoValue {
    fn into_value(self) -> Value;
}
macro_rules! into_value {
    ($($t:ty),*) => {$(
        impl IntoValue for $t {
            fn into_value(self) -> Value {
                Value::from(self)
            }
        }
    )*};
}
into_value!(bool, i32, i64, u32, u64, f32, f64, ());
impl<A: Into<Value>, B: Into<Value>> IntoValue for (A, B) {
    fn into_value(self) -> Value {
        Value::tuple(&[self.0.into(), self.1.into()]).unwrap()
    }
}
impl<A: Into<Value>, B: Into<Value>, C: Into<Value>> IntoValue for (A, B, C) {
    fn into_value(self) -> Value {
        Value::tuple(&[self.0.into(), self.1.into(), self.2.into()]).unwrap()
    }
}
impl<A: Into<Value>, B: Into<Value>, C: Into<Value>, D: Into<Value>> IntoValue for (A, B, C, D) {
    fn into_value(self) -> Value {
        Value::tuple(&[self.0.into(), self.1.into(), self.2.into(), self.3.into()]).unwrap()
    }
}

/// Values equal bit for bit (NaNs of any payload equal each other).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Scalar(ScalarValue::F32(x)), Value::Scalar(ScalarValue::F32(y))) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (Value::Scalar(ScalarValue::F64(x)), Value::Scalar(ScalarValue::F64(y))) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (Value::Tuple(x), Value::Tuple(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(&p, &q)),
        _ => a == b,
    }
}

// ----- the macros: one definition, two compilers -------------------------------------------

/// Items written once for rustc and for glp-codegen (the same text goes to both), with the
/// lints that such code trips on purpose allowed on them, and only on them: arguments the
/// hook signatures give but a body does not read, constant overflows and divisions by zero
/// whose run-time errors the interpreter must match, and odd but valid control flow and
/// patterns the compiler must lower.
macro_rules! two_compilers {
    ($($item:item)*) => {$(
        #[allow(
            clippy::all,
            unused,
            while_true,
            unused_parens,
            overflowing_literals,
            arithmetic_overflow,
            unconditional_panic
        )]
        $item
    )*};
}

/// Defines `Native` (parameters `k: i32`, `w: u64`, `x: f64`) with the given methods, the
/// same methods as the source `SOURCE` of an `impl TestKind for Native`, and `native()`,
/// which calls a method by name on interpreter values.
macro_rules! programs {
    ($(fn $name:ident(&$s:ident, $ctx:ident: &Ctx $(, $arg:ident: $ty:ty)*) -> $ret:ty $body:block)*) => {
        two_compilers! {
            pub struct Native {
                pub k: i32,
                pub w: u64,
                pub x: f64,
            }

            impl Native {
                $(pub fn $name(&$s, $ctx: &Ctx $(, $arg: $ty)*) -> $ret $body)*
            }
        }

        pub const SOURCE: &str = concat!(
            "impl TestKind for Native {\n",
            $(stringify!(fn $name(&$s, $ctx: &Ctx $(, $arg: $ty)*) -> $ret $body), "\n",)*
            "}\n"
        );

        pub fn native(p: &Native, ctx: &Ctx, name: &str, args: &[crate::common::Value]) -> crate::common::Value {
            $(
                if name == stringify!($name) {
                    let mut it = args.iter().skip(1);
                    return p.$name(ctx $(, <$ty as crate::common::FromValue>::from_value(*it.next().unwrap()))*).into_value();
                }
            )*
            panic!("no function {name}")
        }

        pub const NAMES: &[&str] = &[$(stringify!($name)),*];

        #[test]
        fn interpreter_matches_rustc() {
            let check = |p: &Native, ctx: &Ctx, name: &str, args: &[crate::common::Value]| native(p, ctx, name, args);
            crate::common::check_all(SOURCE, NAMES, &check, |k, w, x| Native { k, w, x });
        }
    };
}
