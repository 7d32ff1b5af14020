//! Differential tests of the IR interpreter: every program is written once, compiled both by
//! rustc (the reference) and by glp-codegen (then interpreted), and the two are compared
//! over many inputs, edge values included. The `programs!` macro guarantees the source the
//! interpreter sees and the code rustc compiles are the same tokens.
//!
//! The native side runs with release arithmetic (wrapping; the workspace turns overflow
//! checks off for this package's tests); a native panic (division by zero, `MIN / -1`)
//! must be a `RuntimeError` of the interpreter.

#![allow(
    clippy::all,
    unused,
    while_true,
    unused_parens,
    overflowing_literals,
    arithmetic_overflow,
    unconditional_panic
)]

use glp_codegen::frontend::FieldDecl;
use glp_codegen::interp::{Host, Interpreter, RuntimeError, Value};
use glp_codegen::ir::{Program, Scalar, ScalarValue, Type};
use glp_codegen::program::kind::{IntrinsicSpec, KindSpec};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;

// ----- a tiny program kind with a context whose methods can be observed -------------------

static TEST_KIND: KindSpec = KindSpec {
    description: "test program",
    noun: "program",
    state_hint: "state lives in the context",
    trait_name: "TestKind",
    context_type: "Ctx",
    type_aliases: &[],
    constants: &[],
    hooks: &[],
    intrinsics: &[
        IntrinsicSpec {
            name: "probe",
            args: &[Scalar::I32],
            ret: Some(Scalar::Bool),
            allowed_in: &[],
            own_vertex_arg: None,
            feature: None,
            doc: "counts the call; x > 0",
        },
        IntrinsicSpec {
            name: "calls",
            args: &[],
            ret: Some(Scalar::U32),
            allowed_in: &[],
            own_vertex_arg: None,
            feature: None,
            doc: "calls of probe so far",
        },
        IntrinsicSpec {
            name: "label",
            args: &[Scalar::U32],
            ret: Some(Scalar::U32),
            allowed_in: &[],
            own_vertex_arg: None,
            feature: None,
            doc: "u * 7 % 13",
        },
        IntrinsicSpec {
            name: "check",
            args: &[Scalar::I64],
            ret: Some(Scalar::I64),
            allowed_in: &[],
            own_vertex_arg: None,
            feature: None,
            doc: "x, failing when negative",
        },
    ],
    default_hooks: "impl TestKind for Defaults {}",
    c_prefix: "t_",
    helpers: true,
    host_methods: &[],
};

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
fn same(a: &Value, b: &Value) -> bool {
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

// ----- the macro: one definition, two compilers --------------------------------------------

/// Defines `Native` (parameters `k: i32`, `w: u64`, `x: f64`) with the given methods, the
/// same methods as the source `SOURCE` of an `impl TestKind for Native`, and `native()`,
/// which calls a method by name on interpreter values.
macro_rules! programs {
    ($(fn $name:ident(&$s:ident, $ctx:ident: &Ctx $(, $arg:ident: $ty:ty)*) -> $ret:ty $body:block)*) => {
        pub struct Native {
            pub k: i32,
            pub w: u64,
            pub x: f64,
        }

        impl Native {
            $(pub fn $name(&$s, $ctx: &Ctx $(, $arg: $ty)*) -> $ret $body)*
        }

        pub const SOURCE: &str = concat!(
            "impl TestKind for Native {\n",
            $(stringify!(fn $name(&$s, $ctx: &Ctx $(, $arg: $ty)*) -> $ret $body), "\n",)*
            "}\n"
        );

        pub fn native(p: &Native, ctx: &Ctx, name: &str, args: &[Value]) -> Value {
            $(
                if name == stringify!($name) {
                    let mut it = args.iter().skip(1);
                    return p.$name(ctx $(, <$ty as FromValue>::from_value(*it.next().unwrap()))*).into_value();
                }
            )*
            panic!("no function {name}")
        }

        pub const NAMES: &[&str] = &[$(stringify!($name)),*];

        #[test]
        fn interpreter_matches_rustc() {
            let check = |p: &Native, ctx: &Ctx, name: &str, args: &[Value]| native(p, ctx, name, args);
            crate::check_all(SOURCE, NAMES, &check, |k, w, x| Native { k, w, x });
        }
    };
}

// ----- the harness ---------------------------------------------------------------------------

fn quiet_arithmetic_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            if !message.starts_with("attempt to") {
                default(info);
            }
        }));
    });
}

fn compile(kind: &KindSpec, source: &str, fields: &[(&str, &str)]) -> Program {
    let item: syn::ItemImpl = syn::parse_str(source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let fields: Vec<FieldDecl> =
        fields.iter().map(|(n, t)| FieldDecl { name: n.to_string(), ty: syn::parse_str(t).unwrap() }).collect();
    glp_codegen::program::compile_impl(kind, &item, Some(&fields))
        .unwrap_or_else(|d| panic!("{}", d.render("test.rs", source)))
        .program
}

fn edges(s: Scalar) -> Vec<Value> {
    match s {
        Scalar::Bool => vec![false.into(), true.into()],
        Scalar::I32 => [
            0,
            1,
            -1,
            2,
            -2,
            3,
            7,
            -7,
            13,
            31,
            32,
            33,
            64,
            100,
            -100,
            1000,
            46341,
            12345678,
            i32::MAX,
            i32::MIN,
            i32::MAX - 1,
            i32::MIN + 1,
        ]
        .into_iter()
        .map(Value::from)
        .collect(),
        Scalar::I64 => [
            0,
            1,
            -1,
            2,
            -3,
            7,
            31,
            32,
            63,
            64,
            65,
            -64,
            1 << 40,
            -(1 << 53) - 1,
            4294967296,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            i32::MIN as i64,
        ]
        .into_iter()
        .map(Value::from)
        .collect(),
        Scalar::U32 => [
            0,
            1,
            2,
            3,
            7,
            12,
            31,
            32,
            33,
            63,
            64,
            100,
            1 << 31,
            16777217,
            123456789,
            u32::MAX,
            u32::MAX - 1,
            u32::MAX - 9,
        ]
        .into_iter()
        .map(Value::from)
        .collect(),
        Scalar::U64 => [
            0,
            1,
            2,
            5,
            63,
            64,
            65,
            99,
            1 << 32,
            (1 << 53) + 1,
            (1 << 63),
            u64::MAX,
            u64::MAX - 1,
            18446744073709550591,
        ]
        .into_iter()
        .map(Value::from)
        .collect(),
        Scalar::F32 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            3.7,
            1e-3,
            1e10,
            -3e9,
            4294967296.0,
            2147483520.0,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ]
        .into_iter()
        .map(Value::from)
        .collect(),
        Scalar::F64 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            -0.49999999999999994,
            3.7,
            1e-3,
            1e10,
            -3e9,
            2147483647.5,
            -2147483648.9,
            4294967295.9,
            1.8446744073709552e19,
            9.3e18,
            -9.3e18,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]
        .into_iter()
        .map(Value::from)
        .collect(),
    }
}

