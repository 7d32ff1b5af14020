//! Engine tests against naive reference implementations written independently here
//! (ordered maps, one vertex at a time), on random graphs large enough to span many chunks.

use super::*;
use crate::community::UNLABELLED;
use crate::graph::{build_csr, BuildOptions, Csr, EdgeList, VertexId};
use crate::test_rng::Lcg;
use std::collections::BTreeMap;

/// Classic LP: the trait's defaults (the facade's `glp::variants::Classic` is the same).
struct Classic;
impl LpVariant for Classic {}

/// Weighted LP: edge weights summed.
struct Weighted;
impl LpVariant for Weighted {
    fn load_neighbor(&self, view: &View<'_>, _v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
        (view.label(u), view.edge_weight(edge))
    }
}

/// A graph with planted groups of 40 vertices: most edges inside a group. Group `g` holds
/// vertices `g * 40 .. g * 40 + 40` before relabelling by `relabel` (a permutation).
fn clustered_graph(n: usize, edges: usize, seed: u64, weighted: bool) -> Csr {
    clustered_graph_relabelled(n, edges, seed, weighted, |v| v)
}

fn clustered_graph_relabelled(n: usize, edges: usize, seed: u64, weighted: bool, relabel: impl Fn(u32) -> u32) -> Csr {
    let mut rng = Lcg(seed);
    let (mut s, mut t, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..edges {
        let a = rng.below(n as u64);
        let b = if rng.below(10) < 8 { (a / 40 * 40 + rng.below(40)).min(n as u64 - 1) } else { rng.below(n as u64) };
        s.push(relabel(a as VertexId));
        t.push(relabel(b as VertexId));
        w.push(1.0 + rng.below(3) as f32);
    }
    let list = EdgeList { num_vertices: n, sources: s, targets: t, weights: weighted.then_some(w) };
    build_csr(&list, &BuildOptions::default()).unwrap()
}

/// Neighbour label weights of `v` in an ordered map, plus the labels in order of first
/// appearance along the adjacency.
fn gather(csr: &Csr, labels: &[u32], v: u32, weighted: bool) -> (BTreeMap<u32, f64>, Vec<u32>) {
    let mut sums = BTreeMap::new();
    let mut order = Vec::new();
    for (i, &u) in csr.neighbors(v).iter().enumerate() {
        let l = labels[u as usize];
        if l == UNLABELLED {
            continue;
        }
        let w = if weighted { csr.neighbor_weights(v).map_or(1.0, |x| x[i] as f64) } else { 1.0 };
        if !sums.contains_key(&l) {
            order.push(l);
        }
        *sums.entry(l).or_insert(0.0) += w;
    }
    (sums, order)
}

fn reference_sync(csr: &Csr, iterations: u32) -> (Vec<u32>, usize) {
    let n = csr.num_vertices();
    let mut labels: Vec<u32> = (0..n as u32).collect();
    for it in 0..iterations {
        let next: Vec<u32> = (0..n as u32)
            .map(|v| {
                let (sums, _) = gather(csr, &labels, v, false);
                let max = sums.values().cloned().fold(f64::NEG_INFINITY, f64::max);
                // BTreeMap iterates labels ascending: the first with the max is the smallest.
                sums.iter().find(|(_, &s)| s == max).map_or(labels[v as usize], |(&l, _)| l)
            })
            .collect();
        let stable = next == labels;
        labels = next;
        if stable {
            return (labels, it as usize + 1);
        }
    }
    (labels, iterations as usize)
}

fn reference_async(csr: &Csr, max_iterations: u32, rho: u32, tau: f64, weighted: bool) -> (Vec<u32>, usize) {
    let n = csr.num_vertices();
    let mut labels: Vec<u32> = (0..n as u32).collect();
    let mut affected = vec![true; n];
    for it in 0..max_iterations {
        let pick_less = rho != 0 && it % rho == 0;
        let mut changed = 0usize;
        for v in 0..n as u32 {
            if !affected[v as usize] {
                continue;
            }
            affected[v as usize] = false;
            let (sums, order) = gather(csr, &labels, v, weighted);
            let Some(&first) = order.first() else { continue };
            let mut best = first;
            for &l in &order {
                if sums[&l] > sums[&best] {
                    best = l;
                }
            }
            let current = labels[v as usize];
            if best != current && (!pick_less || best < current) {
                labels[v as usize] = best;
                changed += 1;
                for &u in csr.neighbors(v) {
                    affected[u as usize] = true;
                }
            }
        }
        if !pick_less && changed as f64 <= tau * n as f64 {
            return (labels, it as usize + 1);
        }
    }
    (labels, max_iterations as usize)
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

#[test]
fn synchronous_matches_reference_on_any_thread_count() {
    let csr = clustered_graph(5000, 30000, 7, false);
    let (expected, iterations) = reference_sync(&csr, 12);
    for threads in [1, 2, 3] {
        let out = pool(threads).install(|| run(&csr, &Classic, &LpConfig::synchronous(12))).unwrap();
        assert_eq!(out.labels, expected, "{threads} threads");
        assert_eq!(out.iterations.len(), iterations);
    }
}

#[test]
fn asynchronous_single_thread_matches_sequential_reference() {
    for (weighted, seed) in [(false, 3), (true, 11)] {
        let csr = clustered_graph(6000, 40000, seed, weighted);
        let (expected, iterations) = reference_async(&csr, 20, 8, 0.05, weighted);
        let out = if weighted {
            pool(1).install(|| run(&csr, &Weighted, &LpConfig::asynchronous())).unwrap()
        } else {
            pool(1).install(|| run(&csr, &Classic, &LpConfig::asynchronous())).unwrap()
        };
        assert_eq!(out.labels, expected, "weighted = {weighted}");
        assert_eq!(out.iterations.len(), iterations);
        assert!(out.iterations[0].pick_less);
        assert_eq!(out.iterations[0].processed, 6000);
    }
}

/// Fraction of vertices whose final label's community is mostly their planted group.
fn purity(labels: &[u32], group: impl Fn(u32) -> u32) -> f64 {
    let mut by_label: BTreeMap<u32, BTreeMap<u32, usize>> = BTreeMap::new();
    for (v, &l) in labels.iter().enumerate() {
        *by_label.entry(l).or_default().entry(group(v as u32)).or_default() += 1;
    }
    let majority: usize = by_label.values().map(|g| g.values().max().copied().unwrap_or(0)).sum();
    majority as f64 / labels.len() as f64
}

#[test]
fn asynchronous_parallel_runs_find_the_planted_groups() {
    // Groups of 40 with 80% of edges inside, numbered group by group: LPA merges a few
    // groups, hence 85%. This is the input the hashed tie rule exists for (first-seen ties
    // merge these groups: purity 0.66 measured, even with the ids scattered).
    let n = 8000u32;
    let contiguous = clustered_graph(n as usize, 80000, 5, false);
    let hashed = LpConfig { ties: TieBreak::Hashed, ..LpConfig::asynchronous() };
    let out = pool(2).install(|| run(&contiguous, &Classic, &hashed)).unwrap();
    assert!(out.converged);
    let p = purity(&out.labels, |v| v / 40);
    assert!(p >= 0.85, "hashed ties, contiguous groups: purity {p}");
}

/// Hooks are honoured: neighbours reporting UNLABELLED contribute nothing, and
/// `update_vertex` decides the final label.
#[test]
fn hooks_decide_what_neighbours_contribute_and_what_a_vertex_takes() {
    struct EvenOnly;
    impl LpVariant for EvenOnly {
        fn load_neighbor(&self, view: &View<'_>, _v: VertexId, u: VertexId, _e: EdgeId) -> (Label, f64) {
            if u.is_multiple_of(2) {
                (view.label(u), 1.0)
            } else {
                (UNLABELLED, 1.0)
            }
        }
        fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, _: f64) -> Label {
            if v == 0 {
                view.next_label(v)
            } else {
                best
            }
        }
    }
    // Star: centre 0, leaves 1..=4; plus edge 3-4.
    let list = EdgeList { num_vertices: 5, sources: vec![0, 0, 0, 0, 3], targets: vec![1, 2, 3, 4, 4], weights: None };
    let csr = build_csr(&list, &BuildOptions::default()).unwrap();
    let out = run(&csr, &EvenOnly, &LpConfig::synchronous(1)).unwrap();
    // Iteration 0: vertex 0 keeps 0 (update_vertex); leaves see only even neighbours:
    // 1 -> {0}, 2 -> {0}, 3 -> {0 (vertex 0), 4 (vertex 4)}: tie, smallest 0; 4 -> {0}.
    assert_eq!(out.labels, vec![0, 0, 0, 0, 0]);
    // A vertex with only odd neighbours keeps its label: vertex 0 of a path 0-1.
    let list = EdgeList { num_vertices: 2, sources: vec![0], targets: vec![1], weights: None };
    let csr = build_csr(&list, &BuildOptions::default()).unwrap();
    let out = run(&csr, &EvenOnly, &LpConfig::synchronous(3)).unwrap();
    assert_eq!(out.labels, vec![0, 0]);
}

#[test]
fn isolated_vertices_keep_their_label_and_bad_tolerance_is_refused() {
    let csr = Csr::empty(3);
    let out = run(&csr, &Classic, &LpConfig::asynchronous()).unwrap();
    assert_eq!(out.labels, vec![0, 1, 2]);
    let config = LpConfig {
        schedule: Schedule::Asynchronous { pick_less_every: 8, tolerance: 1.5 },
        ..LpConfig::asynchronous()
    };
    assert!(matches!(run(&csr, &Classic, &config), Err(Error::InvalidArgument(_))));
}

// ---- The view's facilities -------------------------------------------------------------

use super::view::Facilities;
use std::sync::atomic::AtomicU32;

/// Only the given facilities.
fn features(f: impl FnOnce(&mut LpFeatures)) -> LpFeatures {
    let mut features = LpFeatures::default();
    f(&mut features);
    features
}

/// Runs `check` with a view of a graph of `n` isolated vertices, all labelled 0.
fn with_view(n: usize, features: LpFeatures, seed: u64, check: impl FnOnce(&View<'_>, &Facilities<'_>)) {
    let csr = Csr::empty(n);
    let labels: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let facilities = Facilities::new(&csr, features, seed, None, None);
    let view = View::new(&csr, &labels, &labels, 3, &facilities);
    check(&view, &facilities);
}

/// `(label, weight)` of every occupied slot, in slot order.
fn slots(view: &View<'_>, v: VertexId) -> Vec<(Label, f64)> {
    (0..view.memory_len(v)).map(|s| (view.memory_label(v, s), view.memory_weight(v, s))).collect()
}

#[test]
fn label_memory_adds_in_slot_order_and_replaces_the_lightest_only_with_heavier() {
    with_view(2, features(|f| f.label_memory = true), 0, |view, _| {
        assert_eq!(view.memory_len(0), 0);
        assert_eq!(view.memory_pick(0, 0.5), UNLABELLED);
        view.memory_add(0, 7, 1.0);
        view.memory_add(0, 3, 2.0);
        view.memory_add(0, 7, 0.5); // existing label: added to its slot
        view.memory_add(0, UNLABELLED, 4.0); // ignored
        view.memory_add(0, 9, 0.0); // not > 0: ignored
        view.memory_add(0, 9, -1.0);
        view.memory_add(0, 9, f64::NAN);
        assert_eq!(slots(view, 0), vec![(7, 1.5), (3, 2.0)]);
        view.memory_add(0, 5, 1.0);
        view.memory_add(0, 6, 1.0);
        view.memory_add(0, 4, 3.0);
        assert_eq!(slots(view, 0), vec![(7, 1.5), (3, 2.0), (5, 1.0), (6, 1.0), (4, 3.0)]);
        // Full. Lightest weight 1.0 in slots 2 (label 5) and 3 (label 6): ties go to the
        // larger label, slot 3. An equal weight does not replace it, a larger one does, in
        // place.
        view.memory_add(0, 8, 1.0);
        assert_eq!(slots(view, 0)[3], (6, 1.0));
        view.memory_add(0, 8, 1.25);
        assert_eq!(slots(view, 0), vec![(7, 1.5), (3, 2.0), (5, 1.0), (8, 1.25), (4, 3.0)]);
        // Out-of-range slots are empty; vertex 1's memory is untouched.
        assert_eq!((view.memory_label(0, 5), view.memory_weight(0, 9)), (UNLABELLED, 0.0));
        assert_eq!(view.memory_len(1), 0);
    });
}

#[test]
fn label_memory_weights_are_f32_and_added_in_f32() {
    with_view(1, features(|f| f.label_memory = true), 0, |view, _| {
        view.memory_add(0, 1, 0.1);
        view.memory_add(0, 1, 0.2);
        let expected = (0.1f64 as f32 + 0.2f64 as f32) as f64;
        assert_eq!(view.memory_weight(0, 0), expected);
        assert_ne!(expected, 0.1 + 0.2);
        // A weight that rounds to 0 in f32 is ignored.
        view.memory_add(0, 2, 1e-50);
        assert_eq!(view.memory_len(0), 1);
    });
}

#[test]
fn label_memory_prune_drops_light_labels_and_keeps_the_order() {
    with_view(1, features(|f| f.label_memory = true), 0, |view, _| {
        for (l, w) in [(10, 1.0), (11, 4.0), (12, 0.5), (13, 2.0), (14, 2.5)] {
            view.memory_add(0, l, w);
        }
        // Total 10: a fraction of 0.1 keeps weights >= 1.0 (1.0 itself stays).
        view.memory_prune(0, 0.1);
        assert_eq!(slots(view, 0), vec![(10, 1.0), (11, 4.0), (13, 2.0), (14, 2.5)]);
        // Total 9.5: 0.25 keeps weights >= 2.375.
        view.memory_prune(0, 0.25);
        assert_eq!(slots(view, 0), vec![(11, 4.0), (14, 2.5)]);
        // A freed slot is reused at the end.
        view.memory_add(0, 15, 1.0);
        assert_eq!(slots(view, 0), vec![(11, 4.0), (14, 2.5), (15, 1.0)]);
        view.memory_prune(0, 1.5);
        assert_eq!(view.memory_len(0), 0);
    });
}

#[test]
fn label_memory_pick_walks_the_slots_by_cumulative_weight() {
    with_view(1, features(|f| f.label_memory = true), 0, |view, _| {
        // Weights 1, 2, 1 of total 4: cumulative 0.25, 0.75, 1.
        view.memory_add(0, 30, 1.0);
        view.memory_add(0, 10, 2.0);
        view.memory_add(0, 20, 1.0);
        let picks: Vec<Label> =
            [0.0, 0.2499, 0.25, 0.7499, 0.75, 0.999999].iter().map(|&r| view.memory_pick(0, r)).collect();
        assert_eq!(picks, vec![30, 30, 10, 10, 20, 20]);
        // r at or past the end (rounding) gives the last slot.
        assert_eq!(view.memory_pick(0, 1.0), 20);
    });
}

#[test]
fn histogram_counts_reads_and_resets() {
    with_view(4, features(|f| f.histogram = true), 0, |view, facilities| {
        for l in [2, 2, 3, 2, UNLABELLED] {
            view.count_label(l);
        }
        assert_eq!((view.global_count(0), view.global_count(2), view.global_count(3)), (0, 3, 1));
        assert_eq!(view.global_count(UNLABELLED), 0);
        facilities.reset_histogram();
        assert_eq!(view.global_count(2), 0);
    });
}

/// A variant checking, from inside the engine, that the histogram of every iteration holds
/// exactly the labels shown in it: pick counts `next_label`, and `update_vertex` compares
/// `global_count(label(v))` with the number of vertices showing `label(v)`, which it
/// recounts itself. Mismatches are counted in `errors`.
struct HistogramProbe {
    errors: std::sync::atomic::AtomicU64,
    checks: std::sync::atomic::AtomicU64,
}

impl LpVariant for HistogramProbe {
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        view.count_label(view.next_label(v));
        view.next_label(v)
    }
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, _: f64) -> Label {
        let mine = view.label(v);
        let shown = (0..view.num_vertices()).filter(|&u| view.label(u) == mine).count() as u32;
        self.checks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if view.global_count(mine) != shown {
            self.errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        best
    }
}

