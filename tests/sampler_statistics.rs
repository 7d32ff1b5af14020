//! Statistical tests of the built-in samplers on real graphs, against distributions computed
//! here from the graph (never from the code under test), with fixed seeds.
//!
//! Threshold: every chi-square test requires a p-value of at least `P_MIN` = 1e-4. With the
//! seeds fixed the outcome is deterministic; a correct sampler fails one test with
//! probability 1e-4 over the choice of seed, while the biases these tests exist for (a
//! `float * degree` draw, node2vec's swapped `p` and `q`, a missing rejection step) give
//! p-values below 1e-30 at these sample sizes.

mod common;

use glp::graph::{Csr, VertexId};
use glp::sample::{self, InitialSamples, SampleConfig, SampleGraph, SampleOutcome, Sampler};
use glp::samplers::{DeepWalk, FastGcn, KHop, Ladies, Layer, MultiRootWalk, Mvs, Node2vec, Ppr, WeightedDeepWalk};
use glp_testkit::stats::{chi_square_probabilities, GroupedChiSquare};
use std::collections::HashMap;

const P_MIN: f64 = 1e-4;

fn run<S: Sampler>(csr: &Csr, sampler: &S, initial: &InitialSamples, seed: u64) -> SampleOutcome {
    let graph = SampleGraph::detecting_symmetry(csr).unwrap();
    sample::run(&graph, sampler, initial, &SampleConfig { seed }).unwrap()
}

/// The walk of sample `i`: its root and the vertices it added.
fn walk(outcome: &SampleOutcome, i: usize) -> Vec<VertexId> {
    let s = outcome.sample(i);
    s.roots.iter().chain(s.vertices).copied().collect()
}

/// Counts of the transitions `u -> neighbour i of u` of every walk, per source vertex.
fn transition_counts(csr: &Csr, outcome: &SampleOutcome) -> Vec<Vec<u64>> {
    let mut counts: Vec<Vec<u64>> = (0..csr.num_vertices() as u32).map(|v| vec![0; csr.degree(v)]).collect();
    for i in 0..outcome.num_samples() {
        let w = walk(outcome, i);
        for pair in w.windows(2) {
            let (u, v) = (pair[0], pair[1]);
            let index = csr.neighbors(u).binary_search(&v).expect("a walk step follows an edge");
            counts[u as usize][index] += 1;
        }
    }
    counts
}

fn max_degree_vertex(csr: &Csr) -> VertexId {
    (0..csr.num_vertices() as u32).max_by_key(|&v| csr.degree(v)).unwrap()
}

#[test]
fn deepwalk_transitions_are_uniform_over_neighbours() {
    let graph = common::load("email-Eu-core.txt");
    let csr = &graph.csr;
    let initial = InitialSamples::random(20_000, 1, csr.num_vertices(), 11).unwrap();
    let outcome = run(csr, &DeepWalk { length: 100 }, &initial, 11);
    let counts = transition_counts(csr, &outcome);
    let mut test = GroupedChiSquare::new();
    for row in &counts {
        test.add(row, &vec![1.0 / row.len() as f64; row.len()]);
    }
    let result = test.result();
    assert!(result.p_value >= P_MIN, "{result:?} over {} vertices", test.groups);
    assert!(test.groups > 500, "only {} vertices had enough transitions", test.groups);
    // The hub alone (degree 345 on email-Eu-core).
    let hub = max_degree_vertex(csr);
    let row = &counts[hub as usize];
    assert!(row.len() > 300);
    let hub_result = chi_square_probabilities(row, &vec![1.0 / row.len() as f64; row.len()]);
    assert!(hub_result.p_value >= P_MIN, "hub {hub}: {hub_result:?}");
}

