//! The `label_score` monotonicity analysis ([`glp_codegen::analysis::monotone`]): its verdicts on
//! the built-in variants and on hand-picked scores, checked independently of the analysis by
//! running the scores in the IR interpreter: every score proven non-decreasing is
//! non-decreasing on random inputs satisfying the verdict's conditions, and the scores it
//! rejects that are meant to be non-monotone really are (a counterexample is found). Random
//! scores from a small grammar check the same of whatever the analysis proves.

use glp_codegen::analysis::monotone::Monotonicity;
use glp_codegen::interp::{Host, Interpreter, RuntimeError, Value};
use glp_codegen::ir::{Program, Scalar, ScalarValue};
use glp_codegen::kinds::lp::properties::score_monotonicity;
use glp_codegen::kinds::lp::{compile_source, LABEL_SCORE, LP_KIND};

// ----- programs -------------------------------------------------------------------------

fn compile(source: &str) -> Program {
    match compile_source(source) {
        Ok(p) => p.program,
        Err(e) => panic!("{}", e.render("test.rs", source)),
    }
}

/// A variant whose `label_score` is `body`, with parameters `fields` (`"a: f64, b: u32"`).
fn score(fields: &str, body: &str) -> Program {
    compile(&format!(
        "struct T {{ {fields} }}\n\
         impl LpVariant for T {{\n\
             fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {{\n\
                 {body}\n\
             }}\n\
         }}"
    ))
}

const BUILT_INS: [(&str, &str); 5] = [
    ("classic", include_str!("../../src/variants/classic.rs")),
    ("weighted", include_str!("../../src/variants/weighted.rs")),
    ("llp", include_str!("../../src/variants/llp.rs")),
    ("slp", include_str!("../../src/variants/slp.rs")),
    ("seeded", include_str!("../../src/variants/seeded.rs")),
];

fn built_in(name: &str) -> Program {
    compile(BUILT_INS.iter().find(|(n, _)| *n == name).expect("a built-in variant").1)
}

/// Scores the analysis must prove non-decreasing (fields, body, expected CUDA predicate).
const MONOTONE: &[(&str, &str, &str)] = &[
    ("", "freq", "true"),
    ("", "1.5", "true"),
    ("", "freq * 2.0 + 1.0", "true"),
    ("", "-(-freq) - 3.0", "true"),
    ("", "freq / -2.0 * -1.0", "true"),
    ("", "(2.0 - 3.0) * -freq", "true"),
    ("", "freq.max(0.0).sqrt()", "true"),
    ("", "(freq as i64 / 3) as f64", "true"),
    ("", "(freq as u32) as u64 as f64", "true"),
    ("", "(freq as f32) as f64 * view.random_f64(v, 1)", "true"),
    ("", "freq.floor() + freq.ceil() + freq.round()", "true"),
    ("", "freq - view.global_count(label) as f64", "true"),
    ("", "let x = freq.max(0.0); x * x", "true"),
    ("", "let mut s = 0.0; for i in 0..4 { s += freq * (i as f64); } s", "true"),
    ("", "let mut x = freq; let mut i = 0; while i < 3 { x = x + 1.0; i += 1; } x", "true"),
    ("", "let x; if view.iteration() > 2 { x = freq; } else { x = 0.0; } x", "true"),
    ("", "match view.iteration() { 0 => freq, 1..=3 => freq * 2.0, _ => 5.0 }", "true"),
    ("", "if view.degree(v) > 10 { return freq * 0.5; } freq + 1.0", "true"),
    ("", "loop { if view.iteration() > 1 { break freq; } break freq * 2.0; }", "true"),
    ("", "let w = view.degree(v) as f64 + 1.0; freq / w", "true"),
    ("flag: bool", "if self.flag { freq } else { 2.0 * freq }", "true"),
    ("cap: f64", "freq.min(self.cap)", "true"),
    ("k: u32", "freq * self.k as f64", "true"),
    ("c: f64", "({ let y = freq * 3.0; y }) + self.c", "true"),
    ("a: f64", "freq - self.a * (5.0 - freq)", "(self.a >= 0.0)"),
    ("d: f64", "freq / self.d", "(self.d > 0.0)"),
    ("a: f64, b: f64", "freq * (self.a - self.b)", "((self.a - self.b) >= 0.0)"),
    ("a: f64", "let g = self.a * 2.0; g * freq + g * freq", "((self.a * 2.0) >= 0.0)"),
    ("a: f64", "freq * (self.a - 2.0 * self.a)", "((self.a - (2.0 * self.a)) >= 0.0)"),
    ("n: i32", "freq * self.n as f64", "(((double)self.n) >= 0.0)"),
    ("a: f64, d: f64", "if self.a > 1.0 { freq * self.a } else { freq / self.d }", "(self.a >= 0.0) && (self.d > 0.0)"),
];

