//! Edge programs on the CPU engine: every built-in program against an independent reference
//! written here (a queue for BFS, Dijkstra for SSSP, a widest-path Dijkstra for SSWP,
//! union-find for WCC, a push-style PageRank), the interpreter against native Rust (every
//! built-in's source file compiled at run time, as `glp run FILE.rs` does, must give
//! bit-identical values), and values independent of the thread count.

mod common;

use common::pool;
use glp::edge::{self, CompiledEdgeProgram, EdgeConfig, EdgeGraph, EdgeProgram, InterpretedEdgeProgram, VertexValue};
use glp::graph::{build_csr, BuildOptions, Csr, DuplicateEdges, EdgeList};
use glp::programs::{Bfs, PageRank, ProgramVisitor, Sssp, Sswp, Wcc, BUILT_IN};
use glp_testkit::conformance::{assert_twins, Kind, Runs};
use glp_testkit::rng::SplitMix;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

/// A test graph: its edges as the reference reads them and the CSR the engine reads.
struct Graph {
    name: String,
    n: usize,
    /// `(source, target, weight)`, each stored edge once (both directions when undirected).
    edges: Vec<(u32, u32, f64)>,
    csr: Csr,
    symmetric: bool,
    /// The source of the programs that read one: a vertex with an out-edge.
    source: u32,
}

/// `m` distinct random pairs of `n` vertices without self loops, weights in {0.25, ..., 4}
/// (exact in f32); directed: each pair one way, drawn; undirected: both ways.
fn random_graph(n: u32, m: usize, directed: bool, seed: u64) -> Graph {
    let mut rng = SplitMix(seed);
    let mut pairs = HashSet::new();
    let mut edges = Vec::new();
    while pairs.len() < m {
        let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        if a == b || !pairs.insert((a.min(b), a.max(b))) {
            continue;
        }
        let w = (1 + rng.below(16)) as f64 / 4.0;
        if directed {
            let (s, t) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
            edges.push((s, t, w));
        } else {
            edges.push((a, b, w));
            edges.push((b, a, w));
        }
    }
    let list = EdgeList {
        num_vertices: n as usize,
        sources: edges.iter().map(|e| e.0).collect(),
        targets: edges.iter().map(|e| e.1).collect(),
        weights: Some(edges.iter().map(|e| e.2 as f32).collect()),
    };
    let options = BuildOptions { symmetrise: false, drop_self_loops: true, duplicates: DuplicateEdges::Keep };
    let csr = build_csr(&list, &options).unwrap();
    let name =
        format!("{} random graph, {n} vertices, {m} pairs", if directed { "a directed" } else { "an undirected" });
    let source = edges[0].0;
    Graph { name, n: n as usize, edges, csr, symmetric: !directed, source }
}

fn graphs() -> Vec<Graph> {
    vec![random_graph(400, 900, true, 1), random_graph(400, 700, false, 2), random_graph(60, 40, true, 3)]
}

/// A program's values as the bits of their scalars, per vertex, with the iterations run.
#[derive(Debug, PartialEq)]
struct Values {
    bits: Vec<Vec<u64>>,
    iterations: u32,
    converged: bool,
}

fn values<V: VertexValue>(outcome: edge::EdgeOutcome<V>) -> Values {
    let bits = outcome
        .values
        .iter()
        .map(|&v| {
            let mut scalars = Vec::new();
            v.for_each_scalar(&mut |s| scalars.push(s.to_bits().1));
            scalars
        })
        .collect();
    Values { bits, iterations: outcome.iterations, converged: outcome.converged }
}

/// Runs `program` on `graph` from its source (for the programs that read one) on
/// `threads` threads.
fn run<P: CompiledEdgeProgram + ?Sized>(program: &P, graph: &Graph, threads: usize) -> edge::EdgeOutcome<P::Value> {
    let edges = EdgeGraph::new(&graph.csr, graph.symmetric).unwrap();
    let source = program.features().contains(&"source").then_some(graph.source);
    let config = EdgeConfig { source, iterations: None };
    pool(threads)
        .install(|| edge::run(program, &edges, &config, &mut |_| {}))
        .unwrap_or_else(|e| panic!("{} on {}: {e}", program.name(), graph.name))
}