#[test]
fn weighted_deepwalk_transitions_follow_edge_weights() {
    // email-Eu-core with symmetric integer weights 1..=4 (the repository's weighted graph,
    // PPI, has every weight 1).
    let csr = &common::with_integer_weights(&common::load("email-Eu-core.txt").csr);
    let weights = csr.weights().expect("weighted");
    let initial = InitialSamples::random(20_000, 1, csr.num_vertices(), 5).unwrap();
    let outcome = run(csr, &WeightedDeepWalk { length: 100 }, &initial, 5);
    let counts = transition_counts(csr, &outcome);
    let mut test = GroupedChiSquare::new();
    for (v, row) in counts.iter().enumerate() {
        let range = csr.edge_range(v as u32);
        let total: f64 = weights[range.clone()].iter().map(|&w| w as f64).sum();
        let probabilities: Vec<f64> = weights[range].iter().map(|&w| w as f64 / total).collect();
        test.add(row, &probabilities);
    }
    let result = test.result();
    assert!(result.p_value >= P_MIN, "{result:?} over {} vertices", test.groups);
    assert!(test.groups > 500, "only {} vertices had enough transitions", test.groups);
    // The same walks are not uniform: the weights matter on this graph.
    let mut uniform = GroupedChiSquare::new();
    for row in &counts {
        uniform.add(row, &vec![1.0 / row.len() as f64; row.len()]);
    }
    assert!(uniform.result().p_value < 1e-30, "{:?}", uniform.result());
}

/// node2vec's second-order distribution computed from the graph: from `v`, having come from
/// `t`, the probability of each neighbour of `v`.
fn node2vec_probabilities(csr: &Csr, t: VertexId, v: VertexId, p: f64, q: f64) -> Vec<f64> {
    let t_row = csr.neighbors(t);
    let raw: Vec<f64> = csr
        .neighbors(v)
        .iter()
        .map(|&x| {
            if x == t {
                1.0 / p
            } else if t_row.contains(&x) {
                1.0
            } else {
                1.0 / q
            }
        })
        .collect();
    let total: f64 = raw.iter().sum();
    raw.iter().map(|r| r / total).collect()
}

fn check_node2vec(name: &str, p: f64, q: f64, seed: u64) {
    let graph = common::load(name);
    let csr = &graph.csr;
    let initial = InitialSamples::random(20_000, 1, csr.num_vertices(), seed).unwrap();
    let outcome = run(csr, &Node2vec { length: 40, p, q }, &initial, seed);
    let mut counts: HashMap<(VertexId, VertexId), Vec<u64>> = HashMap::new();
    for i in 0..outcome.num_samples() {
        for triple in walk(&outcome, i).windows(3) {
            let (t, v, x) = (triple[0], triple[1], triple[2]);
            let index = csr.neighbors(v).binary_search(&x).expect("a walk step follows an edge");
            counts.entry((t, v)).or_insert_with(|| vec![0; csr.degree(v)])[index] += 1;
        }
    }
    let mut test = GroupedChiSquare::new();
    let mut swapped = GroupedChiSquare::new();
    for (&(t, v), row) in &counts {
        test.add(row, &node2vec_probabilities(csr, t, v, p, q));
        swapped.add(row, &node2vec_probabilities(csr, t, v, q, p));
    }
    let result = test.result();
    assert!(result.p_value >= P_MIN, "{name} p={p} q={q}: {result:?} over {} (t, v) pairs", test.groups);
    assert!(test.groups > 100, "{name}: only {} pairs tested", test.groups);
    // The NextDoor paper's swapped p and q is far from the walks.
    assert!(swapped.result().p_value < 1e-30, "{name}: {:?}", swapped.result());
}

#[test]
fn node2vec_second_order_transitions_follow_the_bias() {
    // Karate: hubs of degree 16 and 17 in 34 vertices, many common neighbours.
    check_node2vec("karate.mtx", 0.25, 4.0, 3);
    check_node2vec("karate.mtx", 4.0, 0.5, 4);
    check_node2vec("dolphins.edges", 0.5, 2.0, 5);
}

#[test]
fn node2vec_first_step_is_uniform_and_p_q_one_is_deepwalk() {
    // With p = q = 1 every bias is 1: first-order uniform transitions.
    let graph = common::load("karate.mtx");
    let csr = &graph.csr;
    let initial = InitialSamples::random(5_000, 1, csr.num_vertices(), 8).unwrap();
    let outcome = run(csr, &Node2vec { length: 40, p: 1.0, q: 1.0 }, &initial, 8);
    let counts = transition_counts(csr, &outcome);
    let mut test = GroupedChiSquare::new();
    for row in &counts {
        test.add(row, &vec![1.0 / row.len() as f64; row.len()]);
    }
    assert!(test.result().p_value >= P_MIN, "{:?}", test.result());
}

