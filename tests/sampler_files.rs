//! Samplers written in a file and compiled at run time: what the compiler refuses (at
//! file:line:col), and what a hook that fails while sampling gives (an error naming the
//! hook, the sample and the step, never a panic or a silent empty output).

use glp::graph::Csr;
use glp::sample::{self, InitialSamples, InterpretedSampler, SampleConfig, SampleGraph};

/// A walk sampler whose `next` body is `next` (with `view`, `transit`, `lane` in scope).
fn walk(next: &str) -> String {
    format!(
        "use glp::sample::{{SampleView, Sampler, NONE}};\n\
         pub struct Walk {{ pub length: u32 }}\n\
         impl Sampler for Walk {{\n\
         fn steps(&self) -> u32 {{ self.length }}\n\
         fn sample_size(&self, _step: u32) -> u32 {{ 1 }}\n\
         fn next(&self, view: &SampleView<'_>, _sample: u32, transit: u32, lane: u32, _step: u32) -> u32 {{\n\
         {next}\n\
         }}\n\
         }}\n"
    )
}

fn compile_error(source: &str) -> String {
    match InterpretedSampler::from_source("walk.rs", source, &["length=3"]) {
        Ok(_) => panic!("compiled:\n{source}"),
        Err(e) => e.to_string(),
    }
}

fn cycle(n: u32) -> Csr {
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for v in 0..n {
        let mut row = [(v + n - 1) % n, (v + 1) % n];
        row.sort();
        targets.extend_from_slice(&row);
        offsets.push(targets.len() as u64);
    }
    Csr::new(offsets, targets, None).unwrap()
}

fn run(sampler: &InterpretedSampler, csr: &Csr) -> glp::Result<sample::SampleOutcome> {
    let graph = SampleGraph::new(csr)?;
    sample::run(&graph, sampler, &InitialSamples::every_vertex(csr.num_vertices())?, &SampleConfig { seed: 1 })
}

#[test]
fn a_walk_file_samples_neighbours() {
    let source = walk("view.edge(transit, view.random_below(view.degree(transit)))");
    let sampler = InterpretedSampler::from_source("walk.rs", &source, &["length=4"]).unwrap();
    let csr = cycle(10);
    let outcome = run(&sampler, &csr).unwrap();
    assert_eq!(outcome.num_samples(), 10);
    assert_eq!(outcome.sampled_vertices(), 40, "every walk takes its 4 steps on a cycle");
    for i in 0..outcome.num_samples() {
        let s = outcome.sample(i);
        for (j, &v) in s.vertices.iter().enumerate() {
            assert!(csr.neighbors(s.sources[j]).contains(&v), "sample {i}: {v} is no neighbour of its transit");
        }
    }
}

#[test]
fn a_missing_hook_is_an_error_at_the_impl() {
    let source = "use glp::sample::{SampleView, Sampler};\npub struct S;\nimpl Sampler for S {\n\
                  fn steps(&self) -> u32 { 2 }\n}\n";
    let error = compile_error(source);
    assert!(error.contains("missing hook `sample_size`: a sampler must define it"), "{error}");
    assert!(error.contains("walk.rs:3:18"), "{error}");
    assert!(error.contains("fn sample_size(&self, step: u32) -> u32"), "{error}");
}

#[test]
fn schedule_hooks_may_not_loop_and_weights_may_not_draw() {
    let source = walk("NONE").replace(
        "fn sample_size(&self, _step: u32) -> u32 { 1 }",
        "fn sample_size(&self, step: u32) -> u32 { let mut n = 0; for _ in 0..step { n += 1; } n + 1 }",
    );
    let error = compile_error(&source);
    assert!(error.contains("loops are not allowed in `sample_size`"), "{error}");
    assert!(error.contains("walk.rs:5:"), "{error}");
    let source = walk("NONE").replace(
        "fn steps(&self) -> u32 { self.length }",
        "fn steps(&self) -> u32 { self.length }\n\
         fn combined_weight(&self, view: &SampleView<'_>, _s: u32, _t: u32, _v: u32, _step: u32) -> f64 { view.random_f64() }",
    );
    let error = compile_error(&source);
    assert!(error.contains("`random_f64` cannot be used in `combined_weight`"), "{error}");
}

#[test]
fn host_methods_are_left_out_and_listed() {
    let source = walk("view.edge(transit, 0)").replace(
        "fn steps(&self) -> u32 { self.length }",
        "fn validate(&self) -> glp::Result<()> { if self.length > 100 { return Err(glp::Error::invalid(format!(\"long\"))); } Ok(()) }\n\
         fn steps(&self) -> u32 { self.length }",
    );
    let sampler = InterpretedSampler::from_source("walk.rs", &source, &["length=3"]).unwrap();
    assert_eq!(sampler.skipped_host_methods(), ["validate"]);
}

#[test]
fn a_failing_hook_stops_the_run_with_its_location_sample_and_step() {
    let source = walk("let d = view.degree(transit) - 2;\nview.edge(transit, lane as u64 / d)");
    let sampler = InterpretedSampler::from_source("walk.rs", &source, &["length=3"]).unwrap();
    // Every sample divides by zero at step 0; the one reported is the first to fail, which
    // only one thread makes sample 0.
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let error = one_thread.install(|| run(&sampler, &cycle(5))).unwrap_err().to_string();
    assert!(error.contains("attempt to divide by zero"), "{error}");
    assert!(error.contains("--> walk.rs:8:20"), "{error}");
    assert!(error.contains("in `next` of `Walk`, for sample 0 at step 0"), "{error}");
}

#[test]
fn a_loop_that_never_ends_stops_at_the_budget() {
    let source = walk("let mut i = 0u64;\nwhile i < 1 { i = i * 2; }\nNONE");
    let sampler = InterpretedSampler::from_source("walk.rs", &source, &["length=3"]).unwrap().with_loop_budget(1000);
    let error = run(&sampler, &cycle(5)).unwrap_err().to_string();
    assert!(error.contains("1000"), "{error}");
    assert!(error.contains("--> walk.rs:8:1"), "{error}");
    assert!(error.contains("in `next` of `Walk`"), "{error}");
}

#[test]
fn a_next_returning_a_non_neighbour_is_an_error() {
    let source = walk("(transit + 2) % view.num_vertices()");
    let sampler = InterpretedSampler::from_source("walk.rs", &source, &["length=3"]).unwrap();
    let error = run(&sampler, &cycle(6)).unwrap_err().to_string();
    assert!(error.contains("not a neighbour"), "{error}");
}

#[test]
fn parameters_are_typed_by_the_struct() {
    let source = walk("NONE");
    let error = InterpretedSampler::from_source("walk.rs", &source, &["length=-1"]).unwrap_err().to_string();
    assert!(error.contains("length"), "{error}");
    let error = InterpretedSampler::from_source("walk.rs", &source, &[] as &[&str]).unwrap_err().to_string();
    assert!(error.contains("length"), "{error}");
}