/// A few pseudo-random values of `s` (xorshift), besides the edges.
fn random(s: Scalar, state: &mut u64) -> Value {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    let r = *state;
    match s {
        Scalar::Bool => (r & 1 == 1).into(),
        Scalar::I32 => ((r as i32) >> (r >> 59)).into(),
        Scalar::I64 => ((r as i64) >> (r >> 58)).into(),
        Scalar::U32 => ((r as u32) >> (r >> 59)).into(),
        Scalar::U64 => (r >> (r >> 58)).into(),
        Scalar::F32 => (((r as i32) as f32) / ((r >> 40) as f32 + 1.0)).into(),
        Scalar::F64 => (((r as i64) as f64) / ((r >> 20) as f64 + 1.0) * 1e-6).into(),
    }
}

/// Argument lists for a function taking scalars of types `types`: all combinations of
/// edge values when there are few, a sample otherwise, plus random ones.
fn inputs(types: &[Scalar]) -> Vec<Vec<Value>> {
    let lists: Vec<Vec<Value>> = types.iter().map(|&s| edges(s)).collect();
    let total: usize = lists.iter().map(|l| l.len()).product();
    let mut out = Vec::new();
    let mut state = 0x9E3779B97F4A7C15u64;
    let step = (total / 4000).max(1);
    let mut index = 0;
    while index < total {
        let mut rest = index;
        let mut args = Vec::new();
        for l in &lists {
            args.push(l[rest % l.len()]);
            rest /= l.len();
        }
        out.push(args);
        index += if step == 1 { 1 } else { step + (random(Scalar::U32, &mut state).as_u32().unwrap() as usize % 3) };
    }
    for _ in 0..500 {
        out.push(types.iter().map(|&s| random(s, &mut state)).collect());
    }
    out
}

type NativeFn<P> = dyn Fn(&P, &Ctx, &str, &[Value]) -> Value;

