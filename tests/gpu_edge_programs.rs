//! The GPU's engines against the CPU engine (the reference, itself checked against
//! independent algorithms and LDBC's validation sets): the edge-centric engine and the
//! frontier engine (choosing push or pull per iteration, and always pushing or always
//! pulling), for every built-in program, natively compiled and from its source file, and
//! programs with tuple and bool values, on directed and undirected graphs with hubs whose rows
//! span many edge blocks, push chunks and pull warps, with receivers far apart (messages past
//! a block's shared-memory slots), and an R-MAT graph whose BFS turns from push to pull and
//! back; each with the device holding the vertices in the graph's order and by degree (hooks
//! must see the graph's ids either way). Min and max combines must give the CPU's values bit
//! for bit, sums the CPU's to rounding; every engine must run the CPU's iterations. Skipped without a GPU
//! (`GLP_REQUIRE_GPU=1` makes that a failure).

mod common;

use common::{assert_values_agree, degree_mix, gpu_or_skip, load, undirected, value_scalars, with_integer_weights};
use glp::device::Gpu;
use glp::edge::gpu::{DeviceEdgeGraph, Engine, VertexOrder};
use glp::edge::{self, CompiledEdgeProgram, EdgeConfig, EdgeGraph, InterpretedEdgeProgram, VertexValue, SUM};
use glp::graph::Csr;
use glp::programs::{ProgramVisitor, BUILT_IN};
use glp_codegen::ir::ScalarValue;

/// A test graph: its CSR (with weights), whether it is symmetric, its name.
struct Graph {
    name: &'static str,
    csr: Csr,
    symmetric: bool,
}

/// A star from vertex 0 to every 37th of 40,000 vertices, both ways, the rest isolated: an
/// edge block's receivers lie far apart, beyond its shared-memory slots (in the graph's order;
/// the degree order numbers the leaves side by side).
fn sparse_star() -> Csr {
    let n = 40_000u32;
    let leaves: Vec<u32> = (1..n).filter(|v| v % 37 == 0).collect();
    let mut offsets = vec![0u64, leaves.len() as u64];
    let mut targets = leaves.clone();
    for v in 1..n {
        if v % 37 == 0 {
            targets.push(0);
        }
        offsets.push(targets.len() as u64);
    }
    Csr::new(offsets, targets, None).unwrap()
}

/// A hub (vertex 1) with 998 leaves (2..=999) and, last in its sorted row, a bridge (1000)
/// from the source (0), all both ways: a BFS pull reaches the hub only past its row's first
/// chunk, which it pulls itself before listing the rest (and a later chunk settles it), in
/// the graph's order (the degree order puts the bridge, of degree 2, first in the row).
fn hub_reached_past_its_first_chunk() -> Csr {
    let mut edges = vec![(0, 1000), (1000, 1)];
    edges.extend((2..1000).map(|leaf| (1, leaf)));
    undirected(1001, &edges)
}

fn graphs() -> Vec<Graph> {
    vec![
        Graph {
            name: "email-Eu-core (undirected)",
            csr: with_integer_weights(&load("email-Eu-core.txt").csr),
            symmetric: true,
        },
        Graph {
            name: "directed, hubs of 3000 and 1500 out-edges",
            csr: with_integer_weights(&degree_mix(&[3000, 1500], &[1, 2, 5, 9, 0], 6000, 11, 50, 20)),
            symmetric: false,
        },
        Graph { name: "a sparse star", csr: with_integer_weights(&sparse_star()), symmetric: true },
        Graph {
            name: "a hub reached past its first chunk",
            csr: with_integer_weights(&hub_reached_past_its_first_chunk()),
            symmetric: true,
        },
        Graph { name: "R-MAT 13", csr: with_integer_weights(&rmat(13).csr), symmetric: true },
    ]
}

/// An R-MAT graph of Graph500's parameters (symmetric).
fn rmat(scale: u32) -> glp::graph::Graph {
    glp::gen::rmat(&glp::gen::RmatParams { scale, ..glp::gen::RmatParams::default() }).unwrap()
}