/// Scores the analysis must not prove, each non-monotone for some input.
const NON_MONOTONE: &[(&str, &str)] = &[
    ("", "-freq"),
    ("", "if freq > 3.0 { 0.0 } else { freq }"),
    ("", "if freq > 3.0 { return 0.0; } freq"),
    ("", "freq * (label as f64 - 5.0)"),
    ("", "(freq as i32).wrapping_mul(3) as f64"),
    ("", "((freq as i32) + 2147483000) as f64"),
    ("", "(freq as u64 as u32) as f64"),
    ("", "freq * freq"),
    ("", "1.0 / freq"),
    ("", "freq.abs()"),
    ("", "freq % 2.0"),
    ("", "freq * view.edge_weight(v as u64)"),
    ("", "let mut x = freq; for _ in 0..3 { x = 10.0 - x; } x"),
    ("", "let mut s = 0.0; let mut i = 0.0; while i < freq && i < 50.0 { s -= 1.0; i += 1.0; } s"),
    ("", "let mut x = 0.0; if freq > 1.0 { x = 1.0; } 5.0 - x"),
    ("", "match freq as u32 { 0..=5 => freq, _ => 0.0 }"),
    ("", "let mut s = 0.0; for i in 0..10 { if freq < i as f64 { break; } s -= 1.0; } s"),
    ("a: f64", "freq - self.a * freq"),
];

/// Monotone scores beyond what the analysis proves (it is conservative).
const MONOTONE_BUT_UNPROVEN: &[&str] = &["freq.exp()", "(freq > 3.0) as i32 as f64", "freq.max(1.0).ln()"];

// ----- verdicts -------------------------------------------------------------------------

#[test]
fn built_in_verdicts() {
    for name in ["classic", "weighted", "seeded", "slp"] {
        assert_eq!(score_monotonicity(&built_in(name)), Monotonicity::Always, "{name}");
    }
    let llp = score_monotonicity(&built_in("llp"));
    assert_eq!(llp.cuda_predicate(), "(self.gamma >= 0.0)");
    assert_eq!(llp.to_string(), "when (self.gamma >= 0.0)");
}

#[test]
fn llp_conditions_are_tested_on_the_parameter_values() {
    let program = built_in("llp");
    let verdict = score_monotonicity(&program);
    assert!(verdict.holds(&program, &[ScalarValue::F64(1.0)]));
    assert!(verdict.holds(&program, &[ScalarValue::F64(0.0)]));
    assert!(!verdict.holds(&program, &[ScalarValue::F64(-0.5)]));
}

#[test]
fn monotone_scores_are_proven() {
    for (fields, body, predicate) in MONOTONE {
        let verdict = score_monotonicity(&score(fields, body));
        assert!(verdict.is_proven(), "`{body}`: {verdict}");
        assert_eq!(verdict.cuda_predicate(), *predicate, "`{body}`");
    }
}

