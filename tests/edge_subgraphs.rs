//! Graphs beyond device memory on the CPU: WolfGraph's worked example (Table 1: SSSP on its
//! six-vertex graph cut into two subgraphs takes 3 outer iterations without the CEL and 2
//! with it, distances 0, 3, 12, 8, 15, 10), the local convergence schedule against the
//! in-memory CPU engine on random graphs cut into 2, 4 and 16 subgraphs with and without the
//! CEL, the CEL's pieces against their definition, and the refusals.

mod common;

use common::{assert_values_agree, value_scalars};
use glp::edge::subgraphs::{run_on_cpu, CarriedEdges, Pieces, SubgraphPlan};
use glp::edge::{self, CompiledEdgeProgram, EdgeConfig, EdgeGraph, BOTH, IN, OUT};
use glp::graph::{build_csr, BuildOptions, Csr, DuplicateEdges, EdgeList};
use glp::programs::{Bfs, PageRank, ProgramVisitor, Sssp, BUILT_IN};
use glp_testkit::rng::SplitMix;
use std::collections::HashSet;

fn csr_of(list: &EdgeList) -> Csr {
    let options = BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Keep };
    build_csr(list, &options).unwrap()
}

/// WolfGraph's Figure 9 in its edge order: subgraph 0 holds <2,3>, <2,1>, <0,2>, <1,3>,
/// <4,5>; subgraph 1 <0,1>, <2,4>, <3,4>, <3,5>. The paper prints every weight but <4,5>'s,
/// which the example's values leave free above -5: `w45`.
fn table_1_graph(w45: f32) -> EdgeList {
    let edges = [
        (2, 3, 1.0),
        (2, 1, 6.0),
        (0, 2, 12.0),
        (1, 3, 5.0),
        (4, 5, w45),
        (0, 1, 3.0),
        (2, 4, 6.0),
        (3, 4, 7.0),
        (3, 5, 2.0),
    ];
    EdgeList {
        num_vertices: 6,
        sources: edges.iter().map(|e| e.0).collect(),
        targets: edges.iter().map(|e| e.1).collect(),
        weights: Some(edges.iter().map(|e| e.2).collect()),
    }
}

#[test]
fn wolfgraphs_worked_example_takes_three_outer_iterations_without_the_cel_and_two_with_it() {
    for w45 in [0.0, 4.0, 100.0] {
        let list = table_1_graph(w45);
        let csr = csr_of(&list);
        let graph = EdgeGraph::new(&csr, false).unwrap();
        let carried = CarriedEdges::from_edge_list(&list, true, OUT).unwrap();
        let config = EdgeConfig { source: Some(0), iterations: None };
        // Changes per outer iteration, from the paper's Table 1 and its text: without the CEL,
        // subgraph 0 sets 2 then 1 and 3, subgraph 1 sets 1, 4, 5; then 3; then 4 and 5. With
        // it, subgraph 1's CEL (its edges and <1,3>, <4,5>) also sets 3, then 4 and 5 again.
        for (cel, outer, changes) in [(false, 3, vec![6, 3, 0]), (true, 2, vec![9, 0])] {
            let plan = SubgraphPlan::split(carried.len(), 2, cel).unwrap();
            assert_eq!(plan.subgraph_edges, 5, "Figure 9's cut");
            let mut reports = Vec::new();
            let run = run_on_cpu(&Sssp, &graph, &carried, plan, &config, &mut |r| reports.push(r.changed)).unwrap();
            let context = format!("cel {cel}, <4,5> weighing {w45}");
            assert_eq!(run.outcome.iterations, outer, "{context}");
            assert_eq!(reports, changes, "{context}");
            assert_eq!(run.outcome.values, vec![0.0, 3.0, 12.0, 8.0, 15.0, 10.0], "{context}");
            assert!(run.outcome.converged);
            // The CEL's pieces: subgraph 1 carries <1,3> and <4,5> (indices 3 and 4), as Figure 10.
            let mut pieces = Pieces::new(&carried, plan);
            assert_eq!(pieces.concatenated_indices(1).unwrap(), if cel { vec![3, 4] } else { vec![] }, "{context}");
        }
    }
}

/// `m` distinct random pairs of `n` vertices, weights in {0.25, ..., 4}; directed: each pair
/// one way; undirected: both.
fn random_graph(n: u32, m: usize, directed: bool, seed: u64) -> EdgeList {
    let mut rng = SplitMix(seed);
    let mut pairs = HashSet::new();
    let mut list = EdgeList { num_vertices: n as usize, weights: Some(Vec::new()), ..EdgeList::default() };
    while pairs.len() < m {
        let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        if a == b || !pairs.insert((a.min(b), a.max(b))) {
            continue;
        }
        let w = (1 + rng.below(16)) as f32 / 4.0;
        let mut push = |s, t| {
            list.sources.push(s);
            list.targets.push(t);
            list.weights.as_mut().unwrap().push(w);
        };
        if directed {
            push(a, b);
        } else {
            push(a, b);
            push(b, a);
        }
    }
    list
}

