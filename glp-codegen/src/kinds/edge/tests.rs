//! The edge kind through the whole compiler: declared types (a tuple value, a scalar
//! message) in signatures, bodies, default hooks, the interpreter and the emitter, and the
//! diagnostics of programs outside the kind.

use super::*;
use crate::interp::{Host, Interpreter, RuntimeError, Value};
use crate::ir::{IntrinsicId, Scalar, ScalarValue, Type};

/// A program with a tuple value (a rank and a residual) and the default `changed`.
const RESIDUAL: &str = r#"
struct Residual { alpha: f64 }
impl EdgeProgram for Residual {
    type Value = (f64, f64);
    type Message = f64;
    fn combine(&self) -> u32 { SUM }
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> Self::Value { (0.0, 1.0) }
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: Self::Value, weight: f64) -> (bool, Self::Message) {
        (value.1 > 0.0, value.1 * weight)
    }
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: (f64, f64), combined: f64) -> (f64, f64) {
        let (rank, residual) = old;
        (rank + self.alpha * residual, combined)
    }
}
"#;

/// A view without methods (the hooks called here read none).
struct NoView;

impl Host for NoView {
    fn intrinsic(&self, _id: IntrinsicId, _args: &[Value]) -> Result<Value, RuntimeError> {
        Err(RuntimeError::host("no view"))
    }
}

fn pair(a: f64, b: f64) -> Value {
    Value::tuple(&[a.into(), b.into()]).unwrap()
}

#[test]
fn declared_types_are_the_scalars_and_tuples_the_program_declares_everywhere() {
    let ir = compile_source(RESIDUAL).unwrap_or_else(|e| panic!("{}", e.render("residual.rs", RESIDUAL)));
    assert_eq!(ir.value_type(), &Type::Tuple(vec![Scalar::F64, Scalar::F64]));
    assert_eq!(ir.message_type(), &Type::Scalar(Scalar::F64));
    let interpreter = Interpreter::new(&ir.program);
    let params = [ScalarValue::F64(0.5)];
    let apply = interpreter.hook(APPLY).unwrap();
    let new = interpreter.call(&NoView, apply, &params, &[Value::Context, 3u32.into(), pair(1.0, 2.0), 4.0.into()]);
    assert_eq!(new.unwrap(), pair(2.0, 4.0));
    // The default `changed` compares the tuples.
    let changed = interpreter.hook(CHANGED).unwrap();
    let differ = |a: Value, b: Value| interpreter.call(&NoView, changed, &params, &[a, b]).unwrap();
    assert_eq!(differ(pair(1.0, 2.0), pair(1.0, 2.0)), false.into());
    assert_eq!(differ(pair(1.0, 2.0), pair(1.0, 3.0)), true.into());
    // The emitter writes the tuple as a struct.
    let cuda = ir.device_functions();
    assert!(cuda.contains("apply") && cuda.contains("double"), "{cuda}");
}

/// The first error of `source`'s compilation.
fn first_error(source: &str) -> (String, Option<String>) {
    match compile_source(source) {
        Err(crate::program::source::SourceError::Program(d)) => {
            let first = &d.errors[0];
            (first.message.clone(), first.help.clone())
        }
        Err(other) => panic!("not a program error: {}", other.render("p.rs", source)),
        Ok(_) => panic!("compiled:\n{source}"),
    }
}

/// `RESIDUAL` with `from` replaced by `to`.
fn residual_with(from: &str, to: &str) -> String {
    assert!(RESIDUAL.contains(from), "{from}");
    RESIDUAL.replacen(from, to, 1)
}

#[test]
fn a_program_declares_each_type_once_with_the_shape_the_kind_allows() {
    let (message, help) = first_error(&residual_with("type Value = (f64, f64);\n", ""));
    assert_eq!(message, "missing `type Value = ...;`: a program declares it");
    assert!(help.unwrap().contains("a scalar or a tuple of scalars"));
    let (message, _) = first_error(&residual_with("type Message = f64;", "type Message = (f64, f64);"));
    assert_eq!(message, "`type Message` must be a scalar, not `(f64, f64)`");
    let (message, _) = first_error(&residual_with("type Message = f64;", "type Message = f64; type Message = u32;"));
    assert_eq!(message, "`type Message` is declared twice");
    let (message, _) = first_error(&residual_with("type Message = f64;", "type Message = Vec<f64>;"));
    assert_eq!(message, "unsupported type `Vec<f64>`");
    let (message, help) = first_error(&residual_with("type Message = f64;", "type Message = f64; type Extra = u32;"));
    assert_eq!(message, "only methods and the declared types may appear in an edge program impl");
    assert!(help.unwrap().starts_with("a program declares `type Value` and `type Message`;"));
}

