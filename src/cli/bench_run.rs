//! `glp bench run`: edge programs (BFS, SSSP, WCC, SSWP, PageRank) on one graph, on the CPU
//! engine or the GPU's engines (`--engine edge,frontier,push,pull,auto`: a row each; `push`
//! only for programs with a frontier).
//!
//! Reported per program and engine: iterations, each iteration's step (`edges`, `push`,
//! `pull`) and time in the last run, the time to convergence (median of `--repeat` runs; on
//! a GPU from the first kernel to the end of the last iteration, with the graph's edges on
//! the device: placing them, compiling the program and downloading the values excluded, as
//! WolfGraph and LDBC report), the median iteration (the first one's time includes the
//! program's set-up), edges per second (every edge of every iteration counted: the frontier
//! engine reads fewer, so its rate and fractions are nominal), and for BFS the Graph500 TEPS: the input's
//! undirected edges within the component the source reaches over the time (stored edges of
//! the reached vertices, halved on an undirected graph). Each row gives the fraction of the
//! ceiling `glp bench probe` measures in the same run: for a program that reads every edge's
//! sender (no frontier: PageRank) an edge costs one random read of the sender's value (or of
//! its message), so edges per second over the random reads per second the device (or the CPU) sustains on an
//! array of the values' size; on a GPU also the edge arrays' streamed bytes (8 bytes an edge,
//! 12 with weights) over the device's copy bandwidth (frontier programs still stream every
//! edge's sender).

use super::backend::{choose_backend, Backend, BackendArg};
use super::bench::{median_min, print_json};
use super::common::{self, LoadArgs};
use super::output;
use super::run::{engine_needs_gpu, EngineArg, SubgraphArgs, VertexOrderArg};
use crate::edge::gpu::{Engine, SubgraphOptions, SubgraphTimes};
use crate::edge::subgraphs::{cel_allowed, Mode, SubgraphOutcome};
use crate::edge::{self, gpu::DeviceEdgeGraph, CompiledEdgeProgram, EdgeConfig, EdgeGraph, VertexValue, OUT};
use crate::programs::{built_in, ProgramVisitor, BUILT_IN};
use clap::Args;
use glp_codegen::ir::ScalarValue;
use glp_runtime::device::{ceiling, Gpu};
use glp_runtime::graph::Graph;
use glp_runtime::host_ceiling;
use glp_runtime::io::WeightRule;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Args)]
pub struct RunBenchArgs {
    /// Graph file [default: the bundled email-Eu-core]
    pub graph: Option<PathBuf>,
    /// Programs to run [default: bfs,sssp,wcc,sswp,pr; sssp and sswp only on a weighted graph]
    #[arg(long, value_name = "PROGRAM,...", value_delimiter = ',')]
    pub apps: Vec<String>,
    /// The source vertex of bfs, sssp and sswp (an input id) [default: a vertex of the
    /// largest out-degree]
    #[arg(long, value_name = "V")]
    pub source: Option<u64>,
    /// Runs per program (the median is reported)
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// The GPU's engines to run each program on, a row each
    #[arg(long, value_enum, value_name = "ENGINE,...", value_delimiter = ',', default_value = "auto")]
    pub engine: Vec<EngineArg>,
    /// The order in which the GPU holds the vertices
    #[arg(long, value_enum, default_value_t = VertexOrderArg::Auto)]
    pub vertex_order: VertexOrderArg,
    /// Every GPU row runs on subgraphs (the edges copied in pieces, as for a graph beyond the
    /// device's memory) when one of these is given, one row per program (the edge-centric
    /// kernels: --engine does not apply); --cel on gives the CEL to the programs that allow
    /// it, the others stream
    #[command(flatten)]
    pub subgraphs: SubgraphArgs,
    /// Print JSON instead of the table
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Serialize)]
struct RunBenchReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    directed: bool,
    backend: &'static str,
    device: Option<String>,
    /// The source vertex (input id) of the programs that read one.
    source: u64,
    /// The probe's random reads per second on an array of 8-byte values, this run.
    ceiling_reads_per_s: Option<f64>,
    /// The probe's device copy bandwidth (bytes read plus written per second), this run.
    copy_bytes_per_s: Option<f64>,
    /// The probe's pinned host-to-device copy rate (bytes per second), this run, for runs on
    /// subgraphs.
    pinned_copy_bytes_per_s: Option<f64>,
    /// The GPU's vertex order (`degree` or `graph`) and the milliseconds that ordering the
    /// vertices and placing the edges took (not in any row's time).
    vertex_order: Option<(&'static str, f64)>,
    programs: Vec<RunBenchRow>,
}