/// The engines a program runs on: every one, but pushing alone only with a frontier.
fn engines(frontier: bool) -> Vec<Engine> {
    let mut engines = vec![Engine::Edge, Engine::Frontier, Engine::Pull];
    if frontier {
        engines.push(Engine::Push);
    }
    engines
}

/// A run's values as their scalars per vertex, with its iterations and whether it converged.
#[derive(Debug)]
struct Values {
    scalars: Vec<Vec<ScalarValue>>,
    iterations: u32,
    converged: bool,
}

fn values<V: VertexValue>(outcome: edge::EdgeOutcome<V>) -> Values {
    Values { scalars: value_scalars(&outcome.values), iterations: outcome.iterations, converged: outcome.converged }
}

/// Asserts the GPU's values are the CPU's: bit for bit, or within 1e-9 relative for sums.
fn assert_same(context: &str, cpu: &Values, gpu: &Values, sums: bool) {
    assert_eq!((gpu.iterations, gpu.converged), (cpu.iterations, cpu.converged), "{context}: iterations");
    assert_values_agree(context, &cpu.scalars, &gpu.scalars, sums);
}

/// Runs a program on both engines and compares them.
struct OnBoth<'a> {
    gpu: &'a Gpu,
    graph: &'a Graph,
    context: String,
}

impl ProgramVisitor for OnBoth<'_> {
    type Output = ();
    fn visit<P: CompiledEdgeProgram>(self, program: &P) {
        compare(self.gpu, self.graph, &self.context, program);
        let twin = InterpretedEdgeProgram::of_compiled(program).unwrap();
        compare(self.gpu, self.graph, &format!("{}, from its source", self.context), &twin);
    }
}

fn compare<P: CompiledEdgeProgram + ?Sized>(gpu: &Gpu, graph: &Graph, context: &str, program: &P) {
    let edges = EdgeGraph::new(&graph.csr, graph.symmetric).unwrap();
    let config = EdgeConfig { source: Some(0), iterations: None };
    let mut cpu_reports = Vec::new();
    let cpu = edge::run(program, &edges, &config, &mut |r| cpu_reports.push(r.changed));
    let cpu = values(cpu.unwrap_or_else(|e| panic!("{context}: {e}")));
    for order in [VertexOrder::Graph, VertexOrder::Degree] {
        let device = DeviceEdgeGraph::upload(gpu, &edges, program.direction(), Engine::Auto, order).unwrap();
        assert_eq!(device.by_degree(), order == VertexOrder::Degree, "{context}");
        for engine in engines(program.frontier()) {
            let context = format!("{context}, {engine:?} engine, {order:?} order");
            let mut reports = Vec::new();
            let on_gpu =
                edge::gpu::run_on(gpu, program, &edges, &device, &config, engine, &mut |r| reports.push(r.changed))
                    .unwrap_or_else(|e| panic!("{context}: {e}"))
                    .0;
            let on_gpu = values(on_gpu);
            assert_eq!(reports.len() as u32, on_gpu.iterations, "{context}: one report an iteration");
            assert_same(&context, &cpu, &on_gpu, program.combine() == SUM);
            if program.combine() != SUM {
                assert_eq!(reports, cpu_reports, "{context}: vertices changed per iteration");
            }
        }
    }
}

#[test]
fn every_built_in_program_gives_the_cpus_values_on_the_gpu() {
    let Some(gpu) = gpu_or_skip("every_built_in_program_gives_the_cpus_values_on_the_gpu") else { return };
    for graph in graphs() {
        for built_in in BUILT_IN {
            let context = format!("{} on {}", built_in.name, graph.name);
            built_in.program.visit(OnBoth { gpu: &gpu, graph: &graph, context });
        }
    }
}

/// A program with a tuple value (hops and whether the vertex is reached) and an integer
/// message, from source: the GPU's `glp_edge_value` struct decoded as the CPU's tuple.
const REACH: &str = r#"
struct Reach { most: u32 }
impl EdgeProgram for Reach {
    type Value = (u32, bool);
    type Message = u32;
    fn combine(&self) -> u32 { MIN }
    fn frontier(&self) -> bool { true }
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> (u32, bool) {
        if v == view.source() { (0, true) } else { (u32::MAX, false) }
    }
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: (u32, bool), weight: f64) -> (bool, u32) {
        (value.1 && value.0 < self.most, value.0 + 1)
    }
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: (u32, bool), combined: u32) -> (u32, bool) {
        if combined < old.0 { (combined, true) } else { old }
    }
}
"#;

