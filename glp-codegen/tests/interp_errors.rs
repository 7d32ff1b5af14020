//! The IR interpreter's run-time errors: division and remainder by zero and overflow
//! reported at the operator (through helpers too), host errors with the call's location,
//! and bad calls (wrong function, arguments or parameters, a host returning the wrong type)
//! as errors, never panics.

#[macro_use]
mod common;

use common::*;

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

/// Every program of this file, emitted as CUDA, compiles with NVRTC without a warning.
/// Skips without NVRTC unless `GLP_REQUIRE_NVRTC=1`.
#[test]
fn every_program_compiles_with_nvrtc() {
    let sources = [("failing", FAILING)];
    common::nvrtc::assert_programs_compile("every_program_compiles_with_nvrtc", &sources);
}
