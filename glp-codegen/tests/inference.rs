//! Type inference of parameters the attribute sees only through their uses (the macro has
//! the impl, not the struct): `!self.flag` is a bool or an integer, decided by where the
//! value goes, and refused on floats.

use glp_codegen::ir::Scalar;
use glp_codegen::program::kind::KindSpec;

static KIND: KindSpec = KindSpec {
    description: "test program",
    noun: "program",
    state_hint: "state lives in the context",
    trait_name: "TestKind",
    context_type: "Ctx",
    type_aliases: &[],
    constants: &[],
    hooks: &[],
    intrinsics: &[],
    default_hooks: "impl TestKind for Defaults {}",
    c_prefix: "t_",
    helpers: true,
    host_methods: &[],
};

/// The inferred type of the only parameter of `fn f(&self) -> ret { body }`, or the errors.
fn parameter_type(ret: &str, body: &str) -> Result<Scalar, String> {
    let source = format!("impl TestKind for T {{ fn f(&self) -> {ret} {{ {body} }} }}");
    let item: syn::ItemImpl = syn::parse_str(&source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    match glp_codegen::program::compile_impl(&KIND, &item, None) {
        Ok(compiled) => Ok(compiled.program.params[0].ty),
        Err(d) => Err(d.errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ")),
    }
}

#[test]
fn not_of_a_parameter_takes_the_type_its_value_needs() {
    assert_eq!(parameter_type("bool", "!self.flag"), Ok(Scalar::Bool));
    assert_eq!(parameter_type("u32", "!self.mask"), Ok(Scalar::U32));
    assert_eq!(parameter_type("i64", "let m = !self.mask; m"), Ok(Scalar::I64));
    assert_eq!(parameter_type("bool", "!self.flag && true"), Ok(Scalar::Bool));
}

#[test]
fn not_of_a_float_parameter_is_refused() {
    let error = parameter_type("f64", "!self.x").unwrap_err();
    assert!(error.contains("the operand of `!` must be"), "{error}");
}