fn check_all<P>(source: &str, names: &[&str], native: &NativeFn<P>, make: impl Fn(i32, u64, f64) -> P) {
    quiet_arithmetic_panics();
    let program = compile(&TEST_KIND, source, &[("k", "i32"), ("w", "u64"), ("x", "f64")]);
    let interp = Interpreter::new(&program);
    let mut compared = 0usize;
    for (k, w, x) in [(3, 5, 0.5), (-7, u64::MAX, f64::NAN), (i32::MIN, 0, -1e300)] {
        let p = make(k, w, x);
        let params: Vec<ScalarValue> = program
            .params
            .iter()
            .map(|d| match d.name.as_str() {
                "k" => ScalarValue::from(k),
                "w" => ScalarValue::from(w),
                "x" => ScalarValue::from(x),
                other => panic!("unknown parameter {other}"),
            })
            .collect();
        for name in names {
            let id = interp.function(name).unwrap();
            let f = &program.functions[id as usize];
            let types: Vec<Scalar> =
                f.params.iter().skip(1).map(|&l| f.locals[l as usize].ty.scalar().unwrap()).collect();
            for mut args in inputs(&types) {
                args.insert(0, Value::Context);
                let ctx = Ctx::default();
                let want = catch_unwind(AssertUnwindSafe(|| native(&p, &ctx, name, &args))).ok();
                let ctx = Ctx::default();
                let got = interp.call(&ctx, id, &params, &args);
                match (&want, &got) {
                    (Some(w), Ok(g)) if same(w, g) => {}
                    (None, Err(e)) => assert!(e.location().is_some(), "{name}{args:?}: error without a location: {e}"),
                    _ => panic!(
                        "{name}{:?} with k={k} w={w} x={x}: rustc gives {want:?}, the interpreter {got:?}",
                        &args[1..]
                    ),
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 0);
}

// ----- the programs ---------------------------------------------------------------------------

mod integer_arithmetic {
    use super::*;
    programs! {
        fn i32_ops(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32, i32, i32) { (a + b, a - b, a * b, -a) }
        fn i64_ops(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64, i64, i64) { (a + b, a - b, a * b, -a + self.k as i64) }
        fn u32_ops(&self, c: &Ctx, a: u32, b: u32) -> (u32, u32, u32, u32) { (a + b, a - b, a * b, a * 3 + 7) }
        fn u64_ops(&self, c: &Ctx, a: u64, b: u64) -> (u64, u64, u64, u64) { (a + b, a - b, a * b, a + self.w) }
        fn i32_div(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32) { (a / b, a % b) }
        fn i64_div(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64) { (a / b, a % b) }
        fn u32_div(&self, c: &Ctx, a: u32, b: u32) -> (u32, u32) { (a / b, a % b) }
        fn u64_div(&self, c: &Ctx, a: u64, b: u64) -> (u64, u64) { (a / b, a % b) }
        fn i32_bits(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32, i32, i32) { (a & b, a | b, a ^ b, !a) }
        fn u64_bits(&self, c: &Ctx, a: u64, b: u64) -> (u64, u64, u64, u64) { (a & b, a | b, a ^ b, !a) }
        fn i32_shifts(&self, c: &Ctx, a: i32, b: u32) -> (i32, i32) { (a << b, a >> b) }
        fn u32_shifts(&self, c: &Ctx, a: u32, b: i32) -> (u32, u32) { (a << b, a >> b) }
        fn i64_shifts(&self, c: &Ctx, a: i64, b: u64) -> (i64, i64, i64) { (a << b, a >> b, a >> 70) }
        fn u64_shifts(&self, c: &Ctx, a: u64, b: i64) -> (u64, u64, u64) { (a << b, a >> b, 1u64 << 64 + b) }
        fn compare_i32(&self, c: &Ctx, a: i32, b: i32) -> (bool, bool, bool, bool) { (a < b, a <= b, a == b, a != b && a >= b || a > b) }
        fn compare_u64(&self, c: &Ctx, a: u64, b: u64) -> (bool, bool, bool, bool) { (a < b, a <= b, a > b, a >= b) }
        fn literals(&self, c: &Ctx, a: i32) -> (i32, i64, u32, u64) {
            let m: i32 = -2147483648;
            let n: i64 = -9223372036854775808;
            (m + a, n + a as i64 + i64::MAX, u32::MAX + a as u32, u64::MAX - 18446744073709551615 + 0xff)
        }
        fn compound(&self, c: &Ctx, a: i32, b: i32) -> i32 {
            let mut x = a;
            x += b;
            x *= 3;
            x -= a;
            x <<= b;
            x >>= 1;
            x ^= b;
            x |= 5;
            x &= !b;
            x += self.k;
            x %= 1000;
            x
        }
        fn compound_u64(&self, c: &Ctx, a: u64, b: u32) -> u64 {
            let mut x = a;
            x >>= b;
            x <<= b % 7;
            x -= 1;
            x /= 3;
            x += self.w;
            x
        }
        fn wrapping(&self, c: &Ctx, a: u32, b: u32) -> (u32, u32, u32, i64) {
            (a.wrapping_add(b), a.wrapping_sub(b), a.wrapping_mul(b), (a as i64).wrapping_mul(b as i64 * 1000003))
        }
    }
}

mod floats_and_bools {
    use super::*;
    programs! {
        fn f64_ops(&self, c: &Ctx, a: f64, b: f64) -> (f64, f64, f64, f64) { (a + b, a - b, a * b, a / b) }
        fn f32_ops(&self, c: &Ctx, a: f32, b: f32) -> (f32, f32, f32, f32) { (a + b, a - b, a * b, a / b) }
        fn f64_rem(&self, c: &Ctx, a: f64, b: f64) -> (f64, f64) { (a % b, -a % self.x) }
        fn f32_rem(&self, c: &Ctx, a: f32, b: f32) -> f32 { a % b }
        fn f64_compare(&self, c: &Ctx, a: f64, b: f64) -> (bool, bool, bool, bool) { (a < b, a <= b, a == b, a != b) }
        fn f32_compare(&self, c: &Ctx, a: f32, b: f32) -> (bool, bool, bool, bool) { (a > b, a >= b, a == b, a != b) }
        fn bool_ops(&self, c: &Ctx, a: bool, b: bool) -> (bool, bool, bool, bool) { (a & b, a | b, a ^ b, !a) }
        fn bool_compare(&self, c: &Ctx, a: bool, b: bool) -> (bool, bool, bool, bool) { (a < b, a <= b, a == b, a > b) }
        fn float_literals(&self, c: &Ctx, a: f64) -> (f64, f32, f64, f32) {
            (a * 0.1 + 1e-7, a as f32 * 0.1 + 3.5, f64::INFINITY - a, f32::MAX * 2.0 + f32::EPSILON)
        }
    }
}

mod casts {
    use super::*;
    programs! {
        fn from_f64(&self, c: &Ctx, a: f64) -> (i32, u32, i64, u64) { (a as i32, a as u32, a as i64, a as u64) }
        fn from_f64_to_float(&self, c: &Ctx, a: f64) -> (f32, f64) { (a as f32, a as f32 as f64) }
        fn from_f32(&self, c: &Ctx, a: f32) -> (i32, u32, i64, u64) { (a as i32, a as u32, a as i64, a as u64) }
        fn from_f32_to_f64(&self, c: &Ctx, a: f32) -> f64 { a as f64 }
        fn from_i32(&self, c: &Ctx, a: i32) -> (u32, i64, u64, f32) { (a as u32, a as i64, a as u64, a as f32) }
        fn from_i32_f64(&self, c: &Ctx, a: i32) -> (f64, i32) { (a as f64, a as u32 as i32) }
        fn from_u64(&self, c: &Ctx, a: u64) -> (i32, u32, i64, f32) { (a as i32, a as u32, a as i64, a as f32) }
        fn from_u64_f64(&self, c: &Ctx, a: u64) -> f64 { a as f64 }
        fn from_i64(&self, c: &Ctx, a: i64) -> (i32, u32, u64, f32) { (a as i32, a as u32, a as u64, a as f32) }
        fn from_i64_f64(&self, c: &Ctx, a: i64) -> f64 { a as f64 }
        fn from_u32(&self, c: &Ctx, a: u32) -> (i32, i64, f32, f64) { (a as i32, a as i64, a as f32, a as f64) }
        fn from_bool(&self, c: &Ctx, a: bool) -> (i32, u64, bool) { (a as i32, a as u64 + 1, a as bool) }
    }
}

mod math {
    use super::*;
    programs! {
        fn f64_unary(&self, c: &Ctx, a: f64) -> (f64, f64, f64, f64) { (a.abs(), a.sqrt(), a.floor(), a.ceil()) }
        fn f64_unary2(&self, c: &Ctx, a: f64) -> (f64, f64, f64, f64) { (a.round(), a.exp(), a.ln(), a.log2()) }
        fn f32_unary(&self, c: &Ctx, a: f32) -> (f32, f32, f32, f32) { (a.abs(), a.sqrt(), a.floor(), a.ceil()) }
        fn f32_unary2(&self, c: &Ctx, a: f32) -> (f32, f32, f32, f32) { (a.round(), a.exp(), a.ln(), a.log2()) }
        fn f64_binary(&self, c: &Ctx, a: f64, b: f64) -> (f64, f64, f64) { (a.min(b), a.max(b), a.powf(b)) }
        fn f32_binary(&self, c: &Ctx, a: f32, b: f32) -> (f32, f32, f32) { (a.min(b), a.max(b), a.powf(b)) }
        fn f64_powi(&self, c: &Ctx, a: f64, n: i32) -> (f64, f64) { (a.powi(n), a.powi(n % 9 - 4)) }
        fn f32_powi(&self, c: &Ctx, a: f32, n: i32) -> (f32, f32) { (a.powi(n), (a * 1.01).powi(n % 40)) }
        fn paths(&self, c: &Ctx, a: f64) -> (f64, f64, f32) { (f64::sqrt(a), f64::max(a, 1.0), f32::min(a as f32, 2.0)) }
        fn i32_math(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32, i32, u32) { (a.abs(), a.min(b), a.max(b), a.count_ones()) }
        fn i64_math(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64, i64, u32) { (a.abs(), a.min(b), a.max(b), a.leading_zeros()) }
        fn i32_bitcount(&self, c: &Ctx, a: i32) -> (u32, u32, u32) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros()) }
        fn i64_bitcount(&self, c: &Ctx, a: i64) -> (u32, u32, u32) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros()) }
        fn u32_bitcount(&self, c: &Ctx, a: u32) -> (u32, u32, u32, u32) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros(), a.min(77).max(3)) }
        fn u64_bitcount(&self, c: &Ctx, a: u64) -> (u32, u32, u32, u64) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros(), a.max(self.w)) }
    }
}

