//! `glp run`: an edge program (a built-in: BFS, SSSP, WCC, SSWP, PageRank, or a program file)
//! on the CPU engine or one of the GPU's (`--engine`), written as `vertex value` lines in the
//! input's ids.

use super::backend::{choose_backend, Backend, BackendArg};
use super::common::{self, LoadArgs};
use super::output::{self, Content, Destination, Outputs};
use super::progress::IterationBar;
use crate::programs::{built_in, AnyProgram, PageRank, ProgramVisitor, BUILT_IN};
use clap::{Args, ValueEnum};
use glp_runtime::edge::gpu::{Engine, SubgraphOptions, VertexOrder};
use glp_runtime::edge::{self, CompiledEdgeProgram, EdgeConfig, EdgeGraph, InterpretedEdgeProgram};
use glp_runtime::edge::{IterationReport, VertexValue};
use glp_runtime::graph::Graph;
use glp_runtime::io::WeightRule;
use glp_runtime::lp::ScalarValue;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The long help of `glp run`.
pub const LONG_ABOUT: &str = "Run an edge program: every vertex holds a value, every iteration each edge \
    carries a message from its source's value to its target, a vertex combines its messages (min, max or \
    sum) and applies them to its value (WolfGraph's model).\n\n\
    Programs (APP):\n  \
    bfs      breadth-first search from --source: a vertex's depth, 9223372036854775807 when unreached \
    (LDBC Graphalytics BFS)\n  \
    sssp     shortest paths from --source over the edges' weights: a vertex's distance, Infinity when \
    unreached (LDBC Graphalytics SSSP; the graph must be weighted)\n  \
    wcc      weakly connected components: a component label (the smallest dense vertex id of the \
    component); edges are followed both ways, so a directed graph needs no symmetrised copy\n  \
    sswp     widest paths from --source: the largest smallest-edge-weight of a path, -Infinity when \
    unreached (the graph must be weighted)\n  \
    pr       PageRank as LDBC Graphalytics defines it: --param damping=0.85, --param iterations=10 \
    (or --iterations), the rank of vertices without out-edges spread over every vertex\n  \
    FILE.rs  an edge program written in Rust: a struct whose fields are its parameters and `impl \
    EdgeProgram for` it, as in src/programs/ (errors point at file:line:col); every parameter its hooks \
    read is given with --param NAME=VALUE. It runs on the interpreter and gives the values the same Rust \
    compiled into glp would.\n\n\
    Graphs are undirected unless --directed (LDBC's directed sets need it). Runs on the CPU engine \
    (--backend cpu: synchronous iterations, the same values on every thread count) or the GPU \
    (--backend gpu: the CPU's values, sums to rounding; auto, the default, takes the GPU when there is \
    one), whose engines --engine picks: edge (every edge every iteration), frontier (push from a sparse \
    frontier, pull from a dense one, chosen per iteration), push, pull, or auto (frontier for programs \
    that write `settled`, such as bfs, or have no frontier, such as pr, and for every program on a \
    graph held by degree; edge for the others). A run stops after an iteration that changed no vertex, or after --iterations \
    (the program's own limit otherwise).\n\n\
    Output: --out writes one `vertex value` line per vertex in the input's ids (a tuple value: its \
    scalars separated by spaces); `--out -` writes them to standard output and the summary to standard \
    error. On a terminal a progress line follows the iterations (not with --quiet).";

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The program: bfs, sssp, wcc, sswp, pr, or a FILE.rs edge program
    #[arg(value_name = "APP")]
    pub app: String,

    /// Graph file (any supported format, plain or compressed)
    pub graph: PathBuf,

    /// The source vertex (an id of the input) of the programs that read one (bfs, sssp, sswp)
    #[arg(long, value_name = "V")]
    pub source: Option<u64>,

    /// The most iterations (in place of the program's own limit; pr: its iterations)
    #[arg(long, value_name = "N")]
    pub iterations: Option<u32>,

    /// A parameter of the program, NAME=VALUE (repeatable): pr damping (in [0, 1], default
    /// 0.85) and iterations (default 10); FILE.rs: every parameter its hooks read
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Write `vertex value` lines here; `-` is standard output (the summary then goes to
    /// standard error)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,

    /// The GPU's engine
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// The order in which the GPU holds the vertices (results keep the graph's ids)
    #[arg(long, value_enum, default_value_t = VertexOrderArg::Auto)]
    pub vertex_order: VertexOrderArg,

    #[command(flatten)]
    pub subgraphs: SubgraphArgs,

    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub load: LoadArgs,
}