#[test]
fn the_histogram_of_each_iteration_counts_that_iterations_labels() {
    let csr = clustered_graph(400, 1500, 13, false);
    let probe = HistogramProbe { errors: Default::default(), checks: Default::default() };
    let hist = features(|f| {
        f.custom_pick_label = true;
        f.histogram = true
    });
    let out = run_with(&csr, &probe, &LpConfig::synchronous(6), &LpInputs::default(), hist).unwrap();
    assert!(out.iterations.len() >= 3, "several iterations ran: {}", out.iterations.len());
    assert!(probe.checks.into_inner() > 1000);
    assert_eq!(probe.errors.into_inner(), 0);
}

#[test]
fn random_numbers_follow_the_documented_philox_recipe() {
    with_view(1, features(|f| f.random = true), 0x0123_4567_89AB_CDEF, |view, _| {
        // Key = seed words, counter = (v, iteration 3, draw, 0).
        let w = crate::random::philox4x32_10([5, 3, 9, 0], [0x89AB_CDEF, 0x0123_4567]);
        assert_eq!(view.random_u32(5, 9), w[0]);
        let x = w[0] as u64 | (w[1] as u64) << 32;
        assert_eq!(view.random_f64(5, 9), (x >> 11) as f64 / (1u64 << 53) as f64);
        // Deterministic; different draws, vertices and seeds differ.
        assert_eq!(view.random_f64(5, 9), view.random_f64(5, 9));
        assert_ne!(view.random_u32(5, 9), view.random_u32(5, 10));
        assert_ne!(view.random_u32(5, 9), view.random_u32(6, 9));
    });
    let mut words = Vec::new();
    for seed in [0, 1] {
        with_view(1, features(|f| f.random = true), seed, |view, _| words.push(view.random_u32(0, 0)));
    }
    assert_ne!(words[0], words[1]);
}

