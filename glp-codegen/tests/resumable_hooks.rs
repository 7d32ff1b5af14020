//! Resumable hooks (`glp_codegen::cuda::resumable`): a sampler's `next` whose body is a loop
//! is emitted a second time, one loop iteration per call, for the walk engine's one-walker
//! kernels: the statements before the loop, with their locals in a frame; one iteration; the
//! statements after it. A hook whose loop breaks or continues, or that does not loop, runs
//! whole. Each form, fused with the engines' kernels, compiles with NVRTC. (That a resumed
//! hook gives the plain hook's vertices is checked on the GPU, against the CPU, by the
//! runtime's `gpu_sample_engines` tests.)

mod common;

use common::nvrtc::Nvrtc;
use glp_codegen::kinds::sample::engine::engine_kernel_source;
use glp_codegen::kinds::sample::layout::ViewTraits;

/// A walk sampler whose `next` has `body`.
fn sampler(body: &str) -> String {
    format!(
        "struct Walk {{ length: u32 }}\nimpl Sampler for Walk {{\n    fn steps(&self) -> u32 {{ self.length }}\n    \
         fn sample_size(&self, _step: u32) -> u32 {{ 1 }}\n    fn next(&self, view: &SampleView, _sample: u32, \
         transit: VertexId, _lane: u32, _step: u32) -> VertexId {{\n{body}\n    }}\n}}\n"
    )
}

/// Rejection with a `while`: statements before the loop (an early return, locals the loop
/// reads), a loop whose iteration draws, and statements after it.
const WHILE_REJECTION: &str = "
        let degree = view.degree(transit);
        if degree == 0 { return NONE; }
        let (low, high) = (0.25, 1.0);
        let mut chosen = NONE;
        let mut tries = 0u32;
        while chosen == NONE {
            let x = view.edge(transit, view.random_below(degree));
            let r = view.random_f64();
            tries += 1;
            if r < low || (r < high && view.degree(x) > 1) { chosen = x; }
        }
        let last = chosen;
        if tries > 1000 { NONE } else { last }";

/// Rejection with a `loop` left by `return`.
const LOOP_REJECTION: &str = "
        let degree = view.degree(transit);
        if degree == 0 { return NONE; }
        loop {
            let x = view.edge(transit, view.random_below(degree));
            if view.random_f64() < 0.5 { return x; }
        }";

/// A loop left by `break`: not split.
const BREAKING: &str = "
        let degree = view.degree(transit);
        if degree == 0 { return NONE; }
        let mut x = view.edge(transit, 0);
        while true {
            x = view.edge(transit, view.random_below(degree));
            if view.random_f64() < 0.5 { break; }
        }
        x";

/// Locals before the loop, fixed by the parameters or not: a literal, a parameter and math
/// on both are fixed; a read of the view, a `mut` local and a value from a read are not.
const FIXED_LOCALS: &str = "
        let half = 0.5;
        let bias = 1.0 / (self.length as f64);
        let top = bias.max(half);
        let degree = view.degree(transit);
        let mut scale = bias;
        let late = top * (degree as f64);
        if degree == 0 { return NONE; }
        let mut chosen = NONE;
        while chosen == NONE {
            let x = view.edge(transit, view.random_below(degree));
            if view.random_f64() * late < top * scale { chosen = x; }
            scale = scale * 2.0;
        }
        chosen";

/// No loop at all.
const UNIFORM: &str = "
        let degree = view.degree(transit);
        if degree == 0 { NONE } else { view.edge(transit, view.random_below(degree)) }";

fn device_functions(body: &str) -> String {
    let source = sampler(body);
    let program = glp_codegen::kinds::sample::compile_source(&source)
        .unwrap_or_else(|e| panic!("{}", e.render("walk.rs", &source)));
    program.device_functions()
}

/// The text of the emitted function `name` (from its definition, whose first parameter is
/// the sampler's parameters where a call passes `self`, to the closing brace at the start of
/// a line).
fn function<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text.find(&format!("{name}(const ")).unwrap_or_else(|| panic!("no `{name}` in\n{text}"));
    let end = start + text[start..].find("\n}\n").unwrap();
    &text[start..end]
}