#[test]
fn non_monotone_scores_are_unproven_with_a_reason() {
    for (fields, body) in NON_MONOTONE {
        let verdict = score_monotonicity(&score(fields, body));
        let Monotonicity::Unproven { reason } = &verdict else { panic!("`{body}` was proven: {verdict}") };
        assert!(!reason.is_empty(), "`{body}`");
        assert_eq!(verdict.cuda_predicate(), "false");
    }
    for body in MONOTONE_BUT_UNPROVEN {
        assert!(!score_monotonicity(&score("", body)).is_proven(), "`{body}`");
    }
}

#[test]
fn reasons_point_at_the_cause() {
    let reason = |body: &str| score_monotonicity(&score("", body)).to_string();
    assert!(reason("if freq > 3.0 { 0.0 } else { freq }").contains("depends on freq"), "{}", reason("-freq"));
    assert!(reason("(freq as i32).wrapping_mul(3) as f64").contains("wrapping_mul"));
    assert!(reason("freq * freq").contains("product"));
    assert_eq!(reason("-freq"), "not proven: the score decreases as freq grows");
}

#[test]
fn every_program_carries_the_predicate() {
    let predicate = |source: &str| {
        let cuda = compile_source(source).expect("compiles").device_functions();
        let line = cuda.lines().find(|l| l.contains("glp_lp_score_monotone")).expect("the predicate").to_string();
        assert!(cuda.trim_end().ends_with(&line), "the predicate comes last");
        line
    };
    assert_eq!(
        predicate(BUILT_INS[2].1),
        "__device__ __forceinline__ bool glp_lp_score_monotone(const glp_lp_params& self) { return (self.gamma >= 0.0); }"
    );
    assert!(predicate(BUILT_INS[0].1).ends_with("{ return true; }"));
    let src = "struct T {} impl LpVariant for T { fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 { -freq } }";
    assert!(predicate(src).ends_with("{ return false; }"));
}

// ----- the interpreter as the judge -------------------------------------------------------

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
    /// A frequency: small and large, integral and not, negative, zeros.
    fn freq(&mut self) -> f64 {
        match self.below(6) {
            0 => self.pick(&[0.0, -0.0, 1.0, 3.0, 5.0, -1.0]),
            1 => self.below(20) as f64,
            2 => (self.unit() - 0.5) * 20.0,
            3 => (self.unit() - 0.5) * 2e3,
            4 => (self.unit() - 0.5) * 2e10,
            _ => self.unit() * 5e9,
        }
    }
    fn param(&mut self, ty: Scalar) -> ScalarValue {
        let x = match self.below(3) {
            0 => self.pick(&[0.0, 1.0, -1.0, 2.0, 0.5]),
            1 => (self.unit() - 0.5) * 10.0,
            _ => (self.unit() - 0.5) * 1e3,
        };
        match ty {
            Scalar::Bool => ScalarValue::Bool(self.below(2) == 1),
            Scalar::I32 => ScalarValue::I32(x as i32),
            Scalar::I64 => ScalarValue::I64(x as i64),
            Scalar::U32 => ScalarValue::U32(x.abs() as u32),
            Scalar::U64 => ScalarValue::U64(x.abs() as u64),
            Scalar::F32 => ScalarValue::F32(x as f32),
            Scalar::F64 => ScalarValue::F64(x),
        }
    }
}

/// A fixed view state: every query is a deterministic function of the seed and its
/// arguments, within the range the real view gives.
struct FakeView {
    seed: u64,
}