/// The options of graphs beyond the device's memory (WolfGraph's subgraphs and CEL).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct SubgraphArgs {
    /// The most device memory the GPU may use (bytes, or with a K, M, G or T suffix: powers
    /// of 1024); a graph whose edges do not fit runs on subgraphs, the vertices' values on
    /// the device and the edges copied in pieces [default: what is free]
    #[arg(long, value_name = "BYTES", value_parser = super::sample_backend::parse_bytes)]
    pub device_memory: Option<u64>,
    /// Run on this many equal subgraphs, whatever fits
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub subgraphs: Option<u64>,
    /// Subgraphs carry their Concatenated Edge List (programs with a frontier, a min or max
    /// combine and no iteration limit; auto: where allowed)
    #[arg(long, value_enum, default_value_t = CelArg::Auto)]
    pub cel: CelArg,
}

/// `--cel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CelArg {
    Auto,
    On,
    Off,
}

impl SubgraphArgs {
    /// The run's subgraph options, `None` when no flag asks for subgraphs.
    pub fn options(&self) -> Option<SubgraphOptions> {
        let cel = match self.cel {
            CelArg::Auto => None,
            CelArg::On => Some(true),
            CelArg::Off => Some(false),
        };
        let asked = self.device_memory.is_some() || self.subgraphs.is_some() || cel.is_some();
        asked.then_some(SubgraphOptions { device_memory: self.device_memory, subgraphs: self.subgraphs, cel })
    }

    /// The first flag given, for the CPU's refusal.
    fn flag(&self) -> Option<&'static str> {
        if self.device_memory.is_some() {
            Some("--device-memory")
        } else if self.subgraphs.is_some() {
            Some("--subgraphs")
        } else if self.cel != CelArg::Auto {
            Some("--cel")
        } else {
            None
        }
    }

    /// Refuses the flags on the CPU, which holds the whole graph.
    pub fn need_gpu(&self, backend: &Backend) -> Result<()> {
        match (self.flag(), backend) {
            (Some(flag), Backend::Cpu) => Err(Error::invalid(format!(
                "{flag}: subgraphs are for graphs beyond the GPU's memory (the CPU holds the whole graph); add --backend gpu"
            ))),
            _ => Ok(()),
        }
    }
}

/// `--engine`: the GPU engine that runs an edge program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The edge-centric engine: every edge every iteration (WolfGraph)
    Edge,
    /// The frontier engine: push from a sparse frontier, pull into every vertex from a dense
    /// one, chosen per iteration
    Frontier,
    /// The frontier engine, pushing every iteration (programs with a frontier)
    Push,
    /// The frontier engine, pulling every iteration
    Pull,
    /// On graphs whose edges exceed the L2 cache, the frontier engine for programs that write
    /// `settled` (BFS) or have no frontier (PageRank), for every program when the vertices are
    /// held by degree, and in the graph's order for those whose `edge` reads only its sender
    /// (WCC) once every vertex's message takes more than twice the L2 cache; the edge-centric
    /// one otherwise (SSSP and SSWP in the graph's order, graphs in the L2 cache)
    Auto,
}

impl EngineArg {
    pub fn engine(self) -> Engine {
        match self {
            EngineArg::Edge => Engine::Edge,
            EngineArg::Frontier => Engine::Frontier,
            EngineArg::Push => Engine::Push,
            EngineArg::Pull => Engine::Pull,
            EngineArg::Auto => Engine::Auto,
        }
    }

    /// The name `--engine` takes.
    pub fn name(self) -> &'static str {
        match self {
            EngineArg::Edge => "edge",
            EngineArg::Frontier => "frontier",
            EngineArg::Push => "push",
            EngineArg::Pull => "pull",
            EngineArg::Auto => "auto",
        }
    }
}

/// The error for an engine other than `auto` on the CPU, which has one engine.
pub fn engine_needs_gpu(engine: EngineArg, backend: &Backend) -> Result<()> {
    match (engine, backend) {
        (EngineArg::Auto, _) | (_, Backend::Gpu(_)) => Ok(()),
        (engine, Backend::Cpu) => Err(Error::invalid(format!(
            "--engine {}: the engines are the GPU's (the CPU runs its one engine); add --backend gpu",
            engine.name()
        ))),
    }
}