struct Edges;

impl Kind for Edges {
    type Input = Graph;
    type Run = usize;
    type Output = Values;

    fn input_name(&self, graph: &Graph) -> String {
        graph.name.clone()
    }

    fn run_name(&self, threads: &usize) -> String {
        format!("{threads} thread(s)")
    }
}

impl<P: CompiledEdgeProgram + ?Sized> Runs<P> for Edges {
    fn run(&self, program: &P, graph: &Graph, threads: &usize) -> Values {
        values(run(program, graph, *threads))
    }
}

/// Compares a native program with its source compiled at run time.
struct Twins<'a> {
    graphs: &'a [&'a Graph],
    source: (&'static str, &'static str),
}

impl ProgramVisitor for Twins<'_> {
    type Output = usize;
    fn visit<P: CompiledEdgeProgram>(self, native: &P) -> usize {
        let (file, text) = self.source;
        let params: Vec<String> =
            native.param_decls().iter().zip(native.param_values()).map(|(d, v)| format!("{}={v}", d.name)).collect();
        let interpreted = InterpretedEdgeProgram::from_source(file, text, &params).unwrap();
        assert_twins(&Edges, self.graphs, &[1, 2, 3], file, native, &interpreted)
    }
}

#[test]
fn every_built_in_program_gives_the_same_values_natively_and_on_the_interpreter() {
    let graphs = graphs();
    let graphs: Vec<&Graph> = graphs.iter().collect();
    let mut compared = 0;
    for built in &BUILT_IN {
        compared += built.program.visit(Twins { graphs: &graphs, source: built.source });
    }
    assert_eq!(compared, BUILT_IN.len() * graphs.len() * 3);
}

/// Compares a program's values on 1 thread with those on more.
struct ThreadCounts<'a>(&'a Graph);

impl ProgramVisitor for ThreadCounts<'_> {
    type Output = ();
    fn visit<P: CompiledEdgeProgram>(self, program: &P) {
        let one = values(run(program, self.0, 1));
        for threads in [2, 4, 7] {
            assert_eq!(
                values(run(program, self.0, threads)),
                one,
                "{} on {}, {threads} threads",
                program.name(),
                self.0.name
            );
        }
    }
}

#[test]
fn values_do_not_depend_on_the_thread_count() {
    // PageRank's sums included: a larger graph, so that the aggregate sum spans blocks.
    let large = random_graph(20_000, 60_000, true, 4);
    for graph in graphs().iter().chain([&large]) {
        for built in &BUILT_IN {
            built.program.visit(ThreadCounts(graph));
        }
    }
}

/// Out-neighbours with weights, from the edge list.
fn adjacency(graph: &Graph, reverse: bool) -> Vec<Vec<(usize, f64)>> {
    let mut adjacency = vec![Vec::new(); graph.n];
    for &(s, t, w) in &graph.edges {
        let (s, t) = if reverse { (t, s) } else { (s, t) };
        adjacency[s as usize].push((t as usize, w));
    }
    adjacency
}

#[test]
fn bfs_gives_the_depths_a_queue_gives() {
    for graph in graphs() {
        let depth = queue_depths(&adjacency(&graph, false), graph.source as usize);
        assert!(depth.iter().filter(|&&d| d != i64::MAX).count() > 1, "{}: nothing reached", graph.name);
        assert_eq!(run(&Bfs, &graph, 2).values, depth, "{}", graph.name);
    }
}

/// Breadth-first depths from `source` over `adjacency` (`i64::MAX`: unreached).
fn queue_depths(adjacency: &[Vec<(usize, f64)>], source: usize) -> Vec<i64> {
    let mut depth = vec![i64::MAX; adjacency.len()];
    depth[source] = 0;
    let mut queue = std::collections::VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for &(v, _) in &adjacency[u] {
            if depth[v] == i64::MAX {
                depth[v] = depth[u] + 1;
                queue.push_back(v);
            }
        }
    }
    depth
}