impl Host for FakeView {
    fn intrinsic(&self, id: u32, args: &[Value]) -> Result<Value, RuntimeError> {
        let mut key = Rng(self.seed ^ (u64::from(id) << 48));
        for a in args {
            let bits = a.as_scalar().map_or(0, |s| s.to_bits().1);
            key.0 ^= bits.wrapping_mul(0x2545_f491_4f6c_dd1d);
            key.next();
        }
        let mut r = key;
        Ok(match LP_KIND.intrinsics[id as usize].name {
            "label" | "next_label" | "seed_label" => Value::from(r.below(50) as u32),
            "degree" => Value::from(r.below(30)),
            "num_vertices" => Value::from(1000u32),
            "iteration" => Value::from((self.seed % 5) as u32),
            "global_count" => Value::from(r.below(200) as u32),
            "random_u32" => Value::from(r.next() as u32),
            "random_f64" => Value::from(r.unit()),
            "edge_weight" | "vertex_weight" => Value::from((r.unit() - 0.3) * 4.0),
            other => return Err(RuntimeError::host(format!("`{other}` is not a query"))),
        })
    }
}

/// A `label_score` call's inputs, but for the frequency.
struct Case {
    params: Vec<ScalarValue>,
    view: FakeView,
    v: u32,
    label: u32,
}

struct Scorer {
    interp: Interpreter,
    score: u32,
}

impl Scorer {
    fn new(program: &Program) -> Scorer {
        let interp = Interpreter::new(program);
        let score = interp.hook(LABEL_SCORE).expect("every program has a label_score");
        Scorer { interp, score }
    }

    fn score(&self, case: &Case, freq: f64) -> f64 {
        let args = [Value::Context, Value::from(case.v), Value::from(case.label), Value::from(freq)];
        let result = self.interp.call(&case.view, self.score, &case.params, &args);
        result.unwrap_or_else(|e| panic!("{e}")).as_f64().expect("an f64 score")
    }
}

fn random_case(rng: &mut Rng, program: &Program) -> Case {
    Case {
        params: program.params.iter().map(|p| rng.param(p.ty)).collect(),
        view: FakeView { seed: rng.next() },
        v: rng.below(100) as u32,
        label: rng.below(12) as u32,
    }
}

/// Checks `score(f1) <= score(f2)` for `f1 <= f2` on random inputs whose parameters satisfy
/// the verdict.
fn check_monotone(program: &Program, what: &str, trials: usize) {
    let verdict = score_monotonicity(program);
    assert!(verdict.is_proven(), "{what}: {verdict}");
    let scorer = Scorer::new(program);
    let mut rng = Rng(0x5eed ^ what.len() as u64);
    let mut checked = 0;
    for _ in 0..trials * 20 {
        if checked == trials {
            break;
        }
        let case = random_case(&mut rng, program);
        if !verdict.holds(program, &case.params) {
            continue;
        }
        checked += 1;
        let (a, b) = (rng.freq(), if rng.below(4) == 0 { rng.freq() } else { rng.freq() * 1.0001 + 1.0 });
        let (f1, f2) = if a <= b { (a, b) } else { (b, a) };
        for (x, y) in [(f1, f2), (f1, f1), (f1, f1 + f1.abs() * 1e-15)] {
            let (s1, s2) = (scorer.score(&case, x), scorer.score(&case, y));
            assert!(
                s1 <= s2,
                "{what}: score({x:e}) = {s1:e} > score({y:e}) = {s2:e} with params {:?}, v {}, label {}",
                case.params,
                case.v,
                case.label
            );
        }
    }
    assert_eq!(checked, trials, "{what}: too few parameter values satisfy {verdict}");
}

/// Finds inputs with `f1 < f2` and `score(f1) > score(f2)` (or a NaN).
fn find_counterexample(program: &Program, what: &str) {
    let scorer = Scorer::new(program);
    let mut rng = Rng(0xbad ^ what.len() as u64);
    for _ in 0..200_000 {
        let case = random_case(&mut rng, program);
        let (a, b) = (rng.freq(), rng.freq());
        let (f1, f2) = if a <= b { (a, b) } else { (b, a) };
        let (s1, s2) = (scorer.score(&case, f1), scorer.score(&case, f2));
        if s1 > s2 || s1.is_nan() || s2.is_nan() {
            return;
        }
    }
    panic!("{what}: no counterexample found; is it monotone after all?");
}