/// `--vertex-order`: the order in which the GPU holds a graph's vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VertexOrderArg {
    /// The graph's own
    Graph,
    /// By decreasing degree, so that the most read values share cache lines
    Degree,
    /// By degree when the vertices' values (edge programs) or labels (label propagation)
    /// exceed the GPU's L2 cache and the host has the memory for the renumbered rows (runs on
    /// subgraphs, the sketch strategies and variants with their own load_neighbor keep the
    /// graph's order)
    Auto,
}

impl VertexOrderArg {
    pub fn order(self) -> VertexOrder {
        match self {
            VertexOrderArg::Graph => VertexOrder::Graph,
            VertexOrderArg::Degree => VertexOrder::Degree,
            VertexOrderArg::Auto => VertexOrder::Auto,
        }
    }

    /// The error for an order other than `auto` where the CPU runs (it keeps the graph's).
    pub fn needs_gpu(self, backend: &Backend) -> Result<()> {
        self.needs_gpu_run(matches!(backend, Backend::Gpu(_)))
    }

    /// The same, for a command that knows whether it runs on the GPU (`on_gpu`).
    pub fn needs_gpu_run(self, on_gpu: bool) -> Result<()> {
        match (self, on_gpu) {
            (VertexOrderArg::Auto, _) | (_, true) => Ok(()),
            (_, false) => Err(Error::invalid(
                "--vertex-order: the GPU's (the CPU engine keeps the graph's order); add --backend gpu",
            )),
        }
    }
}

/// The program a run uses: a built-in with its parameters, or a file compiled at once.
enum App {
    BuiltIn(&'static str, AnyProgram),
    File(String, Box<InterpretedEdgeProgram>),
}

impl App {
    /// The program `name` names, with `--param` assignments; errors name the option at fault.
    /// A name ending in `.rs` is a program file.
    fn new(name: &str, assignments: &[String]) -> Result<App> {
        if name.ends_with(".rs") {
            let path = Path::new(name);
            let program =
                common::compile_program_file("", "program", path, assignments, InterpretedEdgeProgram::from_source)?;
            return Ok(App::File(path.display().to_string(), Box::new(program)));
        }
        let Some(built) = built_in(name) else {
            let names: Vec<&str> = BUILT_IN.iter().map(|b| b.name).collect();
            return Err(Error::invalid(format!(
                "unknown program `{name}`: expected {} or a FILE.rs edge program",
                names.join(", ")
            )));
        };
        let program = match (built.program, assignments) {
            (program, []) => program,
            (AnyProgram::PageRank(pr), given) => AnyProgram::PageRank(page_rank_params(pr, given)?),
            (_, [first, ..]) => {
                return Err(Error::invalid(format!("--param {first}: `{name}` takes no parameters")));
            }
        };
        Ok(App::BuiltIn(built.name, program))
    }

    fn name(&self) -> &str {
        match self {
            App::BuiltIn(name, _) => name,
            App::File(path, _) => path,
        }
    }

    fn visit<V: ProgramVisitor>(&self, visitor: V) -> V::Output {
        match self {
            App::BuiltIn(_, program) => program.visit(visitor),
            App::File(_, program) => visitor.visit(&**program),
        }
    }
}

/// PageRank `pr` with the `--param` assignments `given` (damping, iterations) applied.
fn page_rank_params(mut pr: PageRank, given: &[String]) -> Result<PageRank> {
    let mut seen: Vec<&str> = Vec::new();
    for assignment in given {
        let Some((name, value)) = assignment.split_once('=') else {
            return Err(Error::invalid(format!("--param `{assignment}`: expected NAME=VALUE, e.g. damping=0.85")));
        };
        let name = name.trim();
        if seen.contains(&name) {
            return Err(Error::invalid(format!("--param {name}: given twice")));
        }
        seen.push(name);
        let bad = |expected: &str| Error::invalid(format!("--param {assignment}: {name} must be {expected}"));
        match name {
            "damping" => {
                pr.damping = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|d: &f64| (0.0..=1.0).contains(d))
                    .ok_or_else(|| bad("a number in [0, 1]"))?
            }
            "iterations" => {
                pr.iterations =
                    value.trim().parse().ok().filter(|&i: &u32| i >= 1).ok_or_else(|| bad("an integer >= 1"))?
            }
            _ => {
                return Err(Error::invalid(format!(
                    "--param {assignment}: unknown parameter `{name}` (valid parameters of pr: damping, iterations)"
                )))
            }
        }
    }
    Ok(pr)
}