#[test]
fn a_hook_with_another_type_than_the_declared_one_is_refused_with_the_signature() {
    let (message, help) = first_error(&residual_with("combined: f64) -> (f64, f64)", "combined: u32) -> (f64, f64)"));
    assert_eq!(message, "hook `apply` has the wrong signature");
    assert_eq!(
        help.unwrap(),
        "expected `fn apply(&self, view: &EdgeView<'_>, v: u32, old: Self::Value, combined: Self::Message) -> Self::Value`"
    );
}

#[test]
fn aggregated_is_only_for_apply() {
    let (message, _) = first_error(&residual_with("value.1 * weight", "value.1 * view.aggregated()"));
    assert_eq!(message, "`aggregated` cannot be used in `edge`");
}

#[test]
fn a_scalar_types_constant_is_not_the_kinds_constant_of_the_same_name() {
    let ir =
        compile_source(&residual_with("fn combine(&self) -> u32 { SUM }", "fn combine(&self) -> u32 { MAX }")).unwrap();
    let interpreter = Interpreter::new(&ir.program);
    let combine = interpreter.call(&NoView, interpreter.hook(COMBINE).unwrap(), &[0.5.into()], &[]).unwrap();
    assert_eq!(combine, MAX.into());
    let source = residual_with("(value.1 > 0.0, value.1 * weight)", "(u32::MAX > 0, value.1 * weight)");
    assert!(compile_source(&source).is_ok(), "u32::MAX is the type's");
    assert!(is_idempotent(MIN) && is_idempotent(MAX) && !is_idempotent(SUM));
}

#[test]
fn an_impl_that_writes_its_own_identity_is_refused_at_the_method() {
    let item: proc_macro2::TokenStream = r#"
        impl EdgeProgram for Zero {
            type Value = u32;
            type Message = u32;
            fn identity(&self) -> u32 { 0 }
            fn combine(&self) -> u32 { MIN }
            fn init(&self, view: &EdgeView<'_>, v: VertexId) -> u32 { v }
            fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: u32, weight: f64) -> (bool, u32) { (true, value) }
            fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: u32, combined: u32) -> u32 { old.min(combined) }
        }"#
    .parse()
    .unwrap();
    let out = expand_attribute(proc_macro2::TokenStream::new(), item).to_string();
    assert!(out.contains("compile_error"), "{out}");
    assert!(out.contains("`identity` is the combine's own"), "{out}");
    // The impl stays as written beside the error (the IDE keeps working), with no second
    // `identity` and no CompiledEdgeProgram impl built on it.
    assert_eq!(out.matches("fn identity").count(), 1, "{out}");
    assert!(!out.contains("CompiledEdgeProgram"), "{out}");
}

/// `receiver`: whether `edge` reads its receiver or the weight; `settled`: whether the program writes `settled`.
#[test]
fn the_features_say_whether_edge_reads_its_receiver_and_whether_settled_is_written() {
    let reads_weight = compile_source(RESIDUAL).unwrap();
    assert!(reads_weight.features.contains(RECEIVER_FEATURE));
    assert!(!reads_weight.features.contains(SETTLED_FEATURE));

    let sender_only = RESIDUAL.replace("value.1 * weight", "value.1 * 0.5");
    let sender_only = compile_source(&sender_only).unwrap();
    assert!(!sender_only.features.contains(RECEIVER_FEATURE), "{:?}", sender_only.features);

    let settles = RESIDUAL
        .replace("    fn apply(", "    fn settled(&self, value: (f64, f64)) -> bool { value.1 == 0.0 }\n    fn apply(");
    assert!(compile_source(&settles).unwrap().features.contains(SETTLED_FEATURE));
}
