//! What the front end rejects, and where it says so: programs rustc rejects (so a file
//! loaded at run time, which no rustc checks, is rejected the same way) and constructs the
//! subset does not support, each with a span and, where useful, a hint.

use glp_codegen::ir::Scalar;
use glp_codegen::program::kind::KindSpec;

mod common;

use common::test_kind;

static KIND: KindSpec = test_kind(&[]);

/// One error: its line (1 is the `fn` line of the body below), column, message and help.
#[derive(Debug)]
struct Error {
    line: u32,
    column: u32,
    message: String,
    help: Option<String>,
}

/// Compiles `body` as the body of `fn f(&self, a: i32) -> i32`; the errors, if any.
fn errors(body: &str) -> Vec<Error> {
    let source = format!("impl TestKind for T {{ fn f(&self, a: i32) -> i32 {{\n{body}\n}} }}");
    let item: syn::ItemImpl = syn::parse_str(&source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    match glp_codegen::program::compile_impl(&KIND, &item, Some(&[])) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .errors
            .iter()
            .map(|e| {
                let l = d.location(e.span);
                Error { line: l.line, column: l.column, message: e.message.clone(), help: e.help.clone() }
            })
            .collect(),
    }
}

/// The single error of `body`, which must contain `message`.
#[track_caller]
fn one_error(body: &str, message: &str) -> Error {
    let mut errors = errors(body);
    assert_eq!(errors.len(), 1, "{body}: {errors:#?}");
    let e = errors.remove(0);
    assert!(e.message.contains(message), "{body}: expected `{message}`, got {e:#?}");
    e
}

#[track_caller]
fn compiles(body: &str) {
    let errors = errors(body);
    assert!(errors.is_empty(), "{body}: {errors:#?}");
}

#[test]
fn late_initialization_is_checked_like_rustc() {
    compiles("let x; if a > 0 { x = 1 } else { x = 2 } x");
    compiles("let x; match a { 0 => x = 1, _ => x = 2 } x");
    compiles("let x; loop { x = 1; break; } x");
    compiles("let x; if a > 0 { x = 1; } else { return 0; } x");
    compiles("let (p, q); p = 1; q = 2; p + q");
    compiles("let mut x; x = 1; x = x + 2; x");
    compiles("for i in 0..3 { let v; v = i; let _ = v; } 0");

    let e = one_error("let x;\nx = 1;\nx = 2;\nx", "cannot assign twice to immutable variable `x`");
    assert_eq!((e.line, e.column), (4, 0), "the second assignment");
    assert_eq!(e.help.as_deref(), Some("declare it with `let mut`"));
    one_error("let x; for i in 0..3 { x = i; } 0", "cannot assign twice to immutable variable `x`");
    one_error("let x; while a > 0 { x = 1; } 0", "cannot assign twice to immutable variable `x`");
    one_error("let x; loop { x = 1; if a > 0 { break; } } x", "cannot assign twice");
    one_error("let x; if a > 0 { x = 1; } x = 2; x", "cannot assign twice");

    let e = one_error("let x: i32;\nif a > 0 { x = 1; }\nx", "used binding `x` is possibly-uninitialized");
    assert_eq!((e.line, e.column), (4, 0));
    assert!(e.help.unwrap().contains("assign `x` on every path"));
    one_error("let x: i32; x + 1", "used binding `x` isn't initialized");
    one_error("let mut x: i32; x += 1; x", "used binding `x` isn't initialized");
    one_error("let x; let y = a > 0 && { x = 1; true }; if y { x } else { 0 }", "possibly-uninitialized");
    one_error("let x: i32; while a > 0 { return x; } 0", "isn't initialized");
    // An initialized immutable local is still not assignable (reported by the front end).
    one_error("let x = 1; x = 2; x", "cannot assign twice to immutable variable `x`");
}

#[test]
fn loops_and_jumps_as_values() {
    compiles("let mut i = 0; loop { match i { 5 => break, _ => {} } i += 1; } i");
    compiles("match a { 0 => return 1, _ => a }");
    compiles("let mut i = 0; loop { i += 1; if i > a { break i; } }");
    compiles("let mut i = 0; loop { i += 1; if i > a { return i; } }");
    compiles("let v = loop { break 5; }; let w = while a > 100 {}; v");

    let e = one_error(
        "let v = while a > 0 {\nbreak 5;\n}; 0",
        "`break` with a value is only allowed in `loop`, not in `while`",
    );
    assert_eq!(e.line, 3);
    one_error("for i in 0..a { break i; } 0", "not in `for`");
    let e = one_error("loop { if a > 0 {\nbreak;\n} break 5; }", "this `break` has no value");
    assert_eq!((e.line, e.column), (3, 0));
    one_error("loop { while { break; true } {} } 0", "`break` inside the condition of a `while` loop");
    one_error("loop { while { continue; true } {} } 0", "`continue` inside the condition of a `while` loop");
    one_error("match a { 0 => break, _ => 1 }", "`break` outside of a loop");
    one_error("let v = loop { break 5; }; v + 1.0", "mismatched types");
    // A loop whose `break`s have no value is `()`.
    one_error("loop { break; }", "mismatched types");
}