/// The JSON document `glp run --json` prints.
#[derive(Debug, Serialize)]
struct RunReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    program: String,
    backend: &'static str,
    /// The GPU's name (`--backend gpu`).
    device: Option<String>,
    threads: usize,
    iterations: u32,
    converged: bool,
    time_ms: f64,
    changed_per_iteration: Vec<u64>,
}

pub fn run(args: RunArgs) -> Result<()> {
    let out = args.out.as_deref().map(|path| Destination::check("--out", path, Content::Text)).transpose()?;
    if args.iterations == Some(0) {
        return Err(Error::invalid("--iterations must be at least 1"));
    }
    // The program first: a mistake in it costs a message, not a graph load.
    let app = App::new(&args.app, &args.params)?;
    let backend = choose_backend(args.backend)?;
    engine_needs_gpu(args.engine, &backend)?;
    args.vertex_order.needs_gpu(&backend)?;
    args.subgraphs.need_gpu(&backend)?;
    // Shortest paths over a negative cycle never settle: SSSP takes non-negative weights, as
    // LDBC Graphalytics defines it.
    let weights = if app.name() == "sssp" { WeightRule::NonNegative } else { WeightRule::Any };
    let graph = common::load(Some(&args.graph), &args.load.with_weights(weights))?;
    let source = source_vertex(&app, &graph, args.source)?;
    let edge_graph = EdgeGraph::new(&graph.csr, graph.symmetric)?;
    let config = EdgeConfig { source, iterations: args.iterations };
    let runner = Runner {
        graph: &graph,
        edges: &edge_graph,
        config: &config,
        backend: &backend,
        engine: (args.engine.engine(), args.vertex_order.order()),
        subgraphs: args.subgraphs.options(),
        values: out.is_some(),
    };
    let ran = app.visit(runner)?;
    let mut outputs = Outputs::new();
    if let Some(out) = &out {
        outputs.stage_bytes(out, ran.values.into_bytes())?;
    }
    let report = RunReport {
        graph: common::graph_name(Some(&args.graph)),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        program: app.name().to_string(),
        backend: match backend {
            Backend::Cpu => "cpu",
            Backend::Gpu(_) => "gpu",
        },
        device: match &backend {
            Backend::Cpu => None,
            Backend::Gpu(gpu) => Some(gpu.info().name.clone()),
        },
        threads: rayon::current_num_threads(),
        iterations: ran.iterations,
        converged: ran.converged,
        time_ms: ran.elapsed.as_secs_f64() * 1e3,
        changed_per_iteration: ran.changed,
    };
    outputs.stage_report(if args.json { output::json(&report)? } else { summary(&report) });
    outputs.commit()
}

/// The dense id of `--source`, checked against what the program reads: a program that
/// reads `view.source()` needs one, and one that does not takes none.
fn source_vertex(app: &App, graph: &Graph, source: Option<u64>) -> Result<Option<u32>> {
    let reads_source = app.visit(ReadsSource);
    match source {
        None if reads_source => {
            Err(Error::invalid(format!("`{}` starts from a source vertex: give it with --source V", app.name())))
        }
        None => Ok(None),
        Some(_) if !reads_source => Err(Error::invalid(format!("--source: `{}` reads no source vertex", app.name()))),
        Some(id) => graph
            .ids
            .dense(id)
            .map(Some)
            .ok_or_else(|| Error::invalid(format!("--source {id}: vertex {id} is not in the graph"))),
    }
}

/// Whether a program reads `view.source()`.
struct ReadsSource;

impl ProgramVisitor for ReadsSource {
    type Output = bool;
    fn visit<P: CompiledEdgeProgram>(self, program: &P) -> bool {
        program.features().contains(&"source")
    }
}

/// A run's results: the values as output text (when asked for), the iterations and time.
struct Ran {
    values: String,
    iterations: u32,
    converged: bool,
    changed: Vec<u64>,
    elapsed: Duration,
}

/// Runs a program on the chosen engine with the iteration bar.
struct Runner<'a> {
    graph: &'a Graph,
    edges: &'a EdgeGraph<'a>,
    config: &'a EdgeConfig,
    backend: &'a Backend,
    /// The GPU's engine and vertex order.
    engine: (Engine, VertexOrder),
    /// Whether a graph may run on subgraphs, and how.
    subgraphs: Option<SubgraphOptions>,
    /// Whether to format the values.
    values: bool,
}

