//! The `#[glp::lp_variant]` attribute rejects every construct outside the GPU subset with a
//! spanned error and a hint (the expected messages are the `.stderr` files beside each case).

#[test]
fn unsupported_constructs_are_compile_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile-fail/*.rs");
}
