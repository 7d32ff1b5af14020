//! The sampling engine's contract: results independent of the thread count, outputs in the
//! documented shapes, and every bad input a clear error.

mod common;

use glp::graph::{Csr, VertexId};
use glp::sample::engine::UNIQUE_ATTEMPTS;
use glp::sample::{
    self, InitialSamples, SampleConfig, SampleGraph, SampleOutcome, SampleView, Sampler, ALL_NEIGHBOURS, COLLECTIVE,
    NONE_ENTRY,
};
use glp::samplers::{
    ClusterGcn, DeepWalk, FastGcn, KHop, Ladies, Layer, MultiRootWalk, Mvs, Node2vec, Ppr, WeightedDeepWalk,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

fn run_on(csr: &Csr, sampler: &dyn Sampler, initial: &InitialSamples, seed: u64) -> glp::Result<SampleOutcome> {
    let graph = SampleGraph::new(csr)?;
    sample::run(&graph, sampler, initial, &SampleConfig { seed })
}

/// A small graph: a path 0 - 1 - 2 - 3 and a triangle 3 - 4 - 5.
fn small() -> Csr {
    from_rows(&[&[1], &[0, 2], &[1, 3], &[2, 4, 5], &[3, 5], &[3, 4]])
}

/// The graph whose vertex `v` has the sorted neighbours `rows[v]`.
fn from_rows(rows: &[&[u32]]) -> Csr {
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for &row in rows {
        targets.extend_from_slice(row);
        offsets.push(targets.len() as u64);
    }
    Csr::new(offsets, targets, None).unwrap()
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let graph = common::load("email-Eu-core.txt");
    let csr = &common::with_integer_weights(&graph.csr);
    let n = csr.num_vertices();
    let single = InitialSamples::random(3_000, 1, n, 1).unwrap();
    let groups = InitialSamples::random(500, 3, n, 1).unwrap();
    let cases: Vec<(&dyn Sampler, &InitialSamples)> = vec![
        (&DeepWalk { length: 20 }, &single),
        (&WeightedDeepWalk { length: 20 }, &single),
        (&Ppr { termination: 0.2, max_length: 20 }, &single),
        (&Node2vec { length: 20, p: 0.5, q: 2.0 }, &single),
        (&KHop { hops: 2, fanout_1: 10, fanout_2: 5, fanout_3: 0, fanout_4: 0, replace: false }, &single),
        (&Mvs { hops: 2, fanout: 5 }, &single),
        (&Layer { layers: 2, size: 20 }, &groups),
        (&FastGcn { layers: 2, size: 20 }, &groups),
        (&Ladies { layers: 2, size: 20 }, &groups),
        (&ClusterGcn, &groups),
        (&MultiRootWalk { length: 20 }, &groups),
    ];
    for (sampler, initial) in cases {
        let outcomes: Vec<SampleOutcome> = [1, 2, 3]
            .into_iter()
            .map(|threads| common::pool(threads).install(|| run_on(csr, sampler, initial, 42).unwrap()))
            .collect();
        assert!(outcomes[0].sampled_vertices() > 0, "{}", sampler.name());
        for (i, other) in outcomes[1..].iter().enumerate() {
            assert_eq!(outcomes[0].offsets, other.offsets, "{} with {} threads", sampler.name(), i + 2);
            assert_eq!(outcomes[0].vertices, other.vertices, "{} with {} threads", sampler.name(), i + 2);
            assert_eq!(outcomes[0].sources(), other.sources(), "{} with {} threads", sampler.name(), i + 2);
            assert_eq!(outcomes[0].steps(), other.steps(), "{} with {} threads", sampler.name(), i + 2);
        }
        // Another seed gives other samples.
        let reseeded = run_on(csr, sampler, initial, 43).unwrap();
        if sampler.name() != "ClusterGcn" {
            assert_ne!(outcomes[0].vertices, reseeded.vertices, "{}", sampler.name());
        }
    }
}

#[test]
fn walks_stop_at_dead_ends_and_pad_with_none() {
    // 0 -> 1 -> 2 directed: vertex 2 has no out-edge.
    let csr = Csr::new(vec![0, 1, 2, 2], vec![1, 2], None).unwrap();
    let initial = InitialSamples::every_vertex(3).unwrap();
    let outcome = run_on(&csr, &DeepWalk { length: 5 }, &initial, 0).unwrap();
    let (width, rows) = outcome.walks();
    assert_eq!(width, 3);
    assert_eq!(rows, vec![Some(0), Some(1), Some(2), Some(1), Some(2), None, Some(2), None, None]);
}

#[test]
fn cluster_gcn_keeps_exactly_the_induced_edges() {
    let csr = small();
    // Sample 0: {1, 2, 3}; sample 1: {3, 4, 5}.
    let initial = InitialSamples::groups(vec![0, 3, 6], vec![1, 2, 3, 3, 4, 5], 6).unwrap();
    let outcome = run_on(&csr, &ClusterGcn, &initial, 0).unwrap();
    let edges = |i: usize| {
        let s = outcome.sample(i);
        let mut e: Vec<(VertexId, VertexId)> = s.sources.iter().copied().zip(s.vertices.iter().copied()).collect();
        e.sort_unstable();
        e
    };
    assert_eq!(edges(0), vec![(1, 2), (2, 1), (2, 3), (3, 2)]);
    assert_eq!(edges(1), vec![(3, 4), (3, 5), (4, 3), (4, 5), (5, 3), (5, 4)]);
}

#[test]
fn subgraphs_relabel_hop_by_hop() {
    let csr = small();
    // Every neighbour of the transit (all neighbours, one hop then another).
    struct All;
    impl Sampler for All {
        fn steps(&self) -> u32 {
            2
        }
        fn sample_size(&self, _step: u32) -> u32 {
            ALL_NEIGHBOURS
        }
        fn next(&self, view: &SampleView<'_>, _s: u32, transit: VertexId, lane: u32, _step: u32) -> VertexId {
            view.edge(transit, lane as u64)
        }
    }
    let initial = InitialSamples::given(vec![0, 4], 6).unwrap();
    let outcome = run_on(&csr, &All, &initial, 0).unwrap();
    let batch = outcome.subgraphs().unwrap();
    // Hop 0: roots 0 (sample 0), 4 (sample 1). Hop 1: 1 (s0); 3, 5 (s1). Hop 2: 2 (s0; 0
    // is known), 2 (s1; 3 -> 2, then 4 and 5 known, 5 -> 3, 4 known).
    assert_eq!(batch.node, vec![0, 4, 1, 3, 5, 2, 2]);
    assert_eq!(batch.batch, vec![0, 1, 0, 1, 1, 0, 1]);
    assert_eq!(batch.num_sampled_nodes, vec![2, 3, 2]);
    // Edges, step 0: s0 1->0; s1 3->4, 5->4. Step 1: s0 from 1: 0, 2; s1 from 3: 2, 4, 5; from 5: 3, 4.
    assert_eq!(batch.num_sampled_edges, vec![3, 7]);
    let pairs: Vec<(u64, u64)> = batch.row.iter().copied().zip(batch.col.iter().copied()).collect();
    assert_eq!(pairs, vec![(2, 0), (3, 1), (4, 1), (0, 2), (5, 2), (6, 3), (1, 3), (4, 3), (3, 4), (1, 4)]);
}

/// A sampler whose `next` returns a vertex that is not a neighbour.
struct Teleport;
impl Sampler for Teleport {
    fn steps(&self) -> u32 {
        3
    }
    fn sample_size(&self, _step: u32) -> u32 {
        1
    }
    fn next(&self, view: &SampleView<'_>, _s: u32, transit: VertexId, _lane: u32, step: u32) -> VertexId {
        if step == 1 {
            (transit + 2) % view.num_vertices()
        } else {
            view.edge(transit, 0)
        }
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let csr = small();
    let initial = InitialSamples::every_vertex(6).unwrap();
    let message = |sampler: &dyn Sampler| run_on(&csr, sampler, &initial, 0).unwrap_err().to_string();

    let text = message(&Teleport);
    assert!(text.contains("sampler `Teleport`: `next` returned vertex"), "{text}");
    assert!(text.contains("not a neighbour of its transit"), "{text}");
    assert!(text.contains("sample 0, step 1"), "{text}");

    let text = message(&DeepWalk { length: 0 });
    assert!(text.contains("takes 0 steps"), "{text}");
    let text = message(&KHop { hops: 2, fanout_1: 3, fanout_2: 0, fanout_3: 0, fanout_4: 0, replace: true });
    assert!(text.contains("draws 0 vertices at step 1"), "{text}");
    let text = message(&Node2vec { length: 3, p: 0.0, q: 1.0 });
    assert!(text.contains("p must be a positive number (got 0)"), "{text}");
    let text = message(&Node2vec { length: 3, p: 1.0, q: -2.0 });
    assert!(text.contains("q must be a positive number (got -2)"), "{text}");
    let text = message(&Ppr { termination: 1.0, max_length: 3 });
    assert!(text.contains("strictly between 0 and 1"), "{text}");

    let text = InitialSamples::given(vec![0, 6], 6).unwrap_err().to_string();
    assert!(text.contains("root 6 is not a vertex of the graph (vertices 0..6)"), "{text}");
    let text = InitialSamples::every_vertex(0).unwrap_err().to_string();
    assert!(text.contains("the graph has no vertices"), "{text}");
    let text = InitialSamples::random(10, 1, 0, 1).unwrap_err().to_string();
    assert!(text.contains("the graph has no vertices"), "{text}");
    let no_edges = Csr::empty(4);
    let text = run_on(&no_edges, &DeepWalk { length: 3 }, &InitialSamples::every_vertex(4).unwrap(), 0)
        .unwrap_err()
        .to_string();
    assert!(text.contains("the graph has no edges"), "{text}");
    let negative = Csr::new(vec![0, 1, 2], vec![1, 0], Some(vec![1.0, -1.0])).unwrap();
    let text = SampleGraph::new(&negative).unwrap_err().to_string();
    assert!(text.contains("negative weight -1"), "{text}");
}

#[test]
fn unique_draws_stop_when_the_neighbourhood_is_exhausted() {
    // A hook that always returns the first neighbour: with `unique`, one vertex per transit,
    // and the engine gives up on the other draws instead of looping.
    struct First;
    impl Sampler for First {
        fn steps(&self) -> u32 {
            1
        }
        fn sample_size(&self, _step: u32) -> u32 {
            4
        }
        fn unique(&self, _step: u32) -> bool {
            true
        }
        fn next(&self, view: &SampleView<'_>, _s: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
            view.edge(transit, 0)
        }
    }
    let csr = small();
    let outcome = run_on(&csr, &First, &InitialSamples::every_vertex(6).unwrap(), 0).unwrap();
    assert_eq!(outcome.vertices, vec![1, 0, 1, 2, 3, 3]);
    // Uniform draws of 4 from a row of 3 take all 3.
    let outcome = run_on(
        &csr,
        &KHop { hops: 1, fanout_1: 4, fanout_2: 0, fanout_3: 0, fanout_4: 0, replace: false },
        &InitialSamples::given(vec![3], 6).unwrap(),
        0,
    )
    .unwrap();
    let mut drawn = outcome.vertices.clone();
    drawn.sort_unstable();
    assert_eq!(drawn, vec![2, 4, 5]);
}

/// A one-step collective sampler recording, for every entry `(transit, v)` it weighs,
/// `combined_count(v)` and the counts of the sample's roots (which no root's row holds
/// here), and drawing nothing.
struct CountProbe {
    seen: Mutex<BTreeMap<(u32, VertexId), u64>>,
}
impl Sampler for CountProbe {
    fn steps(&self) -> u32 {
        1
    }
    fn sample_size(&self, _step: u32) -> u32 {
        1
    }
    fn sampling(&self) -> u32 {
        COLLECTIVE
    }
    fn combined_weight(&self, view: &SampleView<'_>, sample: u32, _t: VertexId, v: VertexId, _step: u32) -> f64 {
        let mut seen = self.seen.lock().unwrap();
        seen.insert((sample, v), view.combined_count(v));
        for i in 0..view.root_count() {
            seen.insert((sample, view.root(i)), view.combined_count(view.root(i)));
        }
        1.0
    }
    fn next_entry(&self, _view: &SampleView<'_>, _s: u32, _lane: u32, _step: u32) -> u64 {
        NONE_ENTRY
    }
}

#[test]
fn combined_count_is_the_number_of_entries_holding_a_vertex() {
    let csr = small();
    // Sample 0: transits 1 and 3, entries 0, 2 | 2, 4, 5. Sample 1: transit 3 twice, entries
    // 2, 4, 5 | 2, 4, 5. Sample 2: transit 4, entries 3, 5.
    let initial = InitialSamples::groups(vec![0, 2, 4, 5], vec![1, 3, 3, 3, 4], 6).unwrap();
    let probe = CountProbe { seen: Mutex::new(BTreeMap::new()) };
    run_on(&csr, &probe, &initial, 0).unwrap();
    let expected: BTreeMap<(u32, VertexId), u64> = [
        ((0, 0), 1),
        ((0, 1), 0),
        ((0, 2), 2),
        ((0, 3), 0),
        ((0, 4), 1),
        ((0, 5), 1),
        ((1, 2), 2),
        ((1, 3), 0),
        ((1, 4), 2),
        ((1, 5), 2),
        ((2, 3), 1),
        ((2, 4), 0),
        ((2, 5), 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(probe.seen.into_inner().unwrap(), expected);
}

#[test]
fn collective_unique_draws_take_every_vertex_of_a_small_neighbourhood() {
    // Layer and LADIES draw 100 distinct vertices per layer from neighbourhoods of 1 and 2
    // distinct vertices: all of them, then the step ends (it must not loop).
    let csr = small();
    let initial = InitialSamples::groups(vec![0, 1, 3], vec![0, 3, 4], 6).unwrap();
    for sampler in [&Layer { layers: 2, size: 100 } as &dyn Sampler, &Ladies { layers: 2, size: 100 }] {
        let outcome = run_on(&csr, sampler, &initial, 5).unwrap();
        let layer = |i: usize, step: u32| {
            let s = outcome.sample(i);
            let mut v: Vec<VertexId> =
                s.vertices.iter().zip(s.steps.iter()).filter(|&(_, &t)| t == step).map(|(&v, _)| v).collect();
            v.sort_unstable();
            v
        };
        // Sample 0 from {0}: N(0) = {1}; then N(1) = {0, 2}.
        assert_eq!((layer(0, 0), layer(0, 1)), (vec![1], vec![0, 2]), "{}", sampler.name());
        // Sample 1 from {3, 4}: 2, 4, 5 | 3, 5 -> {2, 3, 4, 5}; then the rows of those four:
        // 1, 3 | 2, 4, 5 | 3, 5 | 3, 4 -> {1, 2, 3, 4, 5}.
        assert_eq!((layer(1, 0), layer(1, 1)), (vec![2, 3, 4, 5], vec![1, 2, 3, 4, 5]), "{}", sampler.name());
    }
}

#[test]
fn a_unique_draw_that_gives_up_ends_its_neighbourhood() {
    // A collective hook that always returns entry 0, 50 draws without replacement: the first
    // draw adds it, the second gives up after UNIQUE_ATTEMPTS * (distinct + 1) repeats, and
    // the other 48 are not made.
    struct FirstEntry {
        calls: AtomicU64,
    }
    impl Sampler for FirstEntry {
        fn steps(&self) -> u32 {
            1
        }
        fn sample_size(&self, _step: u32) -> u32 {
            50
        }
        fn sampling(&self) -> u32 {
            COLLECTIVE
        }
        fn unique(&self, _step: u32) -> bool {
            true
        }
        fn next_entry(&self, _view: &SampleView<'_>, _s: u32, _lane: u32, _step: u32) -> u64 {
            self.calls.fetch_add(1, Ordering::Relaxed);
            0
        }
    }
    let csr = small();
    let sampler = FirstEntry { calls: AtomicU64::new(0) };
    // Transit 3: entries 2, 4, 5 (3 distinct vertices).
    let outcome = run_on(&csr, &sampler, &InitialSamples::given(vec![3], 6).unwrap(), 0).unwrap();
    assert_eq!(outcome.vertices, vec![2]);
    assert_eq!(sampler.calls.load(Ordering::Relaxed), 1 + (UNIQUE_ATTEMPTS * (3 + 1) + 1));
}

#[test]
fn collective_hook_errors_name_the_hook_the_sample_and_the_step() {
    /// Entry `entry` at step 1, after a first step that draws entry 0; weight `weight` for
    /// every entry.
    struct Collective {
        entry: u64,
        weight: f64,
    }
    impl Sampler for Collective {
        fn steps(&self) -> u32 {
            2
        }
        fn sample_size(&self, _step: u32) -> u32 {
            1
        }
        fn sampling(&self) -> u32 {
            COLLECTIVE
        }
        fn combined_weight(&self, _view: &SampleView<'_>, _s: u32, _t: VertexId, _v: VertexId, _step: u32) -> f64 {
            self.weight
        }
        fn next_entry(&self, _view: &SampleView<'_>, _s: u32, _lane: u32, step: u32) -> u64 {
            if step == 0 {
                0
            } else {
                self.entry
            }
        }
    }
    let csr = small();
    let initial = InitialSamples::given(vec![2, 3], 6).unwrap();
    let message = |sampler: &dyn Sampler| run_on(&csr, sampler, &initial, 0).unwrap_err().to_string();
    // Sample 0 from 2: step 0 adds 1 (entry 0 of N(2) = 1, 3); N(1) = 0, 2 has 2 entries.
    let text = message(&Collective { entry: 2, weight: 1.0 });
    assert!(text.contains("sampler `Collective`: `next_entry` returned entry 2"), "{text}");
    assert!(text.contains("outside the combined neighbourhood of 2 entries (sample 0, step 1"), "{text}");
    for weight in [-1.0, f64::NAN, f64::INFINITY] {
        let text = message(&Collective { entry: 0, weight });
        assert!(text.contains("sampler `Collective`: `combined_weight` returned"), "{weight}: {text}");
        assert!(text.contains("the edge 2 -> 1; weights must be finite and non-negative"), "{weight}: {text}");
        assert!(text.contains("(sample 0, step 0, lane 0)"), "{weight}: {text}");
    }
}

#[test]
fn built_in_samplers_refuse_zero_steps_and_zero_draws() {
    let csr = small();
    let initial = InitialSamples::every_vertex(6).unwrap();
    let message = |sampler: &dyn Sampler| run_on(&csr, sampler, &initial, 0).unwrap_err().to_string();
    let zero_steps: [&dyn Sampler; 8] = [
        &WeightedDeepWalk { length: 0 },
        &Ppr { termination: 0.5, max_length: 0 },
        &Node2vec { length: 0, p: 1.0, q: 1.0 },
        &Layer { layers: 0, size: 4 },
        &FastGcn { layers: 0, size: 4 },
        &Ladies { layers: 0, size: 4 },
        &Mvs { hops: 0, fanout: 4 },
        &MultiRootWalk { length: 0 },
    ];
    for sampler in zero_steps {
        let text = message(sampler);
        assert!(text.contains(&format!("sampler `{}` takes 0 steps", sampler.name())), "{text}");
    }
    let zero_draws: [&dyn Sampler; 4] = [
        &KHop { hops: 1, fanout_1: 0, fanout_2: 0, fanout_3: 0, fanout_4: 0, replace: false },
        &Layer { layers: 2, size: 0 },
        &FastGcn { layers: 2, size: 0 },
        &Mvs { hops: 2, fanout: 0 },
    ];
    for sampler in zero_draws {
        let text = message(sampler);
        assert!(text.contains(&format!("sampler `{}` draws 0 vertices at step 0", sampler.name())), "{text}");
    }
    // p and q must be positive numbers: NaN and infinity too are refused.
    for (p, q, name) in [(f64::NAN, 1.0, "p"), (1.0, f64::INFINITY, "q"), (-0.5, 1.0, "p")] {
        let text = message(&Node2vec { length: 3, p, q });
        assert!(text.contains(&format!("node2vec: {name} must be a positive number")), "{text}");
    }
}