#[test]
fn ppr_walk_lengths_are_geometric() {
    // Karate has no vertex without neighbours: only the termination ends a walk early.
    let graph = common::load("karate.mtx");
    let csr = &graph.csr;
    let (termination, max_length) = (0.15, 30u32);
    let initial = InitialSamples::random(50_000, 1, csr.num_vertices(), 21).unwrap();
    let outcome = run(csr, &Ppr { termination, max_length }, &initial, 21);
    let mut counts = vec![0u64; max_length as usize + 1];
    for i in 0..outcome.num_samples() {
        counts[outcome.sample(i).vertices.len()] += 1;
    }
    let probabilities: Vec<f64> = (0..=max_length)
        .map(|k| {
            let survive = (1.0 - termination).powi(k as i32);
            if k < max_length {
                survive * termination
            } else {
                survive
            }
        })
        .collect();
    let result = chi_square_probabilities(&counts, &probabilities);
    assert!(result.p_value >= P_MIN, "{result:?}: {counts:?}");
}

#[test]
fn khop_with_replacement_draws_independent_uniform_neighbours() {
    let graph = common::load("email-Eu-core.txt");
    let csr = &graph.csr;
    // Roots of degree 3..=12, fan-out 5: repeats are frequent.
    let roots: Vec<VertexId> = (0..csr.num_vertices() as u32).filter(|&v| (3..=12).contains(&csr.degree(v))).collect();
    assert!(roots.len() > 50);
    let repeats_of = |roots: &[VertexId], replace: bool| {
        let many: Vec<VertexId> = roots.iter().cycle().take(roots.len() * 200).copied().collect();
        let initial = InitialSamples::given(many, csr.num_vertices()).unwrap();
        run(csr, &KHop::new(&[5], replace).unwrap(), &initial, 9)
    };
    let outcome = repeats_of(&roots, true);
    // Per root degree d: the number of distinct vertices among 5 independent uniform draws.
    // P(all distinct) = prod_{i<5} (1 - i/d); and each neighbour's share is 1/d.
    let mut by_degree: HashMap<usize, (u64, u64)> = HashMap::new();
    let mut per_neighbour = GroupedChiSquare::new();
    let mut neighbour_counts: HashMap<VertexId, Vec<u64>> = HashMap::new();
    for i in 0..outcome.num_samples() {
        let s = outcome.sample(i);
        let root = s.roots[0];
        assert_eq!(s.vertices.len(), 5, "with replacement every draw adds a vertex");
        let row = csr.neighbors(root);
        let mut distinct = s.vertices.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let entry = by_degree.entry(row.len()).or_default();
        entry.0 += 1;
        if distinct.len() == 5 {
            entry.1 += 1;
        }
        let counts = neighbour_counts.entry(root).or_insert_with(|| vec![0; row.len()]);
        for (&v, &source) in s.vertices.iter().zip(s.sources.iter()) {
            assert_eq!(source, root);
            counts[row.binary_search(&v).expect("a neighbour of the root")] += 1;
        }
    }
    for (root, counts) in &neighbour_counts {
        let d = csr.degree(*root);
        per_neighbour.add(counts, &vec![1.0 / d as f64; d]);
    }
    assert!(per_neighbour.result().p_value >= P_MIN, "{:?}", per_neighbour.result());
    let mut distinct_test = GroupedChiSquare::new();
    for (&d, &(n, all_distinct)) in &by_degree {
        let p: f64 = (0..5).map(|i| (1.0 - i as f64 / d as f64).max(0.0)).product();
        if p > 0.0 {
            distinct_test.add(&[all_distinct, n - all_distinct], &[p, 1.0 - p]);
        } else {
            assert_eq!(all_distinct, 0, "degree {d} < 5 cannot give 5 distinct draws");
        }
    }
    assert!(distinct_test.result().p_value >= P_MIN, "{:?}", distinct_test.result());

    // Without replacement: min(5, d) distinct neighbours, each included with probability
    // min(5, d) / d.
    let outcome = repeats_of(&roots, false);
    let mut inclusion = GroupedChiSquare::new();
    let mut included: HashMap<VertexId, Vec<u64>> = HashMap::new();
    for i in 0..outcome.num_samples() {
        let s = outcome.sample(i);
        let row = csr.neighbors(s.roots[0]);
        let mut distinct = s.vertices.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), s.vertices.len(), "a repeat without replacement");
        assert_eq!(s.vertices.len(), row.len().min(5));
        let counts = included.entry(s.roots[0]).or_insert_with(|| vec![0; row.len()]);
        for v in distinct {
            counts[row.binary_search(&v).expect("a neighbour")] += 1;
        }
    }
    for (root, counts) in &included {
        let d = csr.degree(*root);
        inclusion.add(counts, &vec![1.0 / d as f64; d]);
    }
    assert!(inclusion.result().p_value >= P_MIN, "{:?}", inclusion.result());
}