#[test]
fn random_f64_is_uniform_on_the_unit_interval() {
    with_view(1, features(|f| f.random = true), 42, |view, _| {
        let n = 200_000u32;
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for i in 0..n {
            let x = view.random_f64(i % 1000, i / 1000);
            assert!((0.0..1.0).contains(&x));
            sum += x;
            sum_sq += x * x;
        }
        let mean = sum / n as f64;
        let variance = sum_sq / n as f64 - mean * mean;
        // Uniform on [0, 1): mean 1/2 (standard error sqrt(1/12 / n)), variance 1/12
        // (standard error sqrt((1/80 - 1/144) / n)). Five standard errors.
        let mean_tolerance = 5.0 * (1.0 / 12.0 / n as f64).sqrt();
        let variance_tolerance = 5.0 * ((1.0 / 80.0 - 1.0 / 144.0) / n as f64).sqrt();
        assert!((mean - 0.5).abs() < mean_tolerance, "mean {mean}");
        assert!((variance - 1.0 / 12.0).abs() < variance_tolerance, "variance {variance}");
    });
}

#[test]
fn seeds_and_vertex_weights_come_from_the_inputs() {
    let csr = Csr::empty(3);
    let labels: Vec<AtomicU32> = (0..3).map(|_| AtomicU32::new(0)).collect();
    let all = features(|f| {
        f.seeds = true;
        f.vertex_weights = true
    });
    let seeds = [UNLABELLED, 0, 0];
    let weights = [0.5f32, 2.0, 3.0];
    let facilities = Facilities::new(&csr, all, 0, Some(&seeds), Some(&weights));
    let view = View::new(&csr, &labels, &labels, 0, &facilities);
    assert_eq!((view.seed_label(0), view.seed_label(2)), (UNLABELLED, 0));
    assert_eq!((view.vertex_weight(0), view.vertex_weight(2)), (0.5, 3.0));
    let facilities = Facilities::new(&csr, all, 0, None, None);
    let view = View::new(&csr, &labels, &labels, 0, &facilities);
    assert_eq!((view.seed_label(1), view.vertex_weight(1)), (UNLABELLED, 1.0));
}