#[test]
fn proven_scores_are_monotone_in_the_interpreter() {
    for (name, source) in BUILT_INS {
        check_monotone(&compile(source), name, 2000);
    }
    for (fields, body, _) in MONOTONE {
        check_monotone(&score(fields, body), body, 2000);
    }
}

#[test]
fn unproven_scores_have_counterexamples_in_the_interpreter() {
    for (fields, body) in NON_MONOTONE {
        find_counterexample(&score(fields, body), body);
    }
    // LLP with a negative gamma, which its condition excludes.
    let llp = compile(BUILT_INS[2].1);
    let scorer = Scorer::new(&llp);
    let case = Case { params: vec![ScalarValue::F64(-2.0)], view: FakeView { seed: 7 }, v: 1, label: 2 };
    assert!(scorer.score(&case, 1.0) > scorer.score(&case, 2.0));
}

/// A random score over a small grammar (arithmetic, `min`/`max`/`floor`/`abs`/`sqrt`, casts,
/// `if` on anything) of depth at most `depth`.
fn random_score(rng: &mut Rng, depth: u32) -> String {
    const LEAVES: [&str; 9] = [
        "freq",
        "freq",
        "2.0",
        "0.5",
        "self.a",
        "self.b",
        "(label as f64)",
        "view.random_f64(v, 1)",
        "(view.global_count(label) as f64 - 3.0)",
    ];
    if depth == 0 || rng.below(4) == 0 {
        return rng.pick(&LEAVES).to_string();
    }
    let mut sub = || random_score(rng, depth - 1);
    let (x, y) = (sub(), sub());
    match rng.below(13) {
        0 => format!("({x} + {y})"),
        1 => format!("({x} - {y})"),
        2 | 3 => format!("({x} * {y})"),
        4 => format!("({x} / {y})"),
        5 => format!("(-{x})"),
        6 => format!("({x}).min({y})"),
        7 => format!("({x}).max({y})"),
        8 => format!("({x}).floor()"),
        9 => format!("({x}).abs().sqrt()"),
        10 => format!("(({x}) as i32 as f64)"),
        11 => format!("(({x}) as f32 as f64)"),
        _ => {
            let (z, w) = (random_score(rng, depth - 1), random_score(rng, depth - 1));
            format!("(if {x} > {y} {{ {z} }} else {{ {w} }})")
        }
    }
}

#[test]
fn random_scores_proven_monotone_are_monotone_in_the_interpreter() {
    let mut rng = Rng(0xf00d);
    let (mut proven, mut total) = (0, 0);
    for _ in 0..3000 {
        let body = random_score(&mut rng, 4);
        let Ok(program) = compile_source(&format!(
            "struct T {{ a: f64, b: f64 }}\n\
             impl LpVariant for T {{\n\
                 fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {{ {body} }}\n\
             }}"
        )) else {
            panic!("`{body}` does not compile");
        };
        let program = program.program;
        total += 1;
        let verdict = score_monotonicity(&program);
        if !verdict.is_proven() {
            continue;
        }
        proven += 1;
        let scorer = Scorer::new(&program);
        for _ in 0..200 {
            let case = random_case(&mut rng, &program);
            if !verdict.holds(&program, &case.params) {
                continue;
            }
            let (a, b) = (rng.freq(), rng.freq());
            let (f1, f2) = if a <= b { (a, b) } else { (b, a) };
            let (s1, s2) = (scorer.score(&case, f1), scorer.score(&case, f2));
            // NaN is outside the analysis' model (see the module docs).
            if s1.is_nan() || s2.is_nan() {
                continue;
            }
            assert!(
                s1 <= s2,
                "`{body}` ({verdict}): score({f1:e}) = {s1:e} > score({f2:e}) = {s2:e}, params {:?}, v {}, label {}",
                case.params,
                case.v,
                case.label
            );
        }
    }
    assert!(proven * 5 >= total, "only {proven} of {total} random scores proven");
}
