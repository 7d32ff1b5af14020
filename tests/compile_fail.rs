//! Tier 2 of the test plan: every file of `tests/compile-fail/` is an `impl LpVariant` block
//! (or, `edge_*.rs`, an `impl EdgeProgram` block) using one construct outside the accepted
//! subset or its kind (or several, in `several_errors.rs`), and
//! must fail to compile with exactly the diagnostics of its `.stderr` file: glp's
//! `compile_error!` carrying the span of the offending node and a hint.
//!
//! `TRYBUILD=overwrite cargo test --release --test compile_fail` rewrites the `.stderr`
//! files after a deliberate change to a message; read the diff before committing it.
//! trybuild runs cargo with `--offline`, so the test needs no network.

#[test]
fn unsupported_constructs_are_compile_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile-fail/*.rs");
}