mod control_flow {
    use super::*;
    programs! {
        fn classify(&self, c: &Ctx, a: i32) -> i32 {
            match a {
                0 => 3,
                1 | 2 | 3 => 4,
                4..=1000 | 46341 => 5,
                2147483647 => 7,
                _ => 6,
            }
        }
        fn classify_u64(&self, c: &Ctx, a: u64) -> u32 {
            match a % 1000 + a / 18446744073709551000 {
                0 => 0,
                1..=9 => 1,
                10..100 => 2,
                _ => match a {
                    18446744073709551615 => 9,
                    _ => 3,
                },
            }
        }
        fn nested_loops(&self, c: &Ctx, n: u32, m: u32) -> u64 {
            let mut total: u64 = 0;
            for i in 0..n % 20 {
                if i == 13 {
                    break;
                }
                if i % 3 == 1 {
                    continue;
                }
                let mut j = 0;
                while j < m % 17 {
                    j += 1;
                    if j % 5 == 0 {
                        continue;
                    }
                    if (i + j) % 11 == 10 {
                        break;
                    }
                    total += (i * 100 + j) as u64;
                }
            }
            total
        }
        fn inclusive_to_max(&self, c: &Ctx, a: u32) -> (u32, u64) {
            let mut count = 0u32;
            let mut sum = 0u64;
            let start = if a > 10 { u32::MAX - a % 10 } else { a };
            for i in start..=u32::MAX {
                count += 1;
                sum += i as u64;
                if count > 20 {
                    break;
                }
            }
            (count, sum)
        }
        fn inclusive_i32(&self, c: &Ctx, a: i32) -> (i32, i64) {
            let mut count = 0;
            let mut sum = 0i64;
            for i in (i32::MAX - (a & 3) - 1)..=i32::MAX {
                count += 1;
                sum += i as i64;
            }
            for i in (-2147483647 - 1)..=(-2147483647 + 1) {
                sum += i as i64;
            }
            (count, sum)
        }
        fn inclusive_u64(&self, c: &Ctx, a: u64) -> u64 {
            let mut sum = 0u64;
            for i in (u64::MAX - a % 5)..=u64::MAX {
                sum = sum + (i >> 60);
            }
            sum
        }
        fn ranges(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64) {
            let mut x = 0;
            for i in a % 30..b % 30 {
                x += i;
            }
            let mut y = 0;
            for i in a % 30..=b % 30 {
                y = y * 3 + i;
            }
            (x, y)
        }
        fn early_return(&self, c: &Ctx, a: i32) -> i32 {
            if a < 0 {
                return -1;
            }
            let a = a % 10000;
            let mut i = 0;
            loop {
                if i * i > a {
                    return i;
                }
                i += 1;
            }
            -2
        }
        fn loop_match(&self, c: &Ctx, n: u32) -> u32 {
            let mut i = 0;
            let mut s = 0;
            loop {
                i += 1;
                match i % 4 {
                    0 => {
                        continue;
                    }
                    3 => {
                        if i > n % 50 {
                            break;
                        }
                    }
                    _ => {
                        s += i;
                    }
                }
            }
            s
        }
        fn block_values(&self, c: &Ctx, a: i32) -> i32 {
            let x = {
                let y = a * 2;
                y + 1
            };
            let z = if x > 5 { x } else if x < -5 { -x } else { 0 };
            let w = match z % 3 {
                0 => {
                    let q = 7;
                    q * z
                }
                _ => z,
            };
            w + x
        }
        fn late_init(&self, c: &Ctx, a: i32) -> i32 {
            let mut x;
            if a > 0 {
                x = 1;
            } else {
                x = 2;
            }
            let mut y: i32;
            y = x * 10;
            y + x
        }
        fn diverging_arms(&self, c: &Ctx, a: i32) -> i32 {
            let mut total = 0;
            for i in 0..10 {
                let v = match (a + i) % 4 {
                    0 => {
                        continue;
                    }
                    1 => i,
                    2 => {
                        if a > 100 {
                            return total + 1000;
                        }
                        2 * i
                    }
                    _ => {
                        break;
                    }
                };
                total += v;
            }
            total
        }
        fn while_cond_block(&self, c: &Ctx, a: u32) -> u32 {
            let mut i = 0;
            while {
                let limit = a % 37;
                i < limit
            } {
                i += if i % 2 == 0 { 1 } else { 2 };
            }
            i
        }
    }
}

mod calls_and_tuples {
    use super::*;
    programs! {
        fn triple(&self, c: &Ctx, a: i32, b: f64) -> (f64, u32, bool) {
            (b * a as f64 + self.x, a as u32 + c.label(a as u32), b > 0.0 || a < self.k)
        }
        fn destructure(&self, c: &Ctx, a: i32, b: f64) -> (f64, i32, bool) {
            let (x, _, z) = self.triple(c, a, b);
            let t = (x, a);
            let (p, q) = t;
            (p + t.0, q + self.square(c, q), z)
        }
        fn square(&self, c: &Ctx, a: i32) -> i32 {
            if a > 46340 || a < -46340 {
                return 0;
            }
            a * a
        }
        fn fields(&self, c: &Ctx, a: u32, b: u32) -> u32 {
            let pair = (a, b);
            let quad = (pair.1, pair.0, a ^ b, (a as u64 + 1));
            quad.0 - quad.1 + quad.2 + quad.3 as u32 + self.triple(c, a as i32, 0.5).1
        }
        fn nested_calls(&self, c: &Ctx, a: i32) -> i32 {
            self.square(c, self.square(c, a % 100) % 1000) + self.early(c, a)
        }
        fn early(&self, c: &Ctx, a: i32) -> i32 {
            for i in 0..100 {
                if i * 7 > a {
                    return i;
                }
            }
            -1
        }
        fn context_methods(&self, c: &Ctx, a: u32, b: i64) -> (u32, u32, i64) {
            (c.label(a), c.label(a + 1) + c.label(a * 3), c.check(b))
        }
        fn short_circuit(&self, c: &Ctx, a: i32, b: i32) -> (bool, u32) {
            let r = c.probe(a) && c.probe(b) || c.probe(a ^ b);
            (r, c.calls())
        }
        fn short_circuit_blocks(&self, c: &Ctx, a: i32, b: i32) -> (bool, bool, u32) {
            let x = a != 0 && b / a > 1;
            let y = a == 0 || { let q = b % a; c.probe(q) };
            (x, y, c.calls())
        }
        fn tuple_compare(&self, c: &Ctx, a: i32, b: f64) -> (bool, bool, bool, bool) {
            let p = (a, b);
            let q = (a % 3, 0.5);
            (p < q, p <= q, p == q, p > q)
        }
    }
}