#[derive(Debug, Serialize)]
struct RunBenchRow {
    program: String,
    /// The GPU's engine (`--engine`), `cpu` on the CPU.
    engine: &'static str,
    iterations: u32,
    converged: bool,
    median_ms: f64,
    min_ms: f64,
    median_iteration_ms: f64,
    edges_per_iteration: u64,
    edges_per_s: f64,
    /// BFS: Graph500 TEPS (undirected input edges of the reached component per second).
    teps: Option<f64>,
    /// Edges per second over the probe's random reads per second.
    of_gather_ceiling: Option<f64>,
    /// Streamed edge bytes per second over the probe's copy bandwidth (GPU).
    of_copy_bandwidth: Option<f64>,
    /// The last run's iterations: how each ran (`cpu`, `edges`, `push`, `pull`; on
    /// subgraphs `subgraphs`, an outer iteration, or `streamed`) and its milliseconds.
    steps: Vec<(&'static str, f64)>,
    /// A run on subgraphs: the last run's breakdown.
    subgraphs: Option<SubgraphRow>,
}

/// The last run on subgraphs of a row.
#[derive(Debug, Serialize)]
struct SubgraphRow {
    /// `local convergence` or `streamed`.
    mode: &'static str,
    cel: bool,
    subgraphs: u64,
    pieces: u64,
    local_iterations: u64,
    edges_loaded: u64,
    /// Placing the edges in pinned host memory, before the clock.
    place_ms: f64,
    /// The host building the CEL (its mapping array and gathers), overlapped with the
    /// device's work but for the first subgraph's.
    build_ms: f64,
    /// The copy stream busy.
    transfer_ms: f64,
    /// The kernels busy.
    compute_ms: f64,
    bytes_copied: u64,
    /// Bytes copied over the copy stream's busy time.
    copy_bytes_per_s: f64,
    /// Bytes copied over the run's time, over the probe's pinned copy rate.
    of_pinned_copy: Option<f64>,
    device_bytes: u64,
}

pub fn run(args: RunBenchArgs) -> Result<()> {
    if args.repeat == 0 {
        return Err(Error::invalid("--repeat must be at least 1"));
    }
    let names: Vec<String> = match args.apps.is_empty() {
        true => BUILT_IN.iter().map(|b| b.name.to_string()).collect(),
        false => args.apps.clone(),
    };
    let mut programs = Vec::new();
    for name in &names {
        let built = built_in(name).ok_or_else(|| {
            let known: Vec<&str> = BUILT_IN.iter().map(|b| b.name).collect();
            Error::invalid(format!("--apps: unknown program `{name}`: expected {}", known.join(", ")))
        })?;
        programs.push(built);
    }
    // Shortest paths over a negative cycle never settle: SSSP takes non-negative weights.
    let weights = match programs.iter().any(|b| b.name == "sssp") {
        true => WeightRule::NonNegative,
        false => WeightRule::Any,
    };
    let graph = common::load(args.graph.as_deref(), &args.load.with_weights(weights))?;
    if graph.num_vertices() == 0 {
        return Err(Error::invalid("the graph has no vertices"));
    }
    let source = match args.source {
        Some(id) => graph
            .ids
            .dense(id)
            .ok_or_else(|| Error::invalid(format!("--source {id}: vertex {id} is not in the graph")))?,
        None => {
            (0..graph.num_vertices() as u32).max_by_key(|&v| (graph.csr.degree(v), std::cmp::Reverse(v))).unwrap_or(0)
        }
    };
    let weighted = graph.csr.is_weighted();
    if !args.apps.is_empty() && !weighted {
        if let Some(name) = names.iter().find(|n| matches!(n.as_str(), "sssp" | "sswp")) {
            return Err(Error::invalid(format!("--apps {name}: `{name}` reads edge weights, and the graph has none")));
        }
    }
    programs.retain(|b| weighted || !matches!(b.name, "sssp" | "sswp"));
    let edges = EdgeGraph::new(&graph.csr, graph.symmetric)?;
    let backend = choose_backend(args.backend)?;
    for &engine in &args.engine {
        engine_needs_gpu(engine, &backend)?;
    }
    args.subgraphs.need_gpu(&backend)?;
    args.vertex_order.needs_gpu(&backend)?;
    let subgraphs = args.subgraphs.options();
    let value_bytes = graph.num_vertices() as u64 * 8;
    let mut vertex_order = None;
    let (ceiling_reads, copy_bytes, pinned_copy, device_graph) = match &backend {
        Backend::Cpu => (
            host_ceiling::measure().for_array(value_bytes).map(|r| r * rayon::current_num_threads() as f64 / 2.0),
            None,
            None,
            None,
        ),
        Backend::Gpu(gpu) => {
            let measured = ceiling::measure(gpu)?;
            let direction = if graph.symmetric { OUT } else { crate::edge::BOTH };
            // On subgraphs the edges stay on the host.
            let placed = match subgraphs {
                Some(_) => None,
                None => {
                    let started = Instant::now();
                    let placed =
                        DeviceEdgeGraph::upload(gpu, &edges, direction, Engine::Auto, args.vertex_order.order())?;
                    let order = if placed.by_degree() { "degree" } else { "graph" };
                    vertex_order = Some((order, started.elapsed().as_secs_f64() * 1e3));
                    Some(placed)
                }
            };
            let pinned = measured.host.as_ref().and_then(|h| h.copy_bytes_per_s);
            (measured.for_array_bytes(value_bytes), measured.device_copy_bytes_per_s, pinned, placed)
        }
    };
    let config = EdgeConfig { source: Some(source), iterations: None };
    let mut rows = Vec::new();
    let engines = match (&backend, subgraphs) {
        (Backend::Cpu, _) | (Backend::Gpu(_), Some(_)) => vec![EngineArg::Auto],
        (Backend::Gpu(_), None) => args.engine.clone(),
    };
    for built in programs {
        for &engine in &engines {
            // Pushing alone applies only the vertices messages reach: programs with a frontier.
            if engine == EngineArg::Push && !built.program.has_frontier() {
                continue;
            }
            let bench = Bench {
                name: built.name,
                graph: &graph,
                edges: &edges,
                config: &config,
                repeat: args.repeat,
                on: match (&backend, &device_graph, subgraphs) {
                    (Backend::Gpu(gpu), _, Some(options)) => On::Subgraphs(gpu, options),
                    (Backend::Gpu(gpu), Some(placed), None) => On::Gpu(gpu, placed, engine),
                    _ => On::Cpu,
                },
                ceilings: (ceiling_reads, copy_bytes),
                pinned_copy,
            };
            rows.push(built.program.visit(bench)?);
        }
    }
    let report = RunBenchReport {
        graph: common::graph_name(args.graph.as_deref()),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        directed: !graph.symmetric,
        backend: match backend {
            Backend::Cpu => "cpu",
            Backend::Gpu(_) => "gpu",
        },
        device: match &backend {
            Backend::Cpu => None,
            Backend::Gpu(gpu) => Some(gpu.info().name.clone()),
        },
        source: graph.ids.original(source),
        ceiling_reads_per_s: ceiling_reads,
        copy_bytes_per_s: copy_bytes,
        pinned_copy_bytes_per_s: pinned_copy,
        vertex_order,
        programs: rows,
    };
    if args.json {
        return print_json(&report);
    }
    output::print(&table(&report))
}

/// Where a program runs.
enum On<'a> {
    Cpu,
    Gpu(&'a Gpu, &'a DeviceEdgeGraph, EngineArg),
    Subgraphs(&'a Gpu, SubgraphOptions),
}

/// One program's runs and its row.
struct Bench<'a> {
    /// The program's name (`bfs`: the row gives TEPS).
    name: &'static str,
    graph: &'a Graph,
    edges: &'a EdgeGraph<'a>,
    config: &'a EdgeConfig,
    repeat: usize,
    on: On<'a>,
    /// The probe's random reads per second and copy bandwidth.
    ceilings: (Option<f64>, Option<f64>),
    /// The probe's pinned host-to-device copy rate.
    pinned_copy: Option<f64>,
}