#[test]
fn edges_carry_their_targets_values_for_in() {
    // BFS along reversed edges: each vertex's depth is its distance *to* the source.
    let source = BUILT_IN[0].source.1.replace(
        "fn frontier(&self) -> bool {",
        "fn direction(&self) -> u32 {\n        IN\n    }\n\n    fn frontier(&self) -> bool {",
    );
    assert!(source.contains("IN\n"), "the BFS source changed: {source}");
    let program = InterpretedEdgeProgram::from_source("reverse_bfs.rs", &source, &[] as &[String]).unwrap();
    let mut reached = 0;
    for graph in graphs().iter().filter(|g| !g.symmetric) {
        let adjacency = adjacency(graph, true);
        let want = queue_depths(&adjacency, graph.source as usize);
        let got: Vec<i64> = run(&program, graph, 2).values.iter().map(|v| v.as_i64().unwrap()).collect();
        assert_eq!(got, want, "{}", graph.name);
        reached += got.iter().filter(|&&d| d != i64::MAX).count();
    }
    assert!(reached > 10, "the vertices reaching the sources: {reached}");
}

/// A heap entry ordered by `key` (`f64`, no NaN), smallest first when `min`.
#[derive(PartialEq)]
struct Entry {
    key: f64,
    vertex: usize,
    min: bool,
}

impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        let order = self.key.partial_cmp(&other.key).unwrap();
        if self.min {
            order.reverse()
        } else {
            order
        }
    }
}

/// Dijkstra from the graph's source: smallest sums (`widest` false) or largest bottlenecks (`widest` true).
fn dijkstra(graph: &Graph, widest: bool) -> Vec<f64> {
    let adjacency = adjacency(graph, false);
    let unreached = if widest { f64::NEG_INFINITY } else { f64::INFINITY };
    let source = graph.source as usize;
    let mut best = vec![unreached; graph.n];
    best[source] = if widest { f64::INFINITY } else { 0.0 };
    let mut heap = BinaryHeap::from([Entry { key: best[source], vertex: source, min: !widest }]);
    while let Some(Entry { key, vertex: u, .. }) = heap.pop() {
        if key != best[u] {
            continue;
        }
        for &(v, w) in &adjacency[u] {
            let through = if widest { key.min(w) } else { key + w };
            let better = if widest { through > best[v] } else { through < best[v] };
            if better {
                best[v] = through;
                heap.push(Entry { key: through, vertex: v, min: !widest });
            }
        }
    }
    best
}

#[test]
fn sssp_gives_the_distances_dijkstra_gives() {
    for graph in graphs() {
        let want = dijkstra(&graph, false);
        let got = run(&Sssp, &graph, 2).values;
        for (v, (&g, &w)) in got.iter().zip(&want).enumerate() {
            // Sums of quarters: exact in either order.
            assert_eq!(g, w, "{}: vertex {v}", graph.name);
        }
    }
}

#[test]
fn sswp_gives_the_widths_a_widest_path_dijkstra_gives() {
    for graph in graphs() {
        assert_eq!(run(&Sswp, &graph, 2).values, dijkstra(&graph, true), "{}", graph.name);
    }
}

#[test]
fn wcc_gives_the_components_union_find_gives() {
    for graph in graphs() {
        let mut parent: Vec<usize> = (0..graph.n).collect();
        fn find(parent: &mut [usize], v: usize) -> usize {
            let mut root = v;
            while parent[root] != root {
                root = parent[root];
            }
            parent[v] = root;
            root
        }
        for &(s, t, _) in &graph.edges {
            let (a, b) = (find(&mut parent, s as usize), find(&mut parent, t as usize));
            parent[a.max(b)] = a.min(b);
        }
        // The smallest vertex of each component.
        let want: Vec<u32> = (0..graph.n).map(|v| find(&mut parent, v) as u32).collect();
        let got = run(&Wcc, &graph, 2).values;
        let components = want.iter().collect::<HashSet<_>>().len();
        assert!(components > 1 && components < graph.n, "{}: {components} components test little", graph.name);
        assert_eq!(got, want, "{}", graph.name);
    }
}

