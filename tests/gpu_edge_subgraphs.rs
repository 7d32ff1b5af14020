//! Graphs beyond device memory on the GPU: every built-in program, natively and from its
//! source, on graphs cut into 2, 4 and 16 subgraphs with and without the CEL (where the
//! program allows it), and under device memory budgets that cut them, against the CPU's
//! in-memory engine (min and max bit for bit, sums within 1e-9) and, for local convergence,
//! against the CPU's run of the same subgraphs (the same outer iterations and changes per
//! outer iteration); WolfGraph's worked example (Table 1) on the GPU. Skipped without a GPU
//! (`GLP_REQUIRE_GPU=1` makes that a failure).

mod common;

use common::{assert_values_agree, degree_mix, gpu_or_skip, load, value_scalars, with_integer_weights};
use glp::device::Gpu;
use glp::edge::gpu::{run_on_edges, run_on_subgraphs, SubgraphOptions};
use glp::edge::subgraphs::{run_on_cpu, CarriedEdges, Mode};
use glp::edge::{self, CompiledEdgeProgram, EdgeConfig, EdgeGraph, InterpretedEdgeProgram, OUT, SUM};
use glp::graph::{build_csr, BuildOptions, Csr, DuplicateEdges, EdgeList};
use glp::programs::{ProgramVisitor, Sssp, BUILT_IN};
use glp_codegen::interp::Value;
use glp_codegen::ir::ScalarValue;

struct Graph {
    name: &'static str,
    csr: Csr,
    symmetric: bool,
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
    ]
}

struct OnSubgraphs<'a> {
    gpu: &'a Gpu,
    graph: &'a Graph,
    context: String,
}

impl ProgramVisitor for OnSubgraphs<'_> {
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
    let mut in_memory_reports = Vec::new();
    let in_memory = edge::run(program, &edges, &config, &mut |r| in_memory_reports.push(r.changed)).unwrap();
    let expected = value_scalars(&in_memory.values);
    let sums = program.combine() == SUM;
    let carried = CarriedEdges::pulled(&edges, program.direction(), program.combine()).unwrap();
    let mut options: Vec<SubgraphOptions> = Vec::new();
    for count in [2, 4, 16] {
        for cel in [None, Some(false)] {
            options.push(SubgraphOptions { subgraphs: Some(count), cel, device_memory: None });
        }
    }
    // Budgets that cut the graph by memory: room for about a third and a tenth of its edges.
    let state = graph.csr.num_vertices() as u64 * 64;
    for share in [3, 10] {
        let budget = (state + 2 * carried.len() * carried.edge_bytes() / share) * 16 / 15;
        options.push(SubgraphOptions { device_memory: Some(budget), ..SubgraphOptions::default() });
    }
    for option in options {
        let context = format!("{context}, {option:?}");
        let mut reports = Vec::new();
        let (run, times) = run_on_subgraphs(gpu, program, &edges, &config, &option, &mut |r| reports.push(r.changed))
            .unwrap_or_else(|e| panic!("{context}: {e}"));
        assert_values_agree(&context, &expected, &value_scalars(&run.outcome.values), sums);
        assert_eq!(reports.len() as u32, run.outcome.iterations, "{context}: a report an outer iteration");
        assert_eq!(run.outcome.converged, in_memory.converged, "{context}: converged");
        assert!(times.bytes_copied >= carried.len() * 8, "{context}: {times:?}");
        if option.device_memory.is_some() {
            assert!(run.subgraphs >= 2, "{context}: the budget cuts the graph ({} subgraphs)", run.subgraphs);
        }
        match run.mode {
            Mode::Streamed => {
                assert_eq!(run.outcome.iterations, in_memory.iterations, "{context}: streamed iterations");
                if !sums {
                    assert_eq!(reports, in_memory_reports, "{context}: changes per iteration");
                }
            }
            Mode::LocalConvergence => {
                let mut cpu_reports = Vec::new();
                let cpu =
                    run_on_cpu(program, &edges, &carried, run.plan, &config, &mut |r| cpu_reports.push(r.changed))
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                assert_eq!(reports, cpu_reports, "{context}: changes per outer iteration, as the CPU's subgraphs");
                assert_eq!(run.local_iterations, cpu.local_iterations, "{context}: local iterations");
                assert_eq!(run.pieces, cpu.pieces, "{context}: pieces");
            }
        }
    }
    // The CEL for a program it would give other values is refused.
    if program.combine() == SUM || !program.frontier() {
        let option = SubgraphOptions { subgraphs: Some(2), cel: Some(true), device_memory: None };
        let e = run_on_subgraphs(gpu, program, &edges, &config, &option, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("CEL"), "{context}: {e}");
    }
}

