//! The interpreter against native Rust for samplers: every built-in sampler's source file (the
//! text of `src/samplers/*.rs`, compiled at run time as `glp sample FILE.rs` does) run on the
//! IR interpreter must give exactly the samples of the same sampler compiled by rustc (every
//! vertex, the transit it was drawn from and its step), on a real graph with weights and on
//! a small graph with a dead end, for several seeds, batch sizes and thread counts.

mod common;

use common::{load, pool, small_with_dead_end, with_integer_weights};
use glp::graph::Csr;
use glp::lp::Scalar;
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
        let graph = SampleGraph::detecting_symmetry(csr).unwrap();
        let n = csr.num_vertices();
        let initial = InitialSamples::random(200, run.batch, n, run.seed).unwrap();
        let config = SampleConfig { seed: run.seed };
        let outcome = pool(run.threads)
            .install(|| sample::run(&graph, sampler, &initial, &config))
            .unwrap_or_else(|e| panic!("{}: {e}", sampler.name()));
        let (sources, steps) = (outcome.sources().into_owned(), outcome.steps().into_owned());
        Samples { offsets: outcome.offsets, vertices: outcome.vertices, sources, steps }
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

/// What a built-in sampler's source file says, read by hand from `src/samplers/`.
struct Recorded {
    name: &'static str,
    /// The struct's fields, in declaration order: a file's parameters.
    declared: &'static [(&'static str, Scalar)],
    /// The fields in the order the hooks first read them (`validate`, a host method that is
    /// not compiled, does not count): the attribute's parameters, as it sees only the impl.
    first_read: &'static [&'static str],
    /// The view facilities the hooks call, in name order (`random_*` are `random`,
    /// `total_weight` and `weighted_edge` `weight_prefix`, `combined_count` `combined_count`, the other `combined_*` `combined`, ...).
    features: &'static [&'static str],
    /// The loops: hook, line and column (from 1) of the `while`.
    loops: &'static [(&'static str, u32, u32)],
}

const fn recorded(
    name: &'static str,
    declared: &'static [(&'static str, Scalar)],
    first_read: &'static [&'static str],
    features: &'static [&'static str],
    loops: &'static [(&'static str, u32, u32)],
) -> Recorded {
    Recorded { name, declared, first_read, features, loops }
}

/// In [`BUILT_IN`]'s order.
const RECORDED: [Recorded; 11] = {
    use Scalar::{Bool, F64, U32};
    [
        recorded("deepwalk", &[("length", U32)], &["length"], &["random"], &[]),
        recorded("weighted-deepwalk", &[("length", U32)], &["length"], &["random", "weight_prefix"], &[]),
        recorded("ppr", &[("termination", F64), ("max_length", U32)], &["max_length", "termination"], &["random"], &[]),
        recorded(
            "node2vec",
            &[("length", U32), ("p", F64), ("q", F64)],
            &["length", "p", "q"],
            &["edge_weights", "history", "max_weight", "random"],
            &[("next", 74, 9)],
        ),
        recorded(
            "khop",
            &[
                ("hops", U32),
                ("fanout_1", U32),
                ("fanout_2", U32),
                ("fanout_3", U32),
                ("fanout_4", U32),
                ("replace", Bool),
            ],
            &["hops", "fanout_1", "fanout_2", "fanout_3", "fanout_4", "replace"],
            &["random"],
            &[],
        ),
        recorded("layer", &[("layers", U32), ("size", U32)], &["layers", "size"], &["combined", "random"], &[]),
        recorded(
            "fastgcn",
            &[("layers", U32), ("size", U32)],
            &["layers", "size"],
            &["combined", "combined_count"],
            &[],
        ),
        recorded("ladies", &[("layers", U32), ("size", U32)], &["layers", "size"], &["combined"], &[]),
        recorded("mvs", &[("hops", U32), ("fanout", U32)], &["hops", "fanout"], &["random"], &[("next", 64, 9)]),
        recorded("cluster-gcn", &[], &[], &[], &[]),
        recorded("multi-root-walk", &[("length", U32)], &["length"], &["combined", "random"], &[]),
    ]
};

/// `sampler`'s parameters: name and type, in its order.
fn decls(sampler: &dyn CompiledSampler) -> Vec<(String, Scalar)> {
    sampler.param_decls().into_iter().map(|d| (d.name, d.ty)).collect()
}

/// `sampler`'s loops: hook, file, line and column.
fn loops(sampler: &dyn CompiledSampler) -> Vec<(String, String, u32, u32)> {
    sampler.loop_sites().into_iter().map(|s| (s.function, s.file, s.line, s.column)).collect()
}

#[test]
fn the_attribute_and_the_file_record_the_parameters_facilities_and_loops_of_the_source() {
    assert_eq!(BUILT_IN.map(|b| b.name), RECORDED.map(|r| r.name));
    for (built_in, expected) in BUILT_IN.iter().zip(&RECORDED) {
        let name = built_in.name;
        let native = (built_in.sampler)();
        let (file, source) = built_in.source;
        let interpreted = InterpretedSampler::from_source(file, source, &assignments(native.as_ref())).unwrap();

        let ty = |field: &str| expected.declared.iter().find(|(f, _)| *f == field).unwrap().1;
        let declared: Vec<(String, Scalar)> = expected.declared.iter().map(|&(f, t)| (f.to_string(), t)).collect();
        let first_read: Vec<(String, Scalar)> = expected.first_read.iter().map(|&f| (f.to_string(), ty(f))).collect();
        assert_eq!(decls(&interpreted), declared, "{name}: the file's parameters");
        assert_eq!(decls(native.as_ref()), first_read, "{name}: the attribute's parameters");

        assert_eq!(native.features(), expected.features, "{name}: the attribute's facilities");
        assert_eq!(interpreted.features(), expected.features, "{name}: the file's facilities");

        let sites: Vec<_> =
            expected.loops.iter().map(|&(f, line, column)| (f.to_string(), file.to_string(), line, column)).collect();
        assert_eq!(loops(native.as_ref()), sites, "{name}: the attribute's loops");
        assert_eq!(loops(&interpreted), sites, "{name}: the file's loops");
    }
}

/// The tokens the attribute stores ([`CompiledSampler::program_source`]) are the program it
/// compiled: compiled again into the interpreted twin (which the engines' checks build), they
/// give the attribute's parameters and CUDA. A consistency check of the attribute's outputs;
/// what they hold is checked against the sources above, the CUDA text by the snapshots.
#[test]
fn the_stored_tokens_compile_to_the_attributes_program() {
    for (built_in, expected) in BUILT_IN.iter().zip(&RECORDED) {
        let native = (built_in.sampler)();
        let twin = InterpretedSampler::of_compiled(native.as_ref()).unwrap();
        let params = decls(&twin);
        let names: Vec<&str> = params.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(names, expected.first_read, "{}", built_in.name);
        assert_eq!(params, decls(native.as_ref()), "{}", built_in.name);
        assert_eq!(twin.device_functions(), native.device_functions(), "{}", built_in.name);
    }
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