#[test]
fn khop_samples_are_neighbours_hop_by_hop() {
    let graph = common::load("email-Eu-core.txt");
    let csr = &graph.csr;
    let initial = InitialSamples::random(2_000, 1, csr.num_vertices(), 2).unwrap();
    for replace in [true, false] {
        let outcome = run(csr, &KHop::new(&[10, 5], replace).unwrap(), &initial, 2);
        for i in 0..outcome.num_samples() {
            let s = outcome.sample(i);
            let mut hop1 = Vec::new();
            for j in 0..s.vertices.len() {
                let (v, t) = (s.vertices[j], s.sources[j]);
                assert!(csr.neighbors(t).binary_search(&v).is_ok(), "{v} is not a neighbour of {t}");
                match s.steps[j] {
                    0 => {
                        assert_eq!(t, s.roots[0]);
                        hop1.push(v);
                    }
                    1 => assert!(hop1.contains(&t), "hop 2 grows from hop 1"),
                    other => panic!("step {other} of a 2-hop sampler"),
                }
            }
            if !replace {
                // Per transit and step, no repeats.
                let mut seen = std::collections::HashSet::new();
                for j in 0..s.vertices.len() {
                    assert!(seen.insert((s.steps[j], s.sources[j], s.vertices[j])), "a repeat without replacement");
                }
            }
        }
    }
}

/// Draws of a one-layer collective sampler of size 1 from fixed roots, counted per vertex.
fn single_draws<S: Sampler>(csr: &Csr, sampler: &S, roots: &[VertexId], samples: usize) -> HashMap<VertexId, u64> {
    let offsets: Vec<u64> = (0..=samples as u64).map(|i| i * roots.len() as u64).collect();
    let all: Vec<VertexId> = roots.iter().cycle().take(roots.len() * samples).copied().collect();
    let initial = InitialSamples::groups(offsets, all, csr.num_vertices()).unwrap();
    let outcome = run(csr, sampler, &initial, 77);
    let mut counts = HashMap::new();
    for i in 0..outcome.num_samples() {
        let s = outcome.sample(i);
        assert_eq!(s.vertices.len(), 1);
        assert!(roots.contains(&s.sources[0]));
        assert!(csr.neighbors(s.sources[0]).binary_search(&s.vertices[0]).is_ok());
        *counts.entry(s.vertices[0]).or_insert(0) += 1;
    }
    counts
}

/// Chi-square of `counts` against `weight(v)` over the union of the roots' neighbourhoods.
fn check_against(counts: &HashMap<VertexId, u64>, union: &[VertexId], weight: impl Fn(VertexId) -> f64, what: &str) {
    let total: f64 = union.iter().map(|&v| weight(v)).sum();
    let observed: Vec<u64> = union.iter().map(|v| counts.get(v).copied().unwrap_or(0)).collect();
    assert_eq!(observed.iter().sum::<u64>(), counts.values().sum::<u64>(), "{what}: a draw outside the union");
    let probabilities: Vec<f64> = union.iter().map(|&v| weight(v) / total).collect();
    let result = chi_square_probabilities(&observed, &probabilities);
    assert!(result.p_value >= P_MIN, "{what}: {result:?}");
}

