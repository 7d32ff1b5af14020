//! CPU == GPU for samplers, draw by draw: every built-in sampler's hooks compiled to CUDA and
//! run by the reference kernels on one sample's step give exactly the vertices, weights and
//! entries the same hooks give on the CPU (native Rust) with the same view and random
//! streams (Philox keyed by seed, sample, step and lane; exact integer draws), on a weighted
//! real graph, at the roots and deeper in a walk (node2vec reads the previous vertex), with
//! one root and several. Skipped without a GPU unless `GLP_REQUIRE_GPU=1`.

mod common;

use glp::graph::Csr;
use glp::sample::gpu::{DeviceSampleGraph, ReferenceKernels};
use glp::sample::probe::{step_draws, StepState};
use glp::sample::{SampleGraph, COLLECTIVE};
use glp::samplers::BUILT_IN;

/// States to draw from: single roots of low, middle and high degree at step 0; a walk two
/// steps in; five roots at step 0 and one step in.
fn states(csr: &Csr) -> Vec<StepState> {
    let mut by_degree: Vec<u32> = (0..csr.num_vertices() as u32).filter(|&v| csr.degree(v) > 0).collect();
    by_degree.sort_by_key(|&v| (csr.degree(v), v));
    let (low, mid, hub) = (by_degree[0], by_degree[by_degree.len() / 2], by_degree[by_degree.len() - 1]);
    let a = csr.neighbors(mid)[0];
    let b = csr.neighbors(a)[csr.degree(a) / 2];
    let group: Vec<u32> = by_degree.iter().step_by(by_degree.len() / 5).take(5).copied().collect();
    let next_level: Vec<u32> = group.iter().map(|&v| csr.neighbors(v)[0]).collect();
    vec![
        StepState::at_roots(vec![low]),
        StepState::at_roots(vec![mid]),
        StepState::at_roots(vec![hub]),
        StepState { roots: vec![mid], levels: vec![vec![mid], vec![a], vec![b]] },
        StepState::at_roots(group.clone()),
        StepState { roots: group.clone(), levels: vec![group, next_level] },
    ]
}

#[test]
fn every_built_in_sampler_draws_on_the_gpu_as_on_the_cpu() {
    let Some(gpu) = common::gpu_or_skip("every_built_in_sampler_draws_on_the_gpu_as_on_the_cpu") else { return };
    let csr = common::with_integer_weights(&common::load("email-Eu-core.txt").csr);
    let graph = SampleGraph::new(&csr).unwrap();
    let device = DeviceSampleGraph::upload(&gpu, &graph).unwrap();
    let states = states(&csr);
    let mut compared = 0;
    for built_in in &BUILT_IN {
        let sampler = (built_in.sampler)();
        let kernels = ReferenceKernels::new(&gpu, sampler.as_ref()).unwrap();
        let collective = sampler.sampling() == COLLECTIVE;
        for (i, state) in states.iter().enumerate() {
            for (seed, sample) in [(1u64, 0u32), (42, 977)] {
                let key = (seed, sample, 64);
                let cpu = step_draws(&graph, sampler.as_ref(), state, key, collective).unwrap();
                let gpu_draws = kernels.step_draws(&gpu, &device, state, key, collective).unwrap();
                assert_eq!(cpu.next, gpu_draws.next, "{}: `next`, state {i}, seed {seed}", built_in.name);
                assert_eq!(cpu.weights, gpu_draws.weights, "{}: weights, state {i}, seed {seed}", built_in.name);
                assert_eq!(cpu.entries, gpu_draws.entries, "{}: `next_entry`, state {i}, seed {seed}", built_in.name);
                if collective {
                    assert!(cpu.entries.iter().any(|&e| e != glp::sample::NONE_ENTRY), "{}: no draw", built_in.name);
                } else if built_in.name != "cluster-gcn" {
                    assert!(cpu.next.iter().flatten().any(|&v| v != glp::sample::NONE), "{}: no draw", built_in.name);
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, BUILT_IN.len() * 6 * 2);
}