#[test]
fn labels_are_rejected_with_a_hint() {
    let found = errors("'outer: for i in 0..3 {\nfor j in 0..3 { if j == 1 { break 'outer; } }\n} 0");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].message, "loop labels are not supported");
    assert_eq!(found[1].message, "labelled `break` is not supported");
    assert_eq!((found[1].line, found[1].column), (3, 34));
    for e in &found {
        assert!(e.help.as_deref().unwrap().contains("flag variable"), "{e:?}");
    }
    let inner = errors("'a: loop { loop { continue 'a; } }");
    assert_eq!(inner.len(), 2, "{inner:#?}");
    assert_eq!(inner[1].message, "labelled `continue` is not supported");
}

#[test]
fn patterns_are_checked_against_the_matched_type() {
    compiles("match a { -1 => 1, -5..=-2 => 2, i32::MIN => 3, ..=-100 => 4, 100.. => 5, _ => 0 }");
    compiles("match a as u64 { u64::MAX => 1, 0..=5 => 2, _ => 0 }");
    compiles("match a as i64 { -2147483648i64 => 1, i64::MIN..=-5 => 2, _ => 0 }");

    let e = one_error("match a {\n3000000000 => 1, _ => 0 }", "pattern `3000000000` is out of range for `i32`");
    assert_eq!((e.line, e.column), (3, 0));
    one_error("match a as u32 { -1 => 1, _ => 0 }", "pattern `-1` is out of range for `u32`");
    one_error("match a as u32 { 0..=4294967296 => 1, _ => 0 }", "out of range for `u32`");
    one_error("match a { 5i64 => 1, _ => 0 }", "mismatched types in the pattern");
    one_error("match a { 5..5 => 1, _ => 0 }", "lower range bound must be less than upper");
    one_error("match a { 6..=4 => 1, _ => 0 }", "lower range bound must be less than or equal to upper");
    let e = one_error("match a { FOO => 1, _ => 0 }", "bindings in patterns are not supported");
    assert!(e.help.is_some());
    let e = one_error("match a { i32::FOO => 1, _ => 0 }", "unknown constant `i32::FOO` in a pattern");
    assert!(e.help.unwrap().contains("MIN and MAX"));
    let found = errors("match a { 1u32 | 2i64 => 1, _ => 0 }");
    assert_eq!(found[0].message, "mismatched types in the patterns of this arm: `u32` and `i64`");
}

#[test]
fn integer_extremes_and_negation() {
    compiles("let x = i32::MIN; let y: i64 = i64::MIN; x + y as i32");
    compiles("let x: i32 = -2147483648; let y: i64 = -9223372036854775808; x + y as i32");
    compiles("let x = -(2147483647) - 1; x");

    let e = one_error("let x: i32 = 2147483648; x", "literal out of range for `i32`");
    assert!(e.help.unwrap().contains("-2147483648..=2147483647"));
    one_error("let x: i64 = 9223372036854775808; 0", "literal out of range for `i64`");
    one_error("let x: u32 = 4294967296; 0", "literal out of range for `u32`");
    let e = one_error("let x: u32 = -1; 0", "cannot apply unary operator `-` to type `u32`");
    assert!(e.help.unwrap().contains("wrapping_sub"));
    one_error("let y = a as u64; let x = -y; 0", "must be a signed number");
}

#[test]
fn unit_arguments_are_rejected() {
    let source = "impl TestKind for T { fn f(&self, u: ()) -> i32 { 0 } }";
    let item: syn::ItemImpl = syn::parse_str(source).unwrap();
    let d = glp_codegen::program::compile_impl(&KIND, &item, Some(&[])).err().expect("rejected");
    assert_eq!(d.errors.len(), 1);
    assert_eq!(d.errors[0].message, "arguments of type `()` are not supported");
}

// ---- delimiters of a variant file that does not parse ----------------------------------------

/// `glp_codegen::kinds::lp::compile_source`'s error for `source` rendered as `v.rs`, with its line
/// and 1-based column.
fn syntax_error(source: &str) -> (usize, usize, String) {
    match glp_codegen::kinds::lp::compile_source(source) {
        Err(e @ glp_codegen::program::source::SourceError::Syntax { line, column, .. }) => {
            (line, column + 1, e.render("v.rs", source))
        }
        Err(other) => panic!("expected a syntax error, got {}", other.render("v.rs", source)),
        Ok(_) => panic!("compiled:\n{source}"),
    }
}

