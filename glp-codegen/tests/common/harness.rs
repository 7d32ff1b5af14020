//! The differential harness: a program compiled by glp-codegen and interpreted is compared
//! with the same program compiled by rustc, over the edge values of every argument type
//! (all combinations when there are few) and pseudo-random values, for three parameter
//! sets. A native panic must be an interpreter error with a location.

use super::{same, Ctx, Interpreter, KindSpec, Program, Scalar, ScalarValue, Value, TEST_KIND};
use glp_codegen::frontend::FieldDecl;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

pub fn quiet_arithmetic_panics() {
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

pub fn compile(kind: &KindSpec, source: &str, fields: &[(&str, &str)]) -> Program {
    let item: syn::ItemImpl = syn::parse_str(source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let fields: Vec<FieldDecl> =
        fields.iter().map(|(n, t)| FieldDecl { name: n.to_string(), ty: syn::parse_str(t).unwrap() }).collect();
    glp_codegen::program::compile_impl(kind, &item, Some(&fields))
        .unwrap_or_else(|d| panic!("{}", d.render("test.rs", source)))
        .program
}

pub fn edges(s: Scalar) -> Vec<Value> {
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
pub fn random(s: Scalar, state: &mut u64) -> Value {
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
pub fn inputs(types: &[Scalar]) -> Vec<Vec<Value>> {
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

pub type NativeFn<P> = dyn Fn(&P, &Ctx, &str, &[Value]) -> Value;

pub fn check_all<P>(source: &str, names: &[&str], native: &NativeFn<P>, make: impl Fn(i32, u64, f64) -> P) {
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