/// Facilities the features leave out give neutral values in release builds (debug builds
/// assert: the features were computed wrongly).
#[cfg(not(debug_assertions))]
#[test]
fn facilities_left_out_give_neutral_values() {
    with_view(2, LpFeatures::default(), 7, |view, facilities| {
        view.count_label(1);
        assert_eq!(view.global_count(1), 0);
        view.memory_add(0, 1, 1.0);
        view.memory_prune(0, 0.5);
        assert_eq!((view.memory_len(0), view.memory_label(0, 0), view.memory_weight(0, 0)), (0, UNLABELLED, 0.0));
        assert_eq!(view.memory_pick(0, 0.3), UNLABELLED);
        assert_eq!((view.seed_label(1), view.vertex_weight(1)), (UNLABELLED, 1.0));
        assert_eq!((view.random_u32(0, 0), view.random_f64(0, 0)), (0, 0.0));
        assert_eq!(view.edge_weight(0), 1.0);
        assert_eq!(facilities.memberships(), None);
    });
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "features exclude the histogram")]
fn facilities_left_out_fail_a_debug_assertion() {
    with_view(2, LpFeatures::default(), 7, |view, _| view.count_label(1));
}

#[test]
fn inputs_are_checked_against_the_graph() {
    let csr = Csr::empty(3);
    let config = LpConfig::synchronous(2);
    let seeded = features(|f| f.seeds = true);
    let run = |inputs: LpInputs<'_>, features| run_with(&csr, &Classic, &config, &inputs, features);
    let invalid = |r: Result<LpOutcome>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(invalid(run(LpInputs { seeds: Some(&[0, 1]), ..Default::default() }, seeded)));
    assert!(invalid(run(LpInputs { seeds: Some(&[0, 1, 3]), ..Default::default() }, seeded)));
    assert!(invalid(run(LpInputs::default(), seeded)));
    assert!(invalid(run(LpInputs { vertex_weights: Some(&[1.0; 4]), ..Default::default() }, LpFeatures::ALL)));
    assert!(invalid(run(
        LpInputs { vertex_weights: Some(&[1.0, f32::NAN, 1.0]), ..Default::default() },
        LpFeatures::ALL
    )));
    let inputs = LpInputs { seeds: Some(&[0, UNLABELLED, 0]), vertex_weights: Some(&[1.0; 3]), ..Default::default() };
    let ok = run(inputs, seeded).unwrap();
    assert_eq!(ok.labels, vec![0, 1, 2], "Classic ignores the seeds; isolated vertices keep their labels");
    assert_eq!(ok.memberships, None);
}