struct AgainstInMemory<'a> {
    csr: &'a Csr,
    symmetric: bool,
    list: &'a EdgeList,
    context: String,
}

impl ProgramVisitor for AgainstInMemory<'_> {
    type Output = ();
    fn visit<P: CompiledEdgeProgram>(self, program: &P) {
        let graph = EdgeGraph::new(self.csr, self.symmetric).unwrap();
        let config = EdgeConfig { source: Some(self.list.sources[0]), iterations: None };
        let in_memory = edge::run(program, &graph, &config, &mut |_| {}).unwrap();
        let orders = [
            ("the engines' order", CarriedEdges::pulled(&graph, program.direction(), program.combine()).unwrap()),
            ("file order", CarriedEdges::from_edge_list(self.list, program.weighted(), program.direction()).unwrap()),
        ];
        for (order, carried) in &orders {
            for count in [1, 2, 4, 16] {
                for cel in [false, true] {
                    let context = format!("{}, {order}, {count} subgraphs, cel {cel}", self.context);
                    let plan = SubgraphPlan::split(carried.len(), count, cel).unwrap();
                    let run = match run_on_cpu(program, &graph, carried, plan, &config, &mut |_| {}) {
                        Ok(run) => run,
                        Err(e) => {
                            assert!(!program.frontier() || program.iterations() != u32::MAX, "{context}: {e}");
                            assert!(e.to_string().contains("local convergence"), "{context}: {e}");
                            return;
                        }
                    };
                    assert_values_agree(
                        &context,
                        &value_scalars(&in_memory.values),
                        &value_scalars(&run.outcome.values),
                        false,
                    );
                    assert_eq!(run.subgraphs, count.min(carried.len()), "{context}");
                    if count == 1 {
                        assert_eq!(
                            run.outcome.iterations, 2,
                            "{context}: one subgraph converges in its first outer iteration"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn subgraphs_run_to_local_convergence_give_the_in_memory_values() {
    for (directed, seed) in [(true, 1), (false, 2), (true, 3)] {
        let list = random_graph(300, 700, directed, seed);
        let csr = csr_of(&list);
        for built_in in BUILT_IN {
            let context =
                format!("{} on a {} random graph", built_in.name, if directed { "directed" } else { "undirected" });
            built_in.program.visit(AgainstInMemory { csr: &csr, symmetric: !directed, list: &list, context });
        }
    }
}

/// A subgraph's CEL holds exactly the edges before it whose senders are its receivers, and
/// its pieces hold each of its own and concatenated edges once, within the plan's size.
#[test]
fn the_cel_holds_the_earlier_edges_its_receivers_send_along() {
    let list = random_graph(200, 900, true, 7);
    let carried = CarriedEdges::from_edge_list(&list, true, BOTH).unwrap();
    for count in [2, 3, 16] {
        let plan = SubgraphPlan::split(carried.len(), count, true).unwrap();
        // A small edge buffer: CELs are cut into several pieces.
        let plan = SubgraphPlan { piece_edges: plan.subgraph_edges + 7, ..plan };
        let mut pieces = Pieces::new(&carried, plan);
        for s in 0..pieces.subgraphs() {
            let own = (s * plan.subgraph_edges)..((s + 1) * plan.subgraph_edges).min(carried.len());
            let receivers: HashSet<u32> = own.clone().map(|i| carried.receivers()[i as usize]).collect();
            let expected: Vec<u64> =
                (0..own.start).filter(|&i| receivers.contains(&carried.senders()[i as usize])).collect();
            assert_eq!(pieces.concatenated_indices(s).unwrap(), expected, "{count} subgraphs, subgraph {s}");
            let (cel, got) = pieces.of_subgraph(s).unwrap();
            assert_eq!(cel, carried.subset(&expected), "{count} subgraphs, subgraph {s}");
            assert!(got.iter().all(|p| p.len() <= plan.piece_edges && !p.is_empty()), "{count} subgraphs, {s}");
            assert_eq!(got[0].own, own, "{count} subgraphs, {s}");
            // The pieces hold the own edges, then the CEL's, each once, in order.
            let held: Vec<_> = got.iter().flat_map(|p| p.edges(&carried, &cel).collect::<Vec<_>>()).collect();
            let listed: Vec<_> = own
                .clone()
                .chain(expected.iter().copied())
                .map(|i| (carried.senders()[i as usize], carried.receivers()[i as usize], carried.weight(i as usize)))
                .collect();
            assert_eq!(held, listed, "{count} subgraphs, subgraph {s}");
        }
    }
}

/// On a symmetric graph's edges in receiver order, a subgraph's CEL holds reverses of its own
/// edges, each an edge before the subgraph sent by one of its receivers (a part of
/// WolfGraph's CEL, found without the mapping array).
#[test]
fn a_symmetric_graphs_cel_holds_reverses_of_its_own_edges_from_before_it() {
    let list = random_graph(300, 2000, false, 9);
    let csr = csr_of(&list);
    let graph = EdgeGraph::new(&csr, true).unwrap();
    let carried = CarriedEdges::pulled(&graph, OUT, glp::edge::MIN).unwrap();
    assert!(carried.reversible());
    for count in [2, 5, 16] {
        let plan = SubgraphPlan::split(carried.len(), count, true).unwrap();
        let mut pieces = Pieces::new(&carried, plan);
        let mut total = 0;
        for s in 0..pieces.subgraphs() {
            let own = pieces.own(s);
            let receivers: HashSet<u32> = own.clone().map(|i| carried.receivers()[i as usize]).collect();
            let before: HashSet<(u32, u32)> = (0..own.start as usize)
                .filter(|&i| receivers.contains(&carried.senders()[i]))
                .map(|i| (carried.senders()[i], carried.receivers()[i]))
                .collect();
            let cel = pieces.concatenated(s).unwrap();
            for i in 0..cel.len() as usize {
                let edge = (cel.senders()[i], cel.receivers()[i]);
                assert!(before.contains(&edge), "{count} subgraphs, subgraph {s}: {edge:?} is not a CEL edge");
            }
            // Exactly the reverses of its own edges whose senders lie below its first receiver,
            // in order, with their weights.
            let first = carried.receivers()[own.start as usize];
            let reverses: Vec<(u32, u32, f64)> = own
                .clone()
                .map(|i| i as usize)
                .filter(|&i| carried.senders()[i] < first)
                .map(|i| (carried.receivers()[i], carried.senders()[i], carried.weight(i)))
                .collect();
            let got: Vec<(u32, u32, f64)> =
                (0..cel.len() as usize).map(|i| (cel.senders()[i], cel.receivers()[i], cel.weight(i))).collect();
            assert_eq!(got, reverses, "{count} subgraphs, subgraph {s}");
            total += cel.len();
        }
        assert!(total > 0, "{count} subgraphs: some subgraph concatenates edges");
    }
}

/// BFS depths from the iteration number (Ligra's rounds): right in memory, wrong if an outer
/// iteration stood for an iteration.
const DEPTH_BY_ITERATION: &str = r#"
struct Depth;
impl EdgeProgram for Depth {
    type Value = u32;
    type Message = u32;
    fn combine(&self) -> u32 { MIN }
    fn frontier(&self) -> bool { true }
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> u32 { if v == view.source() { 0 } else { u32::MAX } }
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: u32, weight: f64) -> (bool, u32) {
        (value != u32::MAX, view.iteration() + 1)
    }
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: u32, combined: u32) -> u32 { old.min(combined) }
}
"#;

#[test]
fn local_convergence_and_the_cel_are_refused_where_they_change_the_values() {
    let list = random_graph(50, 100, true, 4);
    let csr = csr_of(&list);
    let graph = EdgeGraph::new(&csr, false).unwrap();
    let carried = CarriedEdges::pulled(&graph, OUT, glp::edge::SUM).unwrap();
    let config = EdgeConfig { source: Some(0), iterations: None };
    let plan = SubgraphPlan::split(carried.len(), 2, true).unwrap();
    let e = run_on_cpu(&PageRank::default(), &graph, &carried, plan, &config, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("`PageRank`") && e.contains("CEL") && e.contains("sums its messages"), "{e}");
    let limited = EdgeConfig { iterations: Some(3), ..config };
    let e = run_on_cpu(&Bfs, &graph, &carried, plan, &limited, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("iteration limit"), "{e}");
    assert!(SubgraphPlan::split(10, 0, false).is_err());
    assert!(SubgraphPlan::split(10, 11, false).is_err(), "more subgraphs than edges");
    let many = SubgraphPlan { subgraph_edges: 1, piece_edges: 1, cel: false };
    assert!(many.checked(1 << 20).unwrap_err().to_string().contains("at most 65536"));
    // A program that reads the iteration: an outer iteration is not one.
    let counting =
        glp::edge::InterpretedEdgeProgram::from_source("depth.rs", DEPTH_BY_ITERATION, &[] as &[&str]).unwrap();
    let e = run_on_cpu(&counting, &graph, &carried, plan, &config, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("view.iteration()"), "{e}");
    assert!(CarriedEdges::from_edge_list(&list, false, IN + 5).is_err());
    let bad = EdgeList { num_vertices: 3, sources: vec![0, 5], targets: vec![1, 2], weights: None };
    let e = CarriedEdges::from_edge_list(&bad, false, OUT).unwrap_err().to_string();
    assert!(e.contains("5 -> 2"), "{e}");
}