mod patterns_and_constants {
    use super::*;
    programs! {
        fn negative_patterns(&self, c: &Ctx, a: i32) -> i32 {
            match a {
                -1 => 1,
                -7 | -100 => 2,
                -2147483648 => 3,
                i32::MAX => 4,
                -99..=-8 => 5,
                ..=-1000 => 6,
                -6..0 => 7,
                1000.. => 8,
                _ => 0,
            }
        }
        fn negative_patterns_i64(&self, c: &Ctx, a: i64) -> i64 {
            match a {
                i64::MIN => 1,
                -9223372036854775807 => 2,
                -64..=-1 => 3,
                i64::MAX | 4294967296 => 4,
                -2147483648i64 => 5,
                _ => a % 7,
            }
        }
        fn unsigned_extremes(&self, c: &Ctx, a: u64, b: u32) -> (u32, u32) {
            let x = match a {
                u64::MAX => 1,
                u64::MIN => 2,
                18446744073709550591..=18446744073709551614 => 3,
                _ => 4,
            };
            let y = match b {
                u32::MAX => 1,
                0 => 2,
                4294967286.. => 3,
                ..=7 => 5,
                _ => 4,
            };
            (x, y)
        }
        fn signed_extremes(&self, c: &Ctx, a: i32, b: i64) -> (i32, i64, bool, bool) {
            (i32::MIN + (a & 1), i64::MIN + b, a == i32::MIN, b > i64::MIN)
        }
        fn min_literals(&self, c: &Ctx, a: i32) -> (i32, i64, i32, i64) {
            let x: i64 = -9223372036854775808;
            (-2147483648 + a, x ^ a as i64, -2147483648i32 ^ a, -(9223372036854775807) - 1)
        }
        fn pattern_on_cast(&self, c: &Ctx, a: i64) -> i32 {
            match (a % 5) as i32 {
                -4..=-1 => -1,
                0 => 0,
                _ => 1,
            }
        }
    }
}

mod jumps_and_late_init {
    use super::*;
    programs! {
        fn deferred_init(&self, c: &Ctx, a: i32) -> i32 {
            let x;
            if a > 0 {
                x = 1;
            } else if a < -5 {
                x = 2;
            } else {
                x = 3;
            }
            let (p, q);
            p = x * 2;
            q = match a % 3 {
                0 => 1,
                _ => 2,
            };
            let y: i64;
            loop {
                y = a as i64 * 3;
                break;
            }
            let z;
            match a & 3 {
                0 => z = 10,
                _ => z = 20,
            }
            let w;
            if a == 7 {
                return -7;
            } else {
                w = 5;
            }
            x + p + q + y as i32 + z + w
        }
        fn deferred_in_loop(&self, c: &Ctx, n: u32) -> u32 {
            let mut total = 0;
            for i in 0..n % 20 {
                let v;
                if i % 2 == 0 {
                    v = i;
                } else {
                    v = i * 10;
                }
                total += v;
            }
            total
        }
        fn arm_jumps(&self, c: &Ctx, n: u32) -> (u32, u32) {
            let mut i = 0;
            let mut s = 0;
            loop {
                i += 1;
                match i % 5 {
                    0 => continue,
                    3 => if i > n % 40 { break } else { s += 2 },
                    4 => s += i,
                    _ => {}
                }
                match i {
                    100 => return (s, 100),
                    _ => {}
                }
            }
            (s, i)
        }
        fn arm_return(&self, c: &Ctx, a: i32) -> i32 {
            let v = match a % 4 {
                0 => return 40,
                1 => a,
                _ => a * 2,
            };
            v + 1
        }
        fn loop_values(&self, c: &Ctx, a: u32) -> (u32, u64) {
            let mut i = 0u32;
            let first = loop {
                i += 1;
                if i * i > a % 1000 {
                    break i;
                }
                if i > 100 {
                    break 0;
                }
            };
            let mut j = 0u64;
            let total = loop {
                j += 1;
                let inner = loop {
                    if j % 3 == 0 {
                        break j * 2;
                    }
                    j += 1;
                };
                if inner > (a % 50) as u64 {
                    break inner + j;
                }
            };
            (first, total)
        }
        fn tail_loop(&self, c: &Ctx, a: i32) -> i32 {
            let mut i = a % 17;
            loop {
                i += 3;
                if i > 20 {
                    break i * 2;
                }
            }
        }
        fn tail_loop_return(&self, c: &Ctx, a: i32) -> i32 {
            let mut i = 0;
            loop {
                i += 1;
                if i * 7 > a % 500 {
                    return i;
                }
            }
        }
        fn loop_value_tuple(&self, c: &Ctx, a: u32) -> (u32, bool) {
            let mut k = a % 9;
            let (x, odd) = loop {
                k += 1;
                if k % 4 == 0 {
                    break (k, a % 2 == 1);
                }
            };
            let v: (u32, u64) = loop {
                if x > 5 {
                    break (1, 2);
                }
                break (x, 3);
            };
            (x + v.0 + v.1 as u32, odd)
        }
        fn unit_values(&self, c: &Ctx, a: i32) -> u32 {
            let u = ();
            let w = if a > 0 {
                c.probe(a);
            } else {
            };
            let _ = w;
            let z = match a {
                0 => (),
                _ => {
                    c.probe(1);
                }
            };
            let _ = c.probe(a - 1);
            c.calls()
        }
    }
}

mod tuple_inference {
    use super::*;
    programs! {
        fn tuple_literals(&self, c: &Ctx, a: u32, b: i64) -> (u32, u64, bool) {
            let p = (a, b);
            let q: (u32, i64) = (7, -3);
            let r = if a > 5 { (a, 1) } else { (2, 3) };
            let s = match a % 3 {
                0 => (a, b),
                1 => (1, 2),
                _ => (a / 2, -b),
            };
            if a == 1 {
                return (4, 5, false);
            }
            (q.0 + r.0 + s.0, r.1 as u64 + s.1 as u64, p < (3, -1) || p == (a, 0) || q > (6, 0))
        }
        fn tuple_compare_literals(&self, c: &Ctx, a: f64, b: i64) -> (bool, bool, bool, bool) {
            let p = (a, b);
            (p < (1.5, 3), p <= (0.0, -1), p == (a, 7), p >= (2.5, 0))
        }
    }
}