impl ProgramVisitor for Bench<'_> {
    type Output = Result<RunBenchRow>;
    fn visit<P: CompiledEdgeProgram>(self, program: &P) -> Result<RunBenchRow> {
        let direction = program.direction();
        // The GPU's engines read a symmetric graph once for an idempotent `BOTH` (WCC); the
        // CPU engine pulls its in- and out-edges both.
        let edges_per_iteration = match (&self.on, direction) {
            (On::Gpu(_, placed, _), _) => placed.edges_read(direction, program.combine())?,
            (On::Subgraphs(..), _) => self.edges.edges_read(direction, program.combine())?,
            (On::Cpu, _) => self.edges.edges_read(direction, crate::edge::SUM)?,
        };
        let mut breakdown = None;
        let (mut times, mut iteration_times) = (Vec::new(), Vec::new());
        let mut last = None;
        let mut steps = Vec::new();
        for _ in 0..self.repeat {
            let start = Instant::now();
            let mut mark = start;
            steps.clear();
            let mut observe = |report: &edge::IterationReport| {
                let now = Instant::now();
                iteration_times.push(now - mark);
                steps.push((report.step, ms(now - mark)));
                mark = now;
            };
            let (scalars, iterations, converged) = match self.on {
                On::Cpu => {
                    let outcome = edge::run(program, self.edges, self.config, &mut observe)?;
                    times.push(start.elapsed());
                    (first_scalars(&outcome.values), outcome.iterations, outcome.converged)
                }
                On::Gpu(gpu, placed, engine) => {
                    let (outcome, elapsed) = edge::gpu::run_on(
                        gpu,
                        program,
                        self.edges,
                        placed,
                        self.config,
                        engine.engine(),
                        &mut observe,
                    )?;
                    times.push(elapsed);
                    (first_scalars(&outcome.values), outcome.iterations, outcome.converged)
                }
                On::Subgraphs(gpu, options) => {
                    // `--cel on` for the programs it serves: the others stream (a schedule hook
                    // out of range is the run's error, not a reason to stream).
                    let cel = match options.cel {
                        Some(cel) if cel_allowed(program, self.edges, self.config)? => Some(cel),
                        _ => None,
                    };
                    let options = SubgraphOptions { cel, ..options };
                    let (run, spent) =
                        edge::gpu::run_on_subgraphs(gpu, program, self.edges, self.config, &options, &mut observe)?;
                    times.push(spent.elapsed);
                    breakdown = Some(self.subgraph_row(&run, &spent));
                    let outcome = run.outcome;
                    (first_scalars(&outcome.values), outcome.iterations, outcome.converged)
                }
            };
            last = Some((scalars, iterations, converged));
        }
        let Some((scalars, iterations, converged)) = last else {
            return Err(Error::invalid("--repeat must be at least 1"));
        };
        let (median, min) = median_min(&mut times);
        let (median_iteration, _) = median_min(&mut iteration_times);
        let seconds = median.as_secs_f64().max(1e-9);
        let edges_per_s = edges_per_iteration as f64 * f64::from(iterations) / seconds;
        let teps = (self.name == "bfs").then(|| reached_edges(self.graph, &scalars) / seconds);
        let streamed = if self.graph.csr.is_weighted() { 12.0 } else { 8.0 };
        Ok(RunBenchRow {
            program: self.name.to_string(),
            engine: match self.on {
                On::Gpu(_, _, engine) => engine.name(),
                On::Subgraphs(..) => "subgraphs",
                On::Cpu => "cpu",
            },
            iterations,
            converged,
            median_ms: ms(median),
            min_ms: ms(min),
            median_iteration_ms: ms(median_iteration),
            edges_per_iteration,
            edges_per_s,
            teps,
            // A frontier program reads no value for the edges of inactive senders: the gather
            // ceiling bounds only the programs that read every edge's sender.
            of_gather_ceiling: self.ceilings.0.filter(|_| !program.frontier()).map(|reads| edges_per_s / reads),
            of_copy_bandwidth: match self.on {
                On::Gpu(..) => self.ceilings.1.map(|bytes| edges_per_s * streamed / bytes),
                On::Subgraphs(..) | On::Cpu => None,
            },
            steps,
            subgraphs: breakdown,
        })
    }
}