#[test]
fn a_program_with_a_tuple_value_gives_the_cpus_values_on_the_gpu() {
    let Some(gpu) = gpu_or_skip("a_program_with_a_tuple_value_gives_the_cpus_values_on_the_gpu") else { return };
    let program = InterpretedEdgeProgram::from_source("reach.rs", REACH, &["most=3"]).unwrap();
    for graph in graphs() {
        compare(&gpu, &graph, &format!("reach.rs on {}", graph.name), &program);
    }
}

/// Values carried against the edges (`IN`: the out-edge arrays), a `bool` value (one byte in
/// C: the host decodes it at its C offset) and a tuple led by a `bool`: the CPU's values.
const AGAINST: &str = r#"
struct Against;
impl EdgeProgram for Against {
    type Value = (bool, u32);
    type Message = u32;
    fn combine(&self) -> u32 { MAX }
    fn direction(&self) -> u32 { IN }
    fn frontier(&self) -> bool { true }
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> (bool, u32) { (v == view.source(), v % 7) }
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: (bool, u32), weight: f64) -> (bool, u32) {
        (value.0, value.1 + 1)
    }
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: (bool, u32), combined: u32) -> (bool, u32) {
        if combined > old.1 && combined < 60 { (true, combined) } else { old }
    }
}
"#;

const REACHED: &str = r#"
struct Reached;
impl EdgeProgram for Reached {
    type Value = bool;
    type Message = u32;
    fn combine(&self) -> u32 { MAX }
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> bool { v == view.source() }
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: bool, weight: f64) -> (bool, u32) {
        (value, 1)
    }
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: bool, combined: u32) -> bool { old || combined == 1 }
}
"#;

#[test]
fn values_carried_against_the_edges_and_bool_values_are_the_cpus_on_the_gpu() {
    let Some(gpu) = gpu_or_skip("values_carried_against_the_edges_and_bool_values_are_the_cpus_on_the_gpu") else {
        return;
    };
    let no_params: [&str; 0] = [];
    for (file, source) in [("against.rs", AGAINST), ("reached.rs", REACHED)] {
        let program = InterpretedEdgeProgram::from_source(file, source, &no_params).unwrap();
        for graph in graphs() {
            compare(&gpu, &graph, &format!("{file} on {}", graph.name), &program);
        }
    }
}

/// An `edge` hook whose loop never ends: the GPU stops with the CPU's loop budget error, naming
/// the loop's line, whichever kernel the hook ran in.
#[test]
fn a_hook_whose_loop_runs_out_fails_on_the_gpu_as_on_the_cpu() {
    let Some(gpu) = gpu_or_skip("a_hook_whose_loop_runs_out_fails_on_the_gpu_as_on_the_cpu") else { return };
    let spin =
        REACHED.replace("(value, 1)", "let mut k = 1u32;\n        while k > 0 { k = k + 2; }\n        (value, k)");
    let no_params: [&str; 0] = [];
    let program = InterpretedEdgeProgram::from_source("spin.rs", &spin, &no_params).unwrap();
    let graph = &graphs()[0];
    let edges = EdgeGraph::new(&graph.csr, graph.symmetric).unwrap();
    let config = EdgeConfig { source: Some(0), iterations: None };
    let cpu = edge::run(&program, &edges, &config, &mut |_| {}).unwrap_err().to_string();
    assert!(cpu.contains("spin.rs:10:"), "{cpu}");
    for engine in engines(false) {
        for order in [VertexOrder::Graph, VertexOrder::Degree] {
            let on_gpu =
                edge::gpu::run(&gpu, &program, &edges, &config, (engine, order), &mut |_| {}).unwrap_err().to_string();
            assert!(on_gpu.contains("spin.rs:10:"), "{engine:?}, {order:?}: {on_gpu}");
            assert!(on_gpu.contains("in `edge`"), "{engine:?}, {order:?}: {on_gpu}");
        }
    }
}