#[test]
fn every_built_in_program_on_subgraphs_gives_the_in_memory_values_on_the_gpu() {
    let Some(gpu) = gpu_or_skip("every_built_in_program_on_subgraphs_gives_the_in_memory_values_on_the_gpu") else {
        return;
    };
    for graph in graphs() {
        for built_in in BUILT_IN {
            let context = format!("{} on {}", built_in.name, graph.name);
            built_in.program.visit(OnSubgraphs { gpu: &gpu, graph: &graph, context });
        }
    }
}

#[test]
fn wolfgraphs_worked_example_runs_on_the_gpu_as_in_the_paper() {
    let Some(gpu) = gpu_or_skip("wolfgraphs_worked_example_runs_on_the_gpu_as_in_the_paper") else { return };
    // Figure 9's edges in its order (the paper prints no weight for <4,5>: any >= 0 serves).
    let edges = [
        (2, 3, 1.0),
        (2, 1, 6.0),
        (0, 2, 12.0),
        (1, 3, 5.0),
        (4, 5, 4.0),
        (0, 1, 3.0),
        (2, 4, 6.0),
        (3, 4, 7.0),
        (3, 5, 2.0),
    ];
    let list = EdgeList {
        num_vertices: 6,
        sources: edges.iter().map(|e| e.0).collect(),
        targets: edges.iter().map(|e| e.1).collect(),
        weights: Some(edges.iter().map(|e| e.2).collect()),
    };
    let options = BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Keep };
    let csr = build_csr(&list, &options).unwrap();
    let graph = EdgeGraph::new(&csr, false).unwrap();
    let carried = CarriedEdges::from_edge_list(&list, true, OUT).unwrap();
    let config = EdgeConfig { source: Some(0), iterations: None };
    for (cel, outer, changes) in [(false, 3, vec![6, 3, 0]), (true, 2, vec![9, 0])] {
        let option = SubgraphOptions { subgraphs: Some(2), cel: Some(cel), device_memory: None };
        let mut reports = Vec::new();
        let (run, _) =
            run_on_edges(&gpu, &Sssp, &graph, &carried, &config, &option, &mut |r| reports.push(r.changed)).unwrap();
        assert_eq!(run.outcome.iterations, outer, "cel {cel}");
        assert_eq!(reports, changes, "cel {cel}");
        let distances: Vec<Value> =
            [0.0, 3.0, 12.0, 8.0, 15.0, 10.0].map(|d| Value::Scalar(ScalarValue::F64(d))).to_vec();
        assert_eq!(run.outcome.values, distances, "cel {cel}");
    }
}

#[test]
fn a_device_memory_budget_without_room_for_edges_is_refused() {
    let Some(gpu) = gpu_or_skip("a_device_memory_budget_without_room_for_edges_is_refused") else { return };
    let graph = &graphs()[0];
    let edges = EdgeGraph::new(&graph.csr, graph.symmetric).unwrap();
    let config = EdgeConfig { source: Some(0), iterations: None };
    let option = SubgraphOptions { device_memory: Some(4096), ..SubgraphOptions::default() };
    let e = run_on_subgraphs(&gpu, &glp::programs::Bfs, &edges, &config, &option, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("device memory of 4096 bytes") && e.contains("give at least"), "{e}");
}