mod evaluation_order {
    use super::*;
    programs! {
        fn block_after_read(&self, c: &Ctx, a: i32) -> (i32, i32, i32) {
            let mut x = a % 1000;
            let s = x + { x = 5; x };
            let mut y = a % 100;
            let t = y * 3 - { y += 1; y } + y;
            let mut z = a;
            let u = (z, { z -= 1; z }, z).1 + z;
            (s, t, u)
        }
        fn call_arguments(&self, c: &Ctx, a: i32) -> (i32, bool) {
            let mut z = a % 1000;
            let u = self.combine(c, z, { z = z / 2; z });
            let mut w = a;
            let v = (w, { w -= 1; w }) == (a, a - 1);
            (u, v)
        }
        fn combine(&self, c: &Ctx, a: i32, b: i32) -> i32 {
            a * 2 - b
        }
        fn range_bounds(&self, c: &Ctx, a: u32) -> u32 {
            let mut b = a % 10;
            let mut s = 0;
            for i in b..({ b += 5; b }) {
                s += i * 100 + b;
            }
            s
        }
        fn calls_in_order(&self, c: &Ctx, a: i32) -> (u32, u32, bool) {
            let first = c.calls() + { c.probe(a); c.calls() } * 10;
            let second = c.label(c.calls()) + { c.probe(a); c.label(c.calls()) };
            (first, second, c.probe(a) & (c.calls() > 2))
        }
        fn compound_reads_after(&self, c: &Ctx, a: i32) -> i32 {
            let mut x = a % 100;
            x += { x = 7; 1 };
            let mut y = a % 50;
            y *= y + { y -= 1; y };
            x + y
        }
    }
}

// ----- errors --------------------------------------------------------------------------------

const FAILING: &str = r#"impl TestKind for T {
    fn div(&self, c: &Ctx, a: i32) -> i32 {
        let b = a - 1;
        a / b
    }
    fn rem(&self, c: &Ctx, a: u64) -> u64 {
        let x = 10;
        x % (a - 1)
    }
    fn overflow(&self, c: &Ctx, a: i64) -> (i64, i64) {
        (a / -1, a % -1)
    }
    fn through_helper(&self, c: &Ctx, a: i32) -> i32 {
        1 + self.div(c, a)
    }
    fn host_error(&self, c: &Ctx, a: i64) -> i64 {
        c.check(a)
    }
}"#;

fn failing() -> (Program, Interpreter) {
    let program = compile(&TEST_KIND, FAILING, &[]);
    let interp = Interpreter::new(&program);
    (program, interp)
}

#[test]
fn division_by_zero_reports_the_operator() {
    let (_, interp) = failing();
    let f = interp.function("div").unwrap();
    let err = interp.call(&Ctx::default(), f, &[], &[Value::Context, 1.into()]).unwrap_err();
    assert!(matches!(err, RuntimeError::DivideByZero { .. }), "{err:?}");
    assert_eq!(err.to_string(), "4:9: attempt to divide by zero");
    assert_eq!(interp.call(&Ctx::default(), f, &[], &[Value::Context, 3.into()]), Ok(Value::from(1i32)));

    let g = interp.function("through_helper").unwrap();
    let err = interp.call(&Ctx::default(), g, &[], &[Value::Context, 1.into()]).unwrap_err();
    assert_eq!(err.location().map(|l| (l.line, l.column)), Some((4, 8)), "the error points into the helper");
}

#[test]
fn remainder_by_zero_and_overflow() {
    let (_, interp) = failing();
    let f = interp.function("rem").unwrap();
    let err = interp.call(&Ctx::default(), f, &[], &[Value::Context, 1u64.into()]).unwrap_err();
    assert!(matches!(err, RuntimeError::RemainderByZero { .. }), "{err:?}");
    assert_eq!(err.location().unwrap().line, 8);
    let f = interp.function("overflow").unwrap();
    let err = interp.call(&Ctx::default(), f, &[], &[Value::Context, i64::MIN.into()]).unwrap_err();
    assert!(matches!(err, RuntimeError::DivideOverflow { .. }), "{err:?}");
    assert_eq!(err.to_string(), "11:10: attempt to divide with overflow");
    let ok = interp.call(&Ctx::default(), f, &[], &[Value::Context, 5i64.into()]).unwrap();
    assert_eq!(ok, Value::tuple(&[(-5i64).into(), 0i64.into()]).unwrap());
}

