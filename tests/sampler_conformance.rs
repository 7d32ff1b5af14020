//! The interpreter against native Rust for samplers: every built-in sampler's source file (the
//! text of `src/samplers/*.rs`, compiled at run time as `glp sample FILE.rs` does) run on the
//! IR interpreter must give exactly the samples of the same sampler compiled by rustc (every
//! vertex, the transit it was drawn from and its step), on a real graph with weights and on
//! a small graph with a dead end, for several seeds, batch sizes and thread counts.

mod common;

use common::{load, pool, small_with_dead_end, with_integer_weights};
use glp::graph::Csr;
use glp::sample::{self, CompiledSampler, InitialSamples, InterpretedSampler, SampleConfig, SampleGraph, Sampler};
use glp::samplers::BUILT_IN;
use glp_testkit::conformance::{assert_twins, Kind, Runs};

/// A run compared: seed, roots per sample, threads.
#[derive(Debug, Clone, Copy)]
struct Run {
    seed: u64,
    batch: u32,
    threads: usize,
}

/// What a run must reproduce exactly: every sample's vertices, their transits and steps.
#[derive(Debug, PartialEq)]
struct Samples {
    offsets: Vec<u64>,
    vertices: Vec<u32>,
    sources: Vec<u32>,
    steps: Vec<u32>,
}

struct Sampling;

impl Kind for Sampling {
    type Input = (&'static str, Csr);
    type Run = Run;
    type Output = Samples;

    fn input_name(&self, (name, _): &Self::Input) -> String {
        name.to_string()
    }

    fn run_name(&self, run: &Run) -> String {
        format!("seed {}, {} root(s) per sample, {} thread(s)", run.seed, run.batch, run.threads)
    }
}

impl<S: Sampler + ?Sized> Runs<S> for Sampling {
    fn run(&self, sampler: &S, (_, csr): &Self::Input, run: &Run) -> Samples {
        let graph = SampleGraph::new(csr).unwrap();
        let n = csr.num_vertices();
        let initial = InitialSamples::random(200, run.batch, n, run.seed).unwrap();
        let config = SampleConfig { seed: run.seed };
        let outcome = pool(run.threads)
            .install(|| sample::run(&graph, sampler, &initial, &config))
            .unwrap_or_else(|e| panic!("{}: {e}", sampler.name()));
        Samples { offsets: outcome.offsets, vertices: outcome.vertices, sources: outcome.sources, steps: outcome.steps }
    }
}

#[test]
fn every_built_in_sampler_file_samples_as_its_native_twin() {
    let inputs = [
        ("email-Eu-core, integer weights", with_integer_weights(&load("email-Eu-core.txt").csr)),
        ("small", small_with_dead_end()),
    ];
    let inputs: Vec<&(&'static str, Csr)> = inputs.iter().collect();
    let runs = [
        Run { seed: 1, batch: 1, threads: 1 },
        Run { seed: 7, batch: 1, threads: 2 },
        Run { seed: 7, batch: 3, threads: 2 },
    ];
    let mut compared = 0;
    for built_in in &BUILT_IN {
        let native = (built_in.sampler)();
        let (file, source) = built_in.source;
        let interpreted = InterpretedSampler::from_source(file, source, &assignments(native.as_ref())).unwrap();
        assert_eq!(named_params(&interpreted), named_params(native.as_ref()), "{}: parameters", built_in.name);
        compared += assert_twins(&Sampling, &inputs, &runs, built_in.name, native.as_ref(), &interpreted);
        // The twin rebuilt from the tokens the attribute stored gives the same samples too.
        let twin = InterpretedSampler::of_compiled(native.as_ref()).unwrap();
        compared += assert_twins(&Sampling, &inputs[1..], &runs[..1], built_in.name, native.as_ref(), &twin);
    }
    assert_eq!(compared, BUILT_IN.len() * (inputs.len() * runs.len() + 1));
}

/// The parameters by name (the attribute sees only the impl and orders them by first use;
/// a file's struct orders them by declaration).
fn named_params(sampler: &dyn CompiledSampler) -> std::collections::BTreeMap<String, String> {
    sampler.param_decls().into_iter().zip(sampler.param_values()).map(|(d, v)| (d.name, format!("{v:?}"))).collect()
}

/// The `--param NAME=VALUE` assignments giving `sampler`'s parameter values.
fn assignments(sampler: &dyn CompiledSampler) -> Vec<String> {
    sampler.param_decls().iter().zip(sampler.param_values()).map(|(d, v)| format!("{}={v}", d.name)).collect()
}

#[test]
fn the_attribute_records_what_the_hooks_use() {
    for built_in in &BUILT_IN {
        let sampler = (built_in.sampler)();
        let (file, source) = built_in.source;
        let interpreted = InterpretedSampler::from_source(file, source, &assignments(sampler.as_ref())).unwrap();
        assert_eq!(sampler.features(), interpreted.features(), "{}", built_in.name);
        // From the same tokens, the same CUDA (the parameter struct in the same order).
        let twin = InterpretedSampler::of_compiled(sampler.as_ref()).unwrap();
        assert_eq!(sampler.device_functions(), twin.device_functions(), "{}", built_in.name);
        assert_eq!(sampler.param_decls(), twin.param_decls(), "{}", built_in.name);
    }
    // Spot checks against the sources: node2vec reads the walk's history and draws; weighted
    // DeepWalk reads the prefix sums; FastGCN the combined neighbourhood.
    let features = |name: &str| (BUILT_IN.iter().find(|b| b.name == name).unwrap().sampler)().features().to_vec();
    assert_eq!(features("node2vec"), ["edge_weights", "history", "max_weight", "random"]);
    assert_eq!(features("weighted-deepwalk"), ["random", "weight_prefix"]);
    assert_eq!(features("fastgcn"), ["combined", "combined_count"]);
    assert_eq!(features("cluster-gcn"), Vec::<&str>::new());
}

/// The step probe (the draws the GPU's reference kernels are compared with) calls the hooks
/// as the engine does: a sample's first step through the engine gives the probe's draws of
/// its root (DeepWalk: lane 0; k-hop with replacement: lanes 0..fan-out, in order).
#[test]
fn the_step_probe_draws_what_the_engine_draws() {
    use glp::sample::probe::{step_draws, StepState};
    use glp::samplers::{DeepWalk, KHop};
    let csr = load("email-Eu-core.txt").csr;
    let graph = SampleGraph::new(&csr).unwrap();
    let initial = InitialSamples::random(100, 1, csr.num_vertices(), 5).unwrap();
    let config = SampleConfig { seed: 11 };
    let walk = DeepWalk { length: 1 };
    let khop = KHop { hops: 1, fanout_1: 10, fanout_2: 0, fanout_3: 0, fanout_4: 0, replace: true };
    let walks = sample::run(&graph, &walk, &initial, &config).unwrap();
    let trees = sample::run(&graph, &khop, &initial, &config).unwrap();
    let mut checked = 0;
    for i in 0..initial.len() {
        let state = StepState::at_roots(initial.roots(i).to_vec());
        if csr.degree(state.roots[0]) == 0 {
            continue;
        }
        let probe = step_draws(&graph, &walk, &state, (11, i as u32, 1), false).unwrap();
        assert_eq!(walks.sample(i).vertices, &probe.next[0][..], "DeepWalk, sample {i}");
        let probe = step_draws(&graph, &khop, &state, (11, i as u32, 10), false).unwrap();
        assert_eq!(trees.sample(i).vertices, &probe.next[0][..], "k-hop, sample {i}");
        checked += 1;
    }
    assert!(checked > 90, "{checked} samples with a neighbour");
}