impl Bench<'_> {
    /// The breakdown of a run on subgraphs.
    fn subgraph_row<V>(&self, run: &SubgraphOutcome<V>, spent: &SubgraphTimes) -> SubgraphRow {
        let transfer = spent.transfer.as_secs_f64().max(1e-9);
        SubgraphRow {
            mode: match run.mode {
                Mode::LocalConvergence => "local convergence",
                Mode::Streamed => "streamed",
            },
            cel: run.plan.cel,
            subgraphs: run.subgraphs,
            pieces: run.pieces,
            local_iterations: run.local_iterations,
            edges_loaded: run.edges_loaded,
            place_ms: ms(spent.place),
            build_ms: ms(spent.build),
            transfer_ms: ms(spent.transfer),
            compute_ms: ms(spent.compute),
            bytes_copied: spent.bytes_copied,
            copy_bytes_per_s: spent.bytes_copied as f64 / transfer,
            of_pinned_copy: self
                .pinned_copy
                .map(|rate| spent.bytes_copied as f64 / spent.elapsed.as_secs_f64().max(1e-9) / rate),
            device_bytes: spent.device_bytes,
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Each value's first scalar.
fn first_scalars<V: VertexValue>(values: &[V]) -> Vec<ScalarValue> {
    values
        .iter()
        .map(|&v| {
            let mut first = None;
            v.for_each_scalar(&mut |s| {
                first.get_or_insert(s);
            });
            first.unwrap_or(ScalarValue::Bool(false))
        })
        .collect()
}

/// Graph500's edge count of a BFS: the input's edges within the reached component (stored
/// edges of the reached vertices, halved on an undirected graph, where each is stored twice).
fn reached_edges(graph: &Graph, depths: &[ScalarValue]) -> f64 {
    let stored: u64 = (0..graph.num_vertices() as u32)
        .filter(|&v| depths[v as usize] != ScalarValue::I64(i64::MAX))
        .map(|v| graph.csr.degree(v) as u64)
        .sum();
    if graph.symmetric {
        stored as f64 / 2.0
    } else {
        stored as f64
    }
}

fn table(report: &RunBenchReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ({} vertices, {} stored edges, {}), {}, source {}",
        report.graph,
        report.vertices,
        report.stored_edges,
        if report.directed { "directed" } else { "undirected" },
        report.device.as_deref().unwrap_or("CPU engine"),
        report.source
    );
    let reads = report.ceiling_reads_per_s.map_or("-".into(), |r| format!("{:.2} G", r / 1e9));
    let copy = report.copy_bytes_per_s.map_or("-".into(), |b| format!("{:.0} GB/s", b / 1e9));
    let _ = writeln!(
        s,
        "ceiling: {reads} random reads/s of a {}-byte value array, copy {copy} (glp bench probe, this run)",
        report.vertices * 8
    );
    if let Some((order, ms)) = report.vertex_order {
        let _ =
            writeln!(s, "vertex order on the GPU: {order} (ordering and placing the edges took {ms:.0} ms, in no row)");
    }
    let _ = writeln!(s, "TEPS: Graph500's, the input's undirected edges of the reached component over the time");
    let _ = writeln!(s, "iterations with +: stopped at the program's iteration limit");
    let _ = writeln!(
        s,
        "\n{:<8} {:<9} {:>6} {:>11} {:>13} {:>13} {:>12} {:>11} {:>11}",
        "program", "engine", "iters", "median ms", "ms/iteration", "edges/s", "TEPS", "of gather", "of copy"
    );
    let fraction = |f: Option<f64>| f.map_or("-".to_string(), |f| format!("{:.1}%", f * 100.0));
    for row in &report.programs {
        let _ = writeln!(
            s,
            "{:<8} {:<9} {:>6} {:>11.2} {:>13.3} {:>13.3e} {:>12} {:>11} {:>11}",
            row.program,
            row.engine,
            format!("{}{}", row.iterations, if row.converged { "" } else { "+" }),
            row.median_ms,
            row.median_iteration_ms,
            row.edges_per_s,
            row.teps.map_or("-".to_string(), |t| format!("{t:.3e}")),
            fraction(row.of_gather_ceiling),
            fraction(row.of_copy_bandwidth),
        );
    }
    if report.programs.iter().any(|row| row.subgraphs.is_some()) {
        let pinned = report.pinned_copy_bytes_per_s.map_or("-".into(), |b| format!("{:.1} GB/s", b / 1e9));
        let _ = writeln!(
            s,
            "\nsubgraphs (last run; pinned copy {pinned}, glp bench probe, this run; the edges placed in pinned memory \
             before the clock; the CEL's build overlaps the device's work):"
        );
        let _ = writeln!(
            s,
            "{:<8} {:<18} {:>4} {:>9} {:>7} {:>12} {:>13} {:>10} {:>10} {:>12} {:>11} {:>10} {:>9}",
            "program",
            "mode",
            "CEL",
            "subgraphs",
            "pieces",
            "local iters",
            "edges loaded",
            "place ms",
            "build ms",
            "transfer ms",
            "compute ms",
            "copy GB/s",
            "of pinned"
        );
        let fraction = |f: Option<f64>| f.map_or("-".to_string(), |f| format!("{:.1}%", f * 100.0));
        for row in &report.programs {
            let Some(sub) = &row.subgraphs else { continue };
            let _ = writeln!(
                s,
                "{:<8} {:<18} {:>4} {:>9} {:>7} {:>12} {:>13} {:>10.1} {:>10.2} {:>12.2} {:>11.2} {:>10.1} {:>9}",
                row.program,
                sub.mode,
                if sub.cel { "on" } else { "off" },
                sub.subgraphs,
                sub.pieces,
                sub.local_iterations,
                sub.edges_loaded,
                sub.place_ms,
                sub.build_ms,
                sub.transfer_ms,
                sub.compute_ms,
                sub.copy_bytes_per_s / 1e9,
                fraction(sub.of_pinned_copy),
            );
        }
    }
    let _ = writeln!(s, "\niterations of the last run (how each ran, ms):");
    for row in &report.programs {
        let steps: Vec<String> = row.steps.iter().map(|(step, ms)| format!("{step} {ms:.3}")).collect();
        let _ = writeln!(s, "{:<8} {:<9} {}", row.program, row.engine, steps.join(", "));
    }
    s
}