#[test]
fn host_errors_propagate_with_the_call_location() {
    let (_, interp) = failing();
    let f = interp.function("host_error").unwrap();
    let err = interp.call(&Ctx::default(), f, &[], &[Value::Context, (-3i64).into()]).unwrap_err();
    match &err {
        RuntimeError::Host { message, location: Some(l) } => {
            assert_eq!(message, "attempt to check a negative value");
            assert_eq!(l.line, 17);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_calls_are_errors_not_panics() {
    let (_, interp) = failing();
    let f = interp.function("div").unwrap();
    let host = Ctx::default();
    assert!(matches!(interp.call(&host, 99, &[], &[]), Err(RuntimeError::BadCall { .. })));
    assert!(matches!(interp.call(&host, f, &[], &[Value::Context]), Err(RuntimeError::BadCall { .. })));
    assert!(matches!(interp.call(&host, f, &[], &[Value::Context, 1u32.into()]), Err(RuntimeError::BadCall { .. })));
    assert!(matches!(
        interp.call(&host, f, &[1.into()], &[Value::Context, 1.into()]),
        Err(RuntimeError::BadCall { .. })
    ));
    // A host returning the wrong type is reported, not trusted.
    struct Liar;
    impl Host for Liar {
        fn intrinsic(&self, _: u32, _: &[Value]) -> Result<Value, RuntimeError> {
            Ok(Value::from(1.0f64))
        }
    }
    let g = interp.function("host_error").unwrap();
    assert!(matches!(interp.call(&Liar, g, &[], &[Value::Context, 1i64.into()]), Err(RuntimeError::IllTyped { .. })));
}

// ----- the label propagation kind, with a fake view --------------------------------------------

type VertexId = u32;
type Label = u32;
type EdgeId = u64;

/// The view: label(u) = u * 7 % 13, degree(v) = v % 5, ...
pub struct View<'a> {
    counts: &'a AtomicU32,
}

impl View<'_> {
    fn label(&self, u: u32) -> u32 {
        u.wrapping_mul(7) % 13
    }
    fn next_label(&self, u: u32) -> u32 {
        u.wrapping_mul(3) % 11
    }
    fn degree(&self, v: u32) -> u64 {
        (v % 5) as u64
    }
    fn num_vertices(&self) -> u32 {
        1000
    }
    fn global_count(&self, l: u32) -> u32 {
        l.wrapping_mul(2)
    }
    fn count_label(&self, l: u32) {
        self.counts.fetch_add(l, Ordering::Relaxed);
    }
    fn edge_weight(&self, e: u64) -> f64 {
        (e % 4) as f64 * 0.25
    }
}

impl Host for View<'_> {
    fn intrinsic(&self, id: u32, args: &[Value]) -> Result<Value, RuntimeError> {
        let spec = &glp_codegen::kinds::lp::LP_KIND.intrinsics[id as usize];
        let u = |i: usize| args[i].as_u32().unwrap();
        Ok(match spec.name {
            "label" => self.label(u(0)).into(),
            "next_label" => self.next_label(u(0)).into(),
            "degree" => self.degree(u(0)).into(),
            "num_vertices" => self.num_vertices().into(),
            "global_count" => self.global_count(u(0)).into(),
            "count_label" => {
                self.count_label(u(0));
                Value::Unit
            }
            "edge_weight" => self.edge_weight(args[0].as_u64().unwrap()).into(),
            other => return Err(RuntimeError::host(format!("{other} is not faked"))),
        })
    }
}

/// The hooks with the kind's defaults (the bodies of `LP_KIND.default_hooks`).
trait LpVariant {
    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {
        v
    }
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        view.next_label(v)
    }
    fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
        (view.label(u), 1.0)
    }
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        freq
    }
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {
        best
    }
}

macro_rules! lp_variant {
    ($item:item) => {
        $item
        const LP_SOURCE: &str = stringify!($item);
    };
}

pub struct Weighted {
    boost: f64,
    gamma: f64,
    cap: u32,
}

lp_variant! {
    impl LpVariant for Weighted {
        fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
            let l = view.next_label(v);
            view.count_label(l);
            if l > self.cap { self.cap } else { l }
        }
        fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
            let d = view.degree(u);
            (view.label(u), (1.0 / (1 + d) as f64) * self.boost * view.edge_weight(edge))
        }
        fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
            freq - self.gamma * (view.global_count(label) as f64).ln()
        }
    }
}

#[test]
fn lp_hooks_match_rustc() {
    use glp_codegen::kinds::lp::{INITIAL_LABEL, LABEL_SCORE, LOAD_NEIGHBOR, PICK_LABEL, UPDATE_VERTEX};
    let lp = glp_codegen::kinds::lp::compile_impl(&syn::parse_str(LP_SOURCE).unwrap(), None).unwrap();
    let interp = Interpreter::new(&lp.program);
    for (boost, gamma, cap) in [(1.0, 0.0, 5), (2.5, 0.5, 100), (0.0, -1.0, 0)] {
        let native = Weighted { boost, gamma, cap };
        let params: Vec<ScalarValue> = lp
            .program
            .params
            .iter()
            .map(|p| match p.name.as_str() {
                "boost" => boost.into(),
                "gamma" => gamma.into(),
                "cap" => cap.into(),
                other => panic!("{other}"),
            })
            .collect();
        for v in [0u32, 1, 2, 7, 12, 999, u32::MAX] {
            let (a, b) = (AtomicU32::new(0), AtomicU32::new(0));
            let (nv, iv) = (View { counts: &a }, View { counts: &b });
            let call =
                |hook: usize, args: &[Value]| interp.call(&iv, interp.hook(hook).unwrap(), &params, args).unwrap();
            let ctx = Value::Context;
            assert_eq!(call(INITIAL_LABEL, &[ctx, v.into()]), native.initial_label(&nv, v).into());
            assert_eq!(call(PICK_LABEL, &[ctx, v.into()]), native.pick_label(&nv, v).into());
            assert_eq!(a.load(Ordering::Relaxed), b.load(Ordering::Relaxed), "count_label ran the same");
            for (u, e) in [(0u32, 0u64), (3, 1), (v, 2), (u32::MAX, u64::MAX)] {
                let want = native.load_neighbor(&nv, v, u, e).into_value();
                let got = call(LOAD_NEIGHBOR, &[ctx, v.into(), u.into(), e.into()]);
                assert!(same(&want, &got), "load_neighbor({v}, {u}, {e}): {want:?} vs {got:?}");
            }
            for (label, freq) in [(0u32, 0.0), (5, 2.5), (12, f64::INFINITY), (u32::MAX, -1.0)] {
                let want = Value::from(native.label_score(&nv, v, label, freq));
                let got = call(LABEL_SCORE, &[ctx, v.into(), label.into(), freq.into()]);
                assert!(same(&want, &got), "label_score({v}, {label}, {freq}): {want:?} vs {got:?}");
                let want = Value::from(native.update_vertex(&nv, v, label, freq));
                assert_eq!(call(UPDATE_VERTEX, &[ctx, v.into(), label.into(), freq.into()]), want);
            }
        }
    }
}

#[test]
fn one_interpreter_serves_many_threads() {
    let program = compile(&TEST_KIND, control_flow::SOURCE, &[("k", "i32"), ("w", "u64"), ("x", "f64")]);
    let interp = Interpreter::new(&program);
    let f = interp.function("nested_loops").unwrap();
    let p = control_flow::Native { k: 0, w: 0, x: 0.0 };
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let (interp, p) = (&interp, &p);
            s.spawn(move || {
                for n in 0..200u32 {
                    let (a, b) = (n + t, n * 3 + t);
                    let ctx = Ctx::default();
                    let got = interp.call(&ctx, f, &[], &[Value::Context, a.into(), b.into()]).unwrap();
                    assert_eq!(got, Value::from(p.nested_loops(&ctx, a, b)));
                }
            });
        }
    });
}

// ----- every program also compiles to CUDA ------------------------------------------------------

/// NVRTC, loaded the way the runtime loads it (no GPU needed), or `None` when the library
/// is not installed.
mod nvrtc {
    use std::ffi::{c_char, c_int, c_void, CStr, CString};