#[test]
fn a_while_loop_is_split_before_during_and_after() {
    let text = device_functions(WHILE_REJECTION);
    // The frame: the guard and the locals declared before the loop, the tuple's included.
    let frame = &text[text.find("struct glp_sample_next_frame {").unwrap()..];
    let frame = &frame[..frame.find("};").unwrap()];
    for member in ["glp_loop_guard glp_loops;", "glp_u64 degree;", "double low;", "double high;", "glp_u32 chosen;"] {
        assert!(frame.contains(member), "frame lacks `{member}`:\n{frame}");
    }
    assert!(frame.contains("glp_u32 tries;"), "{frame}");
    assert!(
        !frame.contains(" x;") && !frame.contains(" last;"),
        "the loop's and the end's locals are theirs:\n{frame}"
    );

    let begin = function(&text, "glp_sample_next_begin");
    assert!(begin.contains("glp_u64& degree = glp_frame.degree;"), "{begin}");
    assert!(begin.contains("glp_result = 4294967295u;\n        return true;"), "the early return finishes:\n{begin}");
    assert!(begin.contains("degree = glp_sample_degree(view, transit);"), "a frame local is assigned:\n{begin}");
    assert!(!begin.contains("glp_sample_random"), "no draw before the loop:\n{begin}");
    assert!(begin.contains("return glp_sample_next_end("), "a failed first test ends the call:\n{begin}");

    let attempt = function(&text, "glp_sample_next_attempt");
    let step = attempt.find("glp_loop_exhausted(glp_loops, 1u)) return false;").expect("the loop's step");
    let draw = attempt.find("glp_sample_random_below").expect("the draw");
    assert!(step < draw, "the step is counted before the iteration runs:\n{attempt}");
    assert_eq!(attempt.matches("glp_sample_random_below").count(), 1, "one iteration:\n{attempt}");
    assert!(attempt.contains("return glp_sample_next_end("), "{attempt}");
    assert!(attempt.trim_end().ends_with("return false;"), "{attempt}");

    let end = function(&text, "glp_sample_next_end");
    assert!(end.contains("glp_u32 last = chosen;"), "{end}");
    assert!(!end.contains("glp_sample_random"), "{end}");

    let resume = function(&text, "glp_sample_next_resume");
    assert!(resume.contains("glp_frame.glp_loops = glp_loop_guard_new(glp_sample_loop_budget(view));"), "{resume}");
    assert!(resume.contains("glp_sample_loop_fault(view, glp_frame.glp_loops.site, 5u, transit);"), "{resume}");
    assert!(resume.contains("glp_result = 4294967295u;"), "the neutral value on a fault:\n{resume}");
}

#[test]
fn a_loop_left_by_return_has_no_end_and_returns_from_its_iteration() {
    let text = device_functions(LOOP_REJECTION);
    assert!(!text.contains("glp_sample_next_end("), "{text}");
    let attempt = function(&text, "glp_sample_next_attempt");
    assert!(attempt.contains("glp_result = x;\n        return true;"), "{attempt}");
    assert!(function(&text, "glp_sample_next_begin").trim_end().ends_with("return false;"), "{text}");
}

#[test]
fn hooks_that_break_out_or_do_not_loop_run_whole() {
    for (what, body) in [("a loop left by break", BREAKING), ("no loop", UNIFORM)] {
        let text = device_functions(body);
        assert!(text.contains("struct glp_sample_next_frame {\n};"), "{what}: an empty frame:\n{text}");
        assert!(!text.contains("glp_sample_next_begin"), "{what}:\n{text}");
        let resume = function(&text, "glp_sample_next_resume");
        assert!(
            resume.contains("glp_result = glp_sample_next(self, view, _sample, transit, _lane, _step);"),
            "{resume}"
        );
    }
}

#[test]
fn locals_fixed_by_the_parameters_are_set_once_per_frame() {
    let text = device_functions(FIXED_LOCALS);
    let frame = &text[text.find("struct glp_sample_next_frame {").unwrap()..];
    let frame = &frame[..frame.find("};").unwrap()];
    for member in ["double half;", "double bias;", "double top;", "glp_u64 degree;", "double scale;", "double late;"] {
        assert!(frame.contains(member), "every local before the loop stays in the frame: no `{member}`:\n{frame}");
    }
    let fixed = function(&text, "glp_sample_next_fixed");
    let begin = function(&text, "glp_sample_next_begin");
    for local in ["half", "bias", "top"] {
        assert!(fixed.contains(&format!("    {local} = ")), "`{local}` is fixed:\n{fixed}");
        assert!(!begin.contains(&format!("    {local} = ")), "`_begin` skips the fixed `{local}`:\n{begin}");
    }
    for local in ["degree", "scale", "late"] {
        assert!(!fixed.contains(&format!("    {local} = ")), "`{local}` is not fixed:\n{fixed}");
        assert!(begin.contains(&format!("    {local} = ")), "`_begin` sets `{local}`:\n{begin}");
    }
    assert!(fixed.contains("self.length"), "{fixed}");
    // The walk engine sets them once per walker, before its loop of rounds.
    let engines = engine_kernel_source(&text, ViewTraits::ANY).unwrap();
    let walker = &engines[engines.find("void glp_walks_resumable(").expect("the resumable walk kernel")..];
    let (fixed_at, loop_at) = (walker.find("glp_sample_next_fixed(params, frame);"), walker.find("while (true)"));
    assert!(fixed_at.is_some() && fixed_at < loop_at, "`_fixed` is called before the rounds:\n{walker}");

    // A hook that is not split has no fixed locals.
    let whole = device_functions(UNIFORM);
    assert!(!function(&whole, "glp_sample_next_fixed").contains(" = "), "{whole}");
}

#[test]
fn every_form_compiles_with_the_engines() {
    let Some(nvrtc) = Nvrtc::load() else {
        let why = "NVRTC cannot be loaded (install it, or add its lib folder to LD_LIBRARY_PATH)";
        glp_testkit::switch::skip("every_form_compiles_with_the_engines", glp_testkit::switch::Need::Nvrtc, why);
        return;
    };
    for (name, body) in [
        ("while", WHILE_REJECTION),
        ("loop", LOOP_REJECTION),
        ("break", BREAKING),
        ("fixed", FIXED_LOCALS),
        ("uniform", UNIFORM),
    ] {
        let source = engine_kernel_source(&device_functions(body), ViewTraits::ANY).unwrap();
        if let Err(log) = nvrtc.compile(&format!("{name}.cu"), &source) {
            panic!("{name}: NVRTC rejects the engines:\n{log}");
        }
    }
}
