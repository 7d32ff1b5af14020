//! The sampling engine's contract: results independent of the thread count, outputs in the
//! documented shapes, and every bad input a clear error.

mod common;

use glp::graph::{Csr, VertexId};
use glp::sample::{
    self, InitialSamples, SampleConfig, SampleGraph, SampleOutcome, SampleView, Sampler, ALL_NEIGHBOURS,
};
use glp::samplers::{
    ClusterGcn, DeepWalk, FastGcn, KHop, Ladies, Layer, MultiRootWalk, Mvs, Node2vec, Ppr, WeightedDeepWalk,
};

fn run_on(csr: &Csr, sampler: &dyn Sampler, initial: &InitialSamples, seed: u64) -> glp::Result<SampleOutcome> {
    let graph = SampleGraph::new(csr)?;
    sample::run(&graph, sampler, initial, &SampleConfig { seed })
}

/// A small graph: a path 0 - 1 - 2 - 3 and a triangle 3 - 4 - 5.
fn small() -> Csr {
    let rows: [&[u32]; 6] = [&[1], &[0, 2], &[1, 3], &[2, 4, 5], &[3, 5], &[3, 4]];
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for row in rows {
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
            assert_eq!(outcomes[0].sources, other.sources, "{} with {} threads", sampler.name(), i + 2);
            assert_eq!(outcomes[0].steps, other.steps, "{} with {} threads", sampler.name(), i + 2);
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
    let batch = outcome.subgraphs();
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