/// The 1-based line and column of the `n`th (from 0) `needle` in `source`, by text search.
fn find(source: &str, needle: &str, n: usize) -> (usize, usize) {
    let offset = source.match_indices(needle).nth(n).unwrap_or_else(|| panic!("no `{needle}` #{n}")).0;
    let line = source[..offset].matches('\n').count() + 1;
    (line, source[..offset].rsplit('\n').next().unwrap().chars().count() + 1)
}

const HEADER: &str =
    "struct V;\nimpl LpVariant for V {\n    fn label_score(&self, view: &View<'_>, v: VertexId, label: \
                      Label, freq: f64) -> f64 {\n";

#[test]
fn an_unclosed_brace_is_reported_at_the_brace_never_closed() {
    // The `if`'s `{` lacks its `}`: the next `}`, indented like the `fn` line, closes the `if`,
    // and the file ends with the impl's `{` open (where syn's lexer gave up).
    let source = format!("{HEADER}        if freq > 1.0 {{\n            return freq;\n        freq\n    }}\n}}\n");
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), find(&source, "{\n            return", 0));
    assert!(text.starts_with("error: this `{` is never closed\n"), "{text}");
    assert!(text.contains(&format!("--> v.rs:{line}:{column}\n")), "{text}");
    assert!(text.contains("4 |         if freq > 1.0 {\n"), "{text}");
    assert!(text.contains("  |                       ^\n"), "{text}");
    let (close_line, close_column) = find(&source, "}\n}", 0);
    assert!(text.contains(&format!("the `}}` at {close_line}:{close_column} is indented like line 3")), "{text}");

    // The file ends inside the function, whose closing lines are indented as they should be:
    // the innermost open `{` is named, and the impl's as open too.
    let source = format!("{HEADER}        freq\n");
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), find(&source, "{\n        freq", 0));
    assert!(text.contains("the `{` at 2:22 around it is not closed either"), "{text}");
    // Only the impl's `}` is missing: the impl's `{` (2:22) is named.
    let (line, column, text) = syntax_error(&format!("{HEADER}        freq\n    }}\n"));
    assert_eq!((line, column), (2, 22), "{text}");
    assert!(!text.contains("help"), "{text}");
}

#[test]
fn unclosed_parentheses_and_brackets_and_stray_closers_are_reported_where_they_are() {
    let source = format!("{HEADER}        let x = (freq + 1.0;\n        x\n    }}\n}}\n");
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), find(&source, "(freq", 0));
    assert!(text.starts_with("error: this `(` is never closed\n"), "{text}");
    let (close_line, close_column) = find(&source, "}\n}", 0);
    assert!(text.contains(&format!("a `}}` at {close_line}:{close_column} comes before its `)`")), "{text}");

    let source = format!("{HEADER}        let x = [freq, 1.0;\n        x[0]\n    }}\n}}\n");
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), find(&source, "[freq", 0));
    assert!(text.starts_with("error: this `[` is never closed\n"), "{text}");

    let source = format!("{HEADER}        freq\n    }}\n}}\n}}\n");
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), (7, 1));
    assert!(text.starts_with("error: unexpected closing delimiter `}`: nothing is open here\n"), "{text}");
}

#[test]
fn delimiters_in_comments_strings_and_characters_are_not_counted() {
    // Braces in comments, a string, a raw string, a character literal and next to lifetimes:
    // the `(` left open is still the one named.
    let source = format!(
        "// a {{ in a comment\n/* and ( in /* a nested */ block ] */\n{HEADER}        let s = \"}}\\\"{{\"; let r = \
         r#\"}})\"#; let c = '{{'; let q = '\\'';\n        let x = g(freq;\n        x\n    }}\n}}\n"
    );
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), find(&source, "(freq;", 0), "{text}");
    // A string that never ends is named at its start.
    let source = format!("{HEADER}        let s = \"abc;\n        freq\n    }}\n}}\n");
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), find(&source, "\"abc", 0));
    assert!(text.starts_with("error: this string literal is never closed\n"), "{text}");
}

#[test]
fn other_syntax_errors_keep_syns_message_and_place() {
    let source = format!("{HEADER}        1.0 +\n    }}\n}}\n");
    let (line, column, text) = syntax_error(&source);
    assert_eq!((line, column), find(&source, "}\n}", 0), "{text}");
    assert!(!text.contains("never closed") && !text.contains("closing delimiter"), "{text}");
}

// ----- inference of parameters the attribute sees only through their uses -----------------
// (the macro has the impl, not the struct): `!self.flag` is a bool or an integer, decided by
// where the value goes, and refused on floats.

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