#[test]
fn pagerank_gives_the_ranks_of_a_push_style_iteration() {
    for graph in graphs() {
        let pr = PageRank { damping: 0.85, iterations: 15 };
        let adjacency = adjacency(&graph, false);
        let n = graph.n as f64;
        let mut rank = vec![1.0 / n; graph.n];
        for _ in 0..pr.iterations {
            let sinks: f64 = (0..graph.n).filter(|&u| adjacency[u].is_empty()).map(|u| rank[u]).sum();
            let mut next = vec![(1.0 - pr.damping) / n + pr.damping * sinks / n; graph.n];
            for (u, out) in adjacency.iter().enumerate() {
                for &(v, _) in out {
                    next[v] += pr.damping * rank[u] / out.len() as f64;
                }
            }
            rank = next;
        }
        let outcome = run(&pr, &graph, 2);
        assert_eq!(outcome.iterations, pr.iterations, "{}", graph.name);
        for (v, (&g, &w)) in outcome.values.iter().zip(&rank).enumerate() {
            assert!((g - w).abs() <= 1e-12 * w, "{}: vertex {v}: {g} against {w}", graph.name);
        }
        assert!((outcome.values.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{}: ranks sum to 1", graph.name);
    }
}

#[test]
fn a_run_refuses_what_the_program_cannot_run_on() {
    let graph = random_graph(50, 60, true, 5);
    let unweighted = Csr::new(graph.csr.offsets().to_vec(), graph.csr.targets().to_vec(), None).unwrap();
    let edges = EdgeGraph::new(&unweighted, false).unwrap();
    let config = EdgeConfig { source: Some(0), iterations: None };
    let err = edge::run(&Sssp, &edges, &config, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("`Sssp` reads edge weights, and the graph has none"), "{err}");
    let config = EdgeConfig { source: Some(50), iterations: None };
    let err = edge::run(&Bfs, &edges, &config, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("source vertex 50 is not a vertex of the graph (50 vertices)"), "{err}");
}

#[test]
fn the_combines_idempotence_is_recorded() {
    // Min and max may see a message twice (CEL re-applies edges); a sum may not.
    assert!(edge::is_idempotent(Bfs.combine()) && edge::is_idempotent(Sswp.combine()));
    assert!(!edge::is_idempotent(PageRank::default().combine()));
}

/// A program whose `apply` would change every vertex it is called for: with a frontier, only
/// the vertices messages reach are applied, the others keep their value (a halted vertex).
const COUNTER: &str = r#"
struct Counter;
impl EdgeProgram for Counter {
    type Value = u32;
    type Message = u32;
    fn combine(&self) -> u32 { SUM }
    fn frontier(&self) -> bool { true }
    fn iterations(&self) -> u32 { 5 }
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> u32 { 0 }
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: u32, weight: f64) -> (bool, u32) {
        (view.iteration() == 0, 1)
    }
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: u32, combined: u32) -> u32 { old + combined + 1 }
}
"#;

#[test]
fn with_a_frontier_a_vertex_without_messages_keeps_its_value() {
    // 0 -> 1, 0 -> 2, 2 -> 1; vertex 3 has no edge.
    let csr = Csr::new(vec![0, 2, 2, 3, 3], vec![1, 2, 1], None).unwrap();
    let graph = EdgeGraph::new(&csr, false).unwrap();
    let no_params: [&str; 0] = [];
    let program = InterpretedEdgeProgram::from_source("counter.rs", COUNTER, &no_params).unwrap();
    let mut changed = Vec::new();
    let outcome = edge::run(&program, &graph, &EdgeConfig::default(), &mut |r| changed.push(r.changed)).unwrap();
    // Iteration 0: 1 takes two messages (2 + 1), 2 one (1 + 1); 0 and 3 none. Iteration 1:
    // nothing is sent, nothing applied.
    let outcome = values(outcome);
    assert_eq!(outcome.bits, [[0], [3], [2], [0]]);
    assert_eq!((outcome.iterations, outcome.converged, changed), (2, true, vec![2, 0]));
}
