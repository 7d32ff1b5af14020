//! The CUDA text the emitter writes for constructs whose C spelling is easy to get wrong:
//! evaluation order, negative pattern constants, unit values. (That all of it compiles is
//! checked by `every_program_compiles_with_nvrtc` in `interp_*.rs`; what the programs
//! compute, by the interpreter's differential tests.)

use glp_codegen::ir::Scalar;
use glp_codegen::program::kind::KindSpec;

mod common;

use common::{test_intrinsic, test_kind};

static KIND: KindSpec = test_kind(&[
    test_intrinsic("bump", &[Scalar::U32], Some(Scalar::U32), "adds to a counter, returns the new count"),
    test_intrinsic("note", &[Scalar::U32], None, "records a value"),
]);

/// The body of the C function emitted for `fn f(&self, c: &Ctx, a: i32) -> ret { body }`.
fn emit(ret: &str, body: &str) -> String {
    let source = format!("impl TestKind for T {{ fn f(&self, c: &Ctx, a: i32) -> {ret} {{ {body} }} }}");
    let item: syn::ItemImpl = syn::parse_str(&source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    let compiled = glp_codegen::program::compile_impl(&KIND, &item, Some(&[]))
        .unwrap_or_else(|d| panic!("{}", d.render("test.rs", &source)));
    let cuda = glp_codegen::cuda::emit_program(&KIND, &compiled.program);
    let start = cuda.find(") {\n").expect("a function body");
    cuda[start + 4..].to_string()
}

/// The position of `needle` in `text`, which must contain it.
#[track_caller]
fn at(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in\n{text}"))
}

#[test]
fn the_left_operand_is_read_before_the_right_ones_statements() {
    let c = emit("i32", "let mut b = a; b + { b = 5; b }");
    assert!(at(&c, "const glp_i32 glp_t0 = b;") < at(&c, "b = 5;"), "{c}");
    assert!(c.contains("return ((glp_i32)((glp_u32)glp_t0 + (glp_u32)glp_t1));"), "{c}");

    // The same for arguments, tuple elements and the bounds of a `for`.
    let c = emit("(i32, i32)", "let mut b = a; let t = (b, { b += 1; b }); t");
    assert!(at(&c, "const glp_i32 glp_t0 = b;") < at(&c, "b = ((glp_i32)"), "{c}");
    let c = emit("u32", "let mut b = c.bump(1); let mut s = 0; for i in b..({ b += 5; b }) { s += i; } s");
    assert!(at(&c, "const glp_u32 glp_t0 = b;") < at(&c, "b = (b + 5u);"), "{c}");
    assert!(c.contains("for (glp_u32 i = glp_t0;"), "{c}");

    // Immutable locals cannot change: no copy.
    let c = emit("i32", "let b = a; let mut x = 0; b + { x = 5; x }");
    assert!(!c.contains("= b;"), "{c}");
    assert!(c.contains("(glp_u32)b + (glp_u32)glp_t"), "{c}");
}

#[test]
fn calls_keep_their_order() {
    // C leaves the order of operands unspecified: the first call is made first.
    let c = emit("u32", "c.bump(1) + c.bump(2) * 3");
    assert!(at(&c, "const glp_u32 glp_t0 = t_bump(c, 1u);") < at(&c, "return"), "{c}");
    assert!(c.contains("glp_t0 + (t_bump(c, 2u) * 3u)"), "{c}");
    // A block with an effect after a call.
    let c = emit("u32", "c.bump(1) + { c.note(7); 2 }");
    assert!(at(&c, "= t_bump(c, 1u);") < at(&c, "t_note(c, 7u);"), "{c}");
    // One call, or calls in a braced tuple initializer (ordered by C++): nothing to copy.
    let c = emit("(u32, u32)", "(c.bump(1), c.bump(2) + a as u32)");
    assert!(!c.contains("const glp_u32"), "{c}");
}

#[test]
fn compound_assignment_evaluates_the_value_first() {
    // Rust reads `x` after evaluating the right side of `x += e` (scalars).
    let c = emit("i32", "let mut x = a; x += { x = 7; 1 }; x");
    assert!(at(&c, "x = 7;") < at(&c, "x = ((glp_i32)((glp_u32)x + (glp_u32)glp_t0));"), "{c}");
}

#[test]
fn negative_pattern_constants() {
    let c = emit("i32", "match a { -1 => 1, i32::MIN => 2, -9..=-3 => 3, ..=-100 => 4, 7.. => 5, _ => 0 }");
    assert!(c.contains("== (-1)"), "{c}");
    assert!(c.contains("== (-2147483647 - 1)"), "{c}");
    assert!(c.contains("(glp_t1 >= (-9) && glp_t1 <= (-3))"), "{c}");
    assert!(c.contains("if (glp_t1 <= (-100))"), "{c}");
    assert!(c.contains("if (glp_t1 >= 7)"), "{c}");
    let c = emit("i32", "match a as i64 { i64::MIN => 1, i64::MAX => 2, _ => 0 }");
    assert!(c.contains("== (-9223372036854775807ll - 1ll)"), "{c}");
    assert!(c.contains("== 9223372036854775807ll"), "{c}");
    let c = emit("i32", "match a as u32 { 0..=9 => 1, u32::MAX => 2, _ => 0 }");
    assert!(c.contains("if (glp_t1 <= 9u)"), "no `>= 0u` test: {c}");
}

#[test]
fn loops_as_values_and_unit_locals() {
    let c = emit("i32", "let mut i = a; loop { i += 1; if i > 9 { break i * 2; } }");
    assert!(c.contains("glp_i32 loop_value{};"), "{c}");
    assert!(at(&c, "loop_value = ") < at(&c, "break;"), "{c}");
    assert!(c.contains("glp_t0 = loop_value;"), "{c}");

    let c = emit("i32", "let u = (); let _ = c.note(1); let w = if a > 0 { c.note(2); }; 0");
    assert!(!c.contains("void "), "no void variables: {c}");
    assert!(c.contains("t_note(c, 1u);") && c.contains("t_note(c, 2u);"), "{c}");

    let c = emit("i32", "let (p, q); p = 1; q = a; p + q");
    assert!(c.contains("glp_i32 p{};") && c.contains("glp_i32 q{};"), "{c}");
}