/// In the synchronous schedule `label` is what pick_label chose this iteration and
/// `next_label` what the previous iteration produced: a variant that shows `v + 1` (mod n)
/// on a path makes every vertex take its neighbours' shifted labels.
#[test]
fn synchronous_hooks_see_shown_and_previous_labels() {
    struct Shift;
    impl LpVariant for Shift {
        fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
            (view.next_label(v) + 1) % view.num_vertices()
        }
        fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, _: f64) -> Label {
            // Previous label and shown label differ by one for every vertex.
            assert_eq!(view.label(v), (view.next_label(v) + 1) % view.num_vertices());
            best
        }
    }
    // Path 0 - 1 - 2 - 3.
    let list = EdgeList { num_vertices: 4, sources: vec![0, 1, 2], targets: vec![1, 2, 3], weights: None };
    let csr = build_csr(&list, &BuildOptions::default()).unwrap();
    let pick = features(|f| f.custom_pick_label = true);
    let out = run_with(&csr, &Shift, &LpConfig::synchronous(1), &LpInputs::default(), pick).unwrap();
    // Shown: 1, 2, 3, 0. Vertex 0 hears {2} -> 2; 1 hears {1, 3} -> 1; 2 hears {2, 0} -> 0;
    // 3 hears {3} -> 3.
    assert_eq!(out.labels, vec![2, 1, 0, 3]);
}