#[test]
fn collective_samplers_match_a_direct_computation() {
    let graph = common::load("email-Eu-core.txt");
    let csr = &graph.csr;
    // A layer of five roots, hubs and ordinary vertices.
    let hub = max_degree_vertex(csr);
    let roots: Vec<VertexId> = [hub, 3, 17, 100, 250].into_iter().filter(|&v| csr.degree(v) > 0).collect();
    let mut union: Vec<VertexId> = roots.iter().flat_map(|&t| csr.neighbors(t).iter().copied()).collect();
    union.sort_unstable();
    union.dedup();
    let adjacent = |v: VertexId| roots.iter().filter(move |&&t| csr.neighbors(t).binary_search(&v).is_ok());
    let degree = |v: VertexId| csr.degree(v) as f64;
    let samples = 60_000;

    // Layer sampling: an edge of the layer uniformly, so v in proportion to its edges into it.
    let counts = single_draws(csr, &Layer { layers: 1, size: 1 }, &roots, samples);
    check_against(&counts, &union, |v| adjacent(v).count() as f64, "layer");
    // FastGCN: degree(v).
    let counts = single_draws(csr, &FastGcn { layers: 1, size: 1 }, &roots, samples);
    check_against(&counts, &union, degree, "fastgcn");
    // LADIES: sum over adjacent roots t of 1 / (d(t) d(v)).
    let counts = single_draws(csr, &Ladies { layers: 1, size: 1 }, &roots, samples);
    check_against(&counts, &union, |v| adjacent(v).map(|&t| 1.0 / (degree(t) * degree(v))).sum(), "ladies");
}

#[test]
fn collective_draws_without_replacement_never_repeat() {
    let graph = common::load("email-Eu-core.txt");
    let csr = &graph.csr;
    let initial = InitialSamples::random(500, 4, csr.num_vertices(), 6).unwrap();
    for sampler in [&Layer { layers: 3, size: 40 } as &dyn Sampler, &Ladies { layers: 3, size: 40 }] {
        let graph = SampleGraph::detecting_symmetry(csr).unwrap();
        let outcome = sample::run(&graph, sampler, &initial, &SampleConfig { seed: 6 }).unwrap();
        for i in 0..outcome.num_samples() {
            let s = outcome.sample(i);
            let mut seen = std::collections::HashSet::new();
            for j in 0..s.vertices.len() {
                assert!(seen.insert((s.steps[j], s.vertices[j])), "{} repeats a vertex in a layer", sampler.name());
            }
        }
    }
}

#[test]
fn multi_root_walkers_move_in_proportion_to_degree() {
    let graph = common::load("karate.mtx");
    let csr = &graph.csr;
    // Three walkers at 0 (degree 16), 33 (degree 17) and 11 (degree 1): one step moves the
    // walker at t with probability d(t) / 34, to each neighbour with 1 / 34.
    let roots = [0, 33, 11];
    let samples = 100_000;
    let offsets: Vec<u64> = (0..=samples as u64).map(|i| i * 3).collect();
    let all: Vec<VertexId> = roots.iter().cycle().take(3 * samples).copied().collect();
    let initial = InitialSamples::groups(offsets, all, csr.num_vertices()).unwrap();
    let outcome = run(csr, &MultiRootWalk { length: 1 }, &initial, 13);
    let edges: Vec<(VertexId, VertexId)> =
        roots.iter().flat_map(|&t| csr.neighbors(t).iter().map(move |&v| (t, v))).collect();
    let mut counts = vec![0u64; edges.len()];
    for i in 0..outcome.num_samples() {
        let s = outcome.sample(i);
        let k = edges.iter().position(|&e| e == (s.sources[0], s.vertices[0])).expect("an edge of a walker");
        counts[k] += 1;
    }
    let result = chi_square_probabilities(&counts, &vec![1.0 / edges.len() as f64; edges.len()]);
    assert!(result.p_value >= P_MIN, "{result:?}");
    // Longer walks: each step moves one walker, which continues from its new position.
    let outcome = run(csr, &MultiRootWalk { length: 20 }, &initial, 13);
    for i in 0..100 {
        let s = outcome.sample(i);
        let mut positions = roots.to_vec();
        for (&v, &t) in s.vertices.iter().zip(s.sources.iter()) {
            let walker = positions.iter().position(|&p| p == t).expect("a walker's position");
            assert!(csr.neighbors(t).binary_search(&v).is_ok());
            positions[walker] = v;
        }
    }
}