    #[link(name = "dl")]
    extern "C" {
        fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }
    const RTLD_NOW: c_int = 2;

    type Program = *mut c_void;
    type Create = unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int;
    type Compile = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
    type LogSize = unsafe extern "C" fn(Program, *mut usize) -> c_int;
    type Log = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
    type Destroy = unsafe extern "C" fn(*mut Program) -> c_int;

    pub struct Nvrtc {
        create: Create,
        compile: Compile,
        log_size: LogSize,
        log: Log,
        destroy: Destroy,
    }

    impl Nvrtc {
        pub fn load() -> Option<Nvrtc> {
            for name in ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"] {
                let name = CString::new(name).unwrap();
                // SAFETY: dlopen takes a NUL-terminated name; a null handle means "not found".
                let handle = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
                if handle.is_null() {
                    continue;
                }
                let symbol = |s: &CStr| {
                    // SAFETY: the handle is live (never closed); the name is NUL-terminated.
                    let p = unsafe { dlsym(handle, s.as_ptr()) };
                    assert!(!p.is_null(), "NVRTC lacks {s:?}");
                    p
                };
                // SAFETY: the symbols are NVRTC's C functions with these signatures
                // (nvrtc.h); `nvrtcProgram` is an opaque pointer, `nvrtcResult` an int.
                unsafe {
                    return Some(Nvrtc {
                        create: std::mem::transmute::<*mut c_void, Create>(symbol(c"nvrtcCreateProgram")),
                        compile: std::mem::transmute::<*mut c_void, Compile>(symbol(c"nvrtcCompileProgram")),
                        log_size: std::mem::transmute::<*mut c_void, LogSize>(symbol(c"nvrtcGetProgramLogSize")),
                        log: std::mem::transmute::<*mut c_void, Log>(symbol(c"nvrtcGetProgramLog")),
                        destroy: std::mem::transmute::<*mut c_void, Destroy>(symbol(c"nvrtcDestroyProgram")),
                    });
                }
            }
            None
        }

        /// Compiles `source` for sm_80 with the runtime's options; the log, or the log of
        /// the failure.
        pub fn compile(&self, name: &str, source: &str) -> Result<String, String> {
            let (src, name) = (CString::new(source).unwrap(), CString::new(name).unwrap());
            let options: Vec<CString> = ["--fmad=false", "--std=c++17", "--gpu-architecture=sm_80"]
                .iter()
                .map(|o| CString::new(*o).unwrap())
                .collect();
            let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
            let mut program: Program = std::ptr::null_mut();
            // SAFETY: every pointer is to a live NUL-terminated string or array of them, the
            // program handle is created before use and destroyed once; the log buffer has
            // the size NVRTC reports.
            unsafe {
                let created =
                    (self.create)(&mut program, src.as_ptr(), name.as_ptr(), 0, std::ptr::null(), std::ptr::null());
                assert_eq!(created, 0, "nvrtcCreateProgram failed");
                let result = (self.compile)(program, pointers.len() as c_int, pointers.as_ptr());
                let mut size = 0usize;
                (self.log_size)(program, &mut size);
                let mut log = vec![0u8; size.max(1)];
                (self.log)(program, log.as_mut_ptr().cast());
                (self.destroy)(&mut program);
                let log = String::from_utf8_lossy(&log).trim_end_matches('\0').trim().to_string();
                if result == 0 {
                    Ok(log)
                } else {
                    Err(log)
                }
            }
        }
    }
}

/// The test kind's context in CUDA: what the emitted intrinsic calls need to compile.
const TEST_VIEW_CUDA: &str = r#"
struct t_view { glp_u32 calls; };
__device__ __forceinline__ bool t_probe(const t_view& v, glp_i32 x) { return x > 0; }
__device__ __forceinline__ glp_u32 t_calls(const t_view& v) { return v.calls; }
__device__ __forceinline__ glp_u32 t_label(const t_view& v, glp_u32 u) { return u * 7u % 13u; }
__device__ __forceinline__ glp_i64 t_check(const t_view& v, glp_i64 x) { return x; }
"#;

/// Every differential program, emitted as CUDA, compiles with NVRTC without a warning (the
/// interpreter runs the IR; this checks the other back end accepts the same IR). Skips
/// without NVRTC unless `GLP_REQUIRE_NVRTC=1`.
#[test]
fn every_program_compiles_with_nvrtc() {
    let Some(nvrtc) = nvrtc::Nvrtc::load() else {
        let why = "NVRTC cannot be loaded (install it, or add its lib folder to LD_LIBRARY_PATH)";
        glp_testkit::switch::skip("every_program_compiles_with_nvrtc", glp_testkit::switch::Need::Nvrtc, why);
        return;
    };
    let sources = [
        ("integer_arithmetic", integer_arithmetic::SOURCE),
        ("floats_and_bools", floats_and_bools::SOURCE),
        ("casts", casts::SOURCE),
        ("math", math::SOURCE),
        ("control_flow", control_flow::SOURCE),
        ("calls_and_tuples", calls_and_tuples::SOURCE),
        ("patterns_and_constants", patterns_and_constants::SOURCE),
        ("jumps_and_late_init", jumps_and_late_init::SOURCE),
        ("tuple_inference", tuple_inference::SOURCE),
        ("evaluation_order", evaluation_order::SOURCE),
        ("failing", FAILING),
    ];
    for (name, source) in sources {
        let program = compile(&TEST_KIND, source, &[("k", "i32"), ("w", "u64"), ("x", "f64")]);
        let functions = glp_codegen::cuda::emit_program(&TEST_KIND, &program);
        let unit = format!("{}\n{TEST_VIEW_CUDA}\n{functions}", glp_codegen::cuda::PRELUDE);
        let numbered: String = unit.lines().enumerate().map(|(i, l)| format!("{:>5} | {l}\n", i + 1)).collect();
        match nvrtc.compile(&format!("{name}.cu"), &unit) {
            Ok(log) => {
                // `f32::MAX * 2.0` in `float_literals` overflows on purpose (#222).
                let warnings: Vec<&str> =
                    log.lines().filter(|l| l.contains(": warning") && !l.contains("#222-D")).collect();
                assert!(warnings.is_empty(), "{name}: NVRTC warns:\n{log}\n{numbered}");
            }
            Err(log) => panic!("{name}: NVRTC rejects the emitted CUDA:\n{log}\n{numbered}"),
        }
    }
}