impl ProgramVisitor for Runner<'_> {
    type Output = Result<Ran>;
    fn visit<P: CompiledEdgeProgram>(self, program: &P) -> Result<Ran> {
        let limit = self.config.iterations.unwrap_or_else(|| program.iterations());
        let bar = IterationBar::new(limit, self.graph.num_vertices());
        let mut changed = Vec::new();
        let mut last = Instant::now();
        let start = last;
        let mut observer = |report: &IterationReport| {
            let now = Instant::now();
            bar.step(report.iteration, report.changed, now - last, "");
            last = now;
            changed.push(report.changed);
        };
        // The GPU's time is its iterations' (the edges placed and the program compiled
        // before, the values downloaded after), as `glp bench run` reports it.
        let (values, iterations, converged, elapsed) = match self.backend {
            Backend::Cpu => {
                let outcome = edge::run(program, self.edges, self.config, &mut observer)?;
                let elapsed = start.elapsed();
                (self.text(&outcome.values), outcome.iterations, outcome.converged, elapsed)
            }
            Backend::Gpu(gpu) => match self.subgraphs {
                Some(options) if on_subgraphs(gpu, program, self.edges, self.config, &options)? => {
                    let (run, times) =
                        edge::gpu::run_on_subgraphs(gpu, program, self.edges, self.config, &options, &mut observer)?;
                    let outcome = run.outcome;
                    (self.text(&outcome.values), outcome.iterations, outcome.converged, times.elapsed)
                }
                _ => {
                    let (outcome, elapsed) =
                        edge::gpu::run(gpu, program, self.edges, self.config, self.engine, &mut observer)?;
                    (self.text(&outcome.values), outcome.iterations, outcome.converged, elapsed)
                }
            },
        };
        drop(bar);
        Ok(Ran { values, iterations, converged, changed, elapsed })
    }
}

/// Whether a run with `options` goes on subgraphs: asked for by count or CEL, or a graph
/// whose edges do not fit the device memory budget (what is free without one).
pub fn on_subgraphs<P: CompiledEdgeProgram + ?Sized>(
    gpu: &glp_runtime::device::Gpu,
    program: &P,
    edges: &EdgeGraph<'_>,
    config: &EdgeConfig,
    options: &SubgraphOptions,
) -> Result<bool> {
    if options.subgraphs.is_some() || options.cel == Some(true) {
        return Ok(true);
    }
    let budget = match options.device_memory {
        Some(budget) => budget,
        None => gpu.memory_info()?.0,
    };
    Ok(!edge::gpu::fits_in_memory(program, edges, config, budget)?)
}

impl Runner<'_> {
    /// The values as output text, when the run writes them.
    fn text<V: VertexValue>(&self, values: &[V]) -> String {
        if self.values {
            values_text(self.graph, values)
        } else {
            String::new()
        }
    }
}

/// One `vertex value` line per vertex, in the input's ids.
fn values_text<V: VertexValue>(graph: &Graph, values: &[V]) -> String {
    let mut text = String::with_capacity(values.len() * 24);
    for (v, &value) in values.iter().enumerate() {
        let _ = write!(text, "{}", graph.ids.original(v as u32));
        value.for_each_scalar(&mut |s| {
            text.push(' ');
            write_scalar(&mut text, s);
        });
        text.push('\n');
    }
    text
}

/// A scalar as LDBC Graphalytics writes it: integers as they are, floats in Rust's shortest
/// round-trip form, `Infinity`, `-Infinity` and `NaN` spelled out.
fn write_scalar(text: &mut String, s: ScalarValue) {
    let float = match s {
        ScalarValue::F32(x) => f64::from(x),
        ScalarValue::F64(x) => x,
        other => {
            let _ = write!(text, "{other}");
            return;
        }
    };
    if float.is_nan() {
        text.push_str("NaN");
    } else if float.is_infinite() {
        text.push_str(if float > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        let _ = write!(text, "{s}");
    }
}

fn summary(report: &RunReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "graph        {} ({} vertices, {} stored edges)",
        report.graph, report.vertices, report.stored_edges
    );
    match &report.device {
        Some(device) => {
            let _ = writeln!(s, "engine       {} ({device}) {}", report.backend, report.program);
        }
        None => {
            let _ = writeln!(s, "engine       {} {}, {} threads", report.backend, report.program, report.threads);
        }
    }
    let _ = writeln!(
        s,
        "time         {:.2} ms ({} iterations{})",
        report.time_ms,
        report.iterations,
        if report.converged { ", converged" } else { ", iteration limit reached" }
    );
    s
}