#[test]
fn mvs_draws_neighbours_in_proportion_to_inverse_square_root_degree() {
    let graph = common::load("email-Eu-core.txt");
    let csr = &graph.csr;
    let hub = max_degree_vertex(csr);
    let roots: Vec<VertexId> = [hub, 5, 40].into_iter().flat_map(|r| std::iter::repeat_n(r, 3000)).collect();
    let initial = InitialSamples::given(roots, csr.num_vertices()).unwrap();
    let outcome = run(csr, &glp::samplers::Mvs { hops: 1, fanout: 10 }, &initial, 17);
    let mut counts: HashMap<VertexId, Vec<u64>> = HashMap::new();
    for i in 0..outcome.num_samples() {
        let s = outcome.sample(i);
        let row = csr.neighbors(s.roots[0]);
        assert_eq!(s.vertices.len(), 10);
        let c = counts.entry(s.roots[0]).or_insert_with(|| vec![0; row.len()]);
        for &v in s.vertices {
            c[row.binary_search(&v).expect("a neighbour")] += 1;
        }
    }
    let mut test = GroupedChiSquare::new();
    for (&root, c) in &counts {
        let raw: Vec<f64> = csr.neighbors(root).iter().map(|&u| 1.0 / (csr.degree(u) as f64).sqrt()).collect();
        let total: f64 = raw.iter().sum();
        test.add(c, &raw.iter().map(|r| r / total).collect::<Vec<f64>>());
    }
    assert_eq!(test.groups, 3);
    assert!(test.result().p_value >= P_MIN, "{:?}", test.result());
}

/// A directed graph with a sink: 0 -> 1, 2, 3; 1 has no out-edge; 2 -> 0; 3 -> 0, 2.
fn directed_with_sink() -> Csr {
    Csr::new(vec![0, 3, 3, 4, 6], vec![1, 2, 3, 0, 0, 2], None).unwrap()
}

#[test]
fn layer_importance_samplers_never_draw_a_sink() {
    // From layer {0} (out-degree 3): the sink 1 has no out-edge, so no column in FastGCN's
    // and LADIES's importance: weight 0. FastGCN: 2 and 3 in proportion to their out-degrees
    // 1 and 2; LADIES: to 1 / (3 * 1) and 1 / (3 * 2), i.e. 2 : 1.
    let csr = directed_with_sink();
    let counts = single_draws(&csr, &FastGcn { layers: 1, size: 1 }, &[0], 30_000);
    check_against(&counts, &[2, 3], |v| if v == 2 { 1.0 } else { 2.0 }, "fastgcn with a sink");
    let counts = single_draws(&csr, &Ladies { layers: 1, size: 1 }, &[0], 30_000);
    check_against(&counts, &[2, 3], |v| if v == 2 { 2.0 } else { 1.0 }, "ladies with a sink");
}

#[test]
fn mvs_counts_a_sink_as_degree_one() {
    // From 0: neighbours 1 (the sink: degree taken as 1), 2 (degree 1) and 3 (degree 2):
    // 1 : 1 : 1 / sqrt(2).
    let csr = directed_with_sink();
    let initial = InitialSamples::given(vec![0; 5_000], csr.num_vertices()).unwrap();
    let outcome = run(&csr, &Mvs { hops: 1, fanout: 6 }, &initial, 23);
    let mut counts = [0u64; 3];
    for &v in &outcome.vertices {
        counts[v as usize - 1] += 1;
    }
    assert_eq!(counts.iter().sum::<u64>(), 30_000, "every draw adds a neighbour of 0");
    let raw = [1.0, 1.0, 1.0 / 2f64.sqrt()];
    let total: f64 = raw.iter().sum();
    let result = chi_square_probabilities(&counts, &raw.map(|r| r / total));
    assert!(result.p_value >= P_MIN, "{result:?}: {counts:?}");
}
