//! `glp lp`: community detection with label propagation.

use super::backend::{choose_backend, Backend, BackendArg};
use super::common::{self, LoadArgs};
use super::engine::{check_gpu, cpu_search, with_gpu_flags, EngineArgs, Variant};
use super::output::{self, Content, Destination, Outputs};
use super::progress::IterationBar;
use super::quality::{self, TruthCoverage};
use super::run::VertexOrderArg;
use crate::variants::{Capped, Llp};
use clap::Args;
use glp_runtime::community::UNLABELLED;
use glp_runtime::graph::Graph;
use glp_runtime::lp::gpu::{run_gpu, MflStrategy, VertexOrder};
use glp_runtime::lp::{IterationObserver, IterationStats, Label, LpConfig, LpInputs, LpOutcome};
use glp_runtime::metrics::QualityReport;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The long help of `glp lp`.
pub const LONG_ABOUT: &str = "Detect communities with label propagation.\n\n\
    Every vertex starts with its own label and repeatedly takes the label that carries the \
    most weight among its neighbours.\n\n\
    Variants (--variant, parameters with --param NAME=VALUE):\n  \
    classic   the most frequent neighbour label (the default)\n  \
    weighted  the label with the largest total edge weight (the same on unweighted graphs)\n  \
    capped    neighbours with more than --param cap=D neighbours (default 100) vote with \
    weight 0: the remedy for label propagation's collapse on graphs with a dense core, where \
    a few hubs pass their label to most vertices\n  \
    llp       layered LP: score = count - gamma * (vertices with the label - count), which \
    favours smaller, denser communities; --param gamma=G (>= 0, default 1; 0 is classic)\n  \
    slp       speaker-listener LP for overlapping communities: each vertex remembers up to 5 \
    labels, speaks one drawn from its memory (--seed), remembers the label it hears most and \
    forgets labels below --param threshold=T of its memory (in [0, 1], default 0.1); the \
    summary scores each vertex's strongest label, --out lists all of them\n  \
    seeded    only the vertices of --seeds FILE (`vertex label` lines) start labelled, seeds \
    never change, labels spread from them; vertices no seed reaches stay unlabelled (`-`)\n  \
    FILE.rs   a variant written in Rust: a struct whose fields are its parameters and `impl \
    LpVariant for` it, with the hooks initial_label, pick_label, load_neighbor, label_score and \
    update_vertex over the view (see the built-in variants' sources); compiled when glp starts \
    (errors point at file:line:col), interpreted on the CPU and compiled to CUDA on the GPU; every parameter the hooks read \
    is given with --param NAME=VALUE, parsed as the field's type\n\n\
    Backends (--backend): cpu is the multi-threaded engine; gpu runs on a CUDA GPU (with \
    --schedule sync, the same labels as the CPU for unit or integer weights and the same \
    --ties; async ties are hashed unless --ties smallest); auto takes the GPU when one is present, else the CPU with a \
    one-line notice.\n\n\
    MFL strategies on the GPU (--mfl), how each vertex's most frequent label is found:\n  \
    glp     the full GLP design: vertices below 32 neighbours share warps (several per \
    warp, warp votes find equal labels), 32..128 neighbours get a warp and a shared-memory \
    table, larger ones a block with a shared-memory table and a count-min sketch for the \
    labels it cannot hold; a vertex the sketch cannot settle exactly is recounted with a \
    global table from a bounded pool (the default)\n  \
    smem    GLP without the warp path: a shared-memory table for every vertex\n  \
    global  the G-Hash baseline: a global-memory hash table of twice the degree per \
    vertex (about 34 bytes per edge of extra memory)\n  \
    sort    the G-Sort baseline: every neighbour's label gathered into a per-edge array, \
    each vertex's segment sorted by label (in registers, shared memory, or merged in global \
    memory above 2048 neighbours), runs counted (4 bytes per edge of extra memory, 12 with \
    weights, plus a merge buffer for vertices above 2048 neighbours; synchronous schedule only)\n  \
    hash    nu-LPA's per-vertex global hash tables of nextPow2(degree) - 1 slots (label + 1 \
    keys, hybrid quadratic-double probing; 24 bytes per edge), a warp per vertex; exact\n  \
    mg2 mg4 mg8 mg16 mg32 (mg = mg8)  nu-LPA's weighted Misra-Gries sketch of k slots in \
    registers (a tile of k threads per vertex below 128 neighbours, a block of 256 with partial \
    sketches merged in a fixed order above): no table, 4 bytes per vertex; approximate, it \
    picks a heavy hitter\n  \
    bm      the weighted Boyer-Moore vote (k = 1; a tie replaces the candidate): a thread per \
    vertex, a block above 128 neighbours; the cheapest and the least accurate\n\
    The sketches serve variants whose score is the label's weighted count (classic, weighted, \
    seeded; not llp or slp) and are deterministic: with --backend cpu the same sketches run on \
    the CPU, and with --schedule sync the GPU and the CPU give the same labels. On the CPU, \
    glp means the CPU engine's exact search; smem, global, sort and hash are GPU kernels and \
    are refused there.\n\n\
    Schedules:\n  \
    async  in place, as nu-LPA / GVE-LPA: only vertices whose neighbourhood changed are \
    revisited; every --pick-less-every-th iteration (the first included) a vertex may only \
    move to a smaller label, which stops label swaps; stops after an iteration that is not \
    Pick-Less and changed at most --tolerance of the vertices, or after --iterations (20).\n  \
    sync   double-buffered, as GLP and LDBC CDLP: every vertex reads the previous \
    iteration's labels; deterministic; stops when no label changes or after --iterations \
    (20); ties go to the smallest label, so it reproduces the LDBC CDLP reference outputs.\n\n\
    With no GRAPH, runs on the bundled email-Eu-core graph (the e-mail of a research \
    institution, 1005 people) and scores the result against its 42 departments; classic LP \
    collapses there, and the same run with --variant capped is shown beside it.\n\n\
    Directed graphs (--directed): the input's edges are directed and LP counts a vertex's \
    in- and out-neighbours, a neighbour linked both ways twice, as LDBC Graphalytics CDLP \
    does on its directed graphs (repeated edges of one direction follow --duplicates first). \
    Without --directed every edge is made undirected, and repeated edges follow --duplicates \
    (collapsed by default).\n\n\
    Output: a summary (time, iterations, communities, modularity, and, with a ground truth, \
    the share of vertices it labels, NMI / ARI and overlapping NMI), or JSON with --json \
    (times in milliseconds, fields ending in _ms); a ground truth that labels less than half \
    of the vertices gets a warning. On a terminal a progress line follows the iterations \
    (not with --quiet). --out writes one `vertex<TAB>label` line per vertex using the input's \
    vertex ids (a label is the input id of the vertex it started at; seeded: the label of the \
    seed file; slp: `vertex<TAB>label<TAB>label...` with every community of the vertex); \
    `--out -` writes them to standard output and the summary to standard error.";

#[derive(Debug, Args)]
pub struct LpArgs {
    /// Graph file (any supported format, plain or gzip) [default: the bundled email-Eu-core]
    pub graph: Option<PathBuf>,

    #[command(flatten)]
    pub engine: EngineArgs,

    /// Where to run: auto uses a GPU when one can run the engine and otherwise the CPU,
    /// with a one-line notice; gpu fails when no GPU engine can run
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,

    /// How each vertex's most frequent label is found: glp, smem, global, sort, hash (exact,
    /// GPU), mg2, mg4, mg8, mg16, mg32 (mg = mg8) or bm (sketches, GPU and CPU; see above)
    #[arg(long, value_name = "STRATEGY", default_value = "glp", value_parser = parse_mfl)]
    pub mfl: MflStrategy,

    /// The order in which the GPU holds the vertices (the labels are the same in either)
    #[arg(long, value_enum, default_value_t = VertexOrderArg::Auto)]
    pub vertex_order: VertexOrderArg,

    /// Write `vertex<TAB>label` lines here (slp: `vertex<TAB>label<TAB>label...`, every
    /// community of the vertex; `-` for an unlabelled vertex); `-` is standard output (the
    /// summary then goes to standard error)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Seed of the variant's random numbers (slp); the same seed gives the same result
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,

    /// Ground truth to compare with: `vertex label` lines, SNAP community lines (one
    /// community per line) or a CSV with a header [default: the bundled graph's labels]
    #[arg(long, value_name = "FILE")]
    pub ground_truth: Option<PathBuf>,

    #[command(flatten)]
    pub load: LoadArgs,
}

/// The JSON document `glp lp --json` prints.
#[derive(Debug, Serialize)]
struct LpReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    backend: &'static str,
    schedule: &'static str,
    variant: String,
    seed: u64,
    /// CPU threads (0 on the GPU).
    threads: usize,
    iterations: usize,
    converged: bool,
    time_ms: f64,
    changed_per_iteration: Vec<u64>,
    /// Vertices left without a label (seeded LP: those no seed reached).
    unlabelled_vertices: usize,
    /// slp: vertices in two or more communities.
    #[serde(skip_serializing_if = "Option::is_none")]
    overlapping_vertices: Option<usize>,
    /// With a ground truth: how much of the graph it labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    truth_coverage: Option<TruthCoverage>,
    quality: QualityReport,
}

pub fn run(args: LpArgs) -> Result<()> {
    let out = args.out.as_deref().map(|path| Destination::check("--out", path, Content::Text)).transpose()?;
    let backend = choose_backend(args.backend)?;
    let config = args.engine.config(args.seed, matches!(backend, Backend::Gpu(_)));
    config.validate()?;
    args.vertex_order.needs_gpu(&backend)?;
    match backend {
        Backend::Cpu => drop(cpu_search(args.mfl)?), // before the graph is loaded
        Backend::Gpu(_) => check_gpu(&config, &[args.mfl])?,
    }
    let (mfl, order) = (args.mfl, args.vertex_order.order());
    let variant = args.engine.check()?;
    let graph = common::load_for_lp(args.graph.as_deref(), &args.load)?;
    let truth = common::ground_truth(args.ground_truth.as_deref(), args.graph.is_none(), &graph)?;
    let variant = args.engine.read_seeds(variant, &graph)?;
    let outcome = detect(&backend, &graph, &variant, &config, (mfl, order))?;
    let threads = match backend {
        Backend::Cpu => rayon::current_num_threads(),
        Backend::Gpu(_) => 0,
    };
    let truth_coverage = truth.as_ref().map(|t| TruthCoverage::of(&t.truth, graph.num_vertices()));
    let quality = QualityReport::new(&graph.csr, &outcome.labels, truth.as_ref().map(|t| &t.truth))?;
    let mut outputs = Outputs::new();
    if let Some(out) = &out {
        outputs.stage_bytes(out, labels_text(&graph, &variant, &outcome).into_bytes())?;
    }
    let report = LpReport {
        graph: common::graph_name(args.graph.as_deref()),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        backend: backend.name(),
        schedule: args.engine.schedule_name(),
        variant: args.engine.variant_name(),
        seed: args.seed,
        threads,
        iterations: outcome.iterations.len(),
        converged: outcome.converged,
        time_ms: outcome.elapsed.as_secs_f64() * 1e3,
        changed_per_iteration: outcome.iterations.iter().map(|i| i.changed).collect(),
        unlabelled_vertices: outcome.labels.iter().filter(|&&l| l == UNLABELLED).count(),
        overlapping_vertices: outcome.memberships.as_ref().map(|m| m.iter().filter(|c| c.len() > 1).count()),
        truth_coverage,
        quality,
    };
    let text = if args.json {
        output::json(&report)?
    } else if args.graph.is_none() && matches!(variant, Variant::Classic) {
        // The demonstration: classic LP collapses on the bundled graph; show the remedies beside.
        let mut text = summary(&report);
        for (name, remedy, what) in remedies() {
            let outcome = detect(&backend, &graph, &remedy, &config, (mfl, order))?;
            let quality = QualityReport::new(&graph.csr, &outcome.labels, truth.as_ref().map(|t| &t.truth))?;
            text.push_str(&remedy_lines(name, &what, &quality));
        }
        text
    } else {
        summary(&report)
    };
    outputs.stage_report(text);
    outputs.commit()
}

/// Runs `variant` on `graph` with `backend` (on the GPU with this MFL strategy and vertex
/// order), drawing the iteration bar.
fn detect(
    backend: &Backend,
    graph: &Graph,
    variant: &Variant,
    config: &LpConfig,
    gpu_choices: (MflStrategy, VertexOrder),
) -> Result<LpOutcome> {
    detect_observed(backend, graph, variant, config, gpu_choices, &|_, _| Ok(()))
}

/// Runs `variant` on `graph` with `backend` (on the GPU with this MFL strategy and vertex
/// order; the CPU takes the strategy's sketch, if any), drawing the iteration bar and telling
/// `observer` about every iteration (its error stops the run: the Python package's Ctrl-C).
pub fn detect_observed(
    backend: &Backend,
    graph: &Graph,
    variant: &Variant,
    config: &LpConfig,
    (strategy, order): (MflStrategy, VertexOrder),
    observer: &IterationObserver<'_>,
) -> Result<LpOutcome> {
    let bar = IterationBar::new(config.max_iterations, graph.num_vertices());
    let observer = |iteration: u32, stats: &IterationStats| {
        bar.iteration(iteration, stats);
        observer(iteration, stats)
    };
    match backend {
        Backend::Cpu => variant.run_on_cpu(&graph.csr, config, strategy, Some(&observer)),
        Backend::Gpu(gpu) => {
            let (kernel, inputs) = variant.kernel();
            let inputs = LpInputs { observer: Some(&observer), ..inputs };
            Ok(run_gpu(gpu, &graph.csr, kernel, config, &inputs, strategy, order).map_err(with_gpu_flags)?.0)
        }
    }
}

/// The variants the demonstration runs beside classic LP: name, variant, what it changes.
fn remedies() -> [(&'static str, Variant, String); 2] {
    let (capped, llp) = (Capped::default(), Llp::default());
    [
        ("capped", Variant::Capped(capped), format!("neighbours of more than {} neighbours do not vote", capped.cap)),
        ("llp", Variant::Llp(llp), format!("labels that many vertices hold are penalised, gamma {}", llp.gamma)),
    ]
}

/// The demonstration's lines for the same run with the variant `name`, which does `what`.
fn remedy_lines(name: &str, what: &str, quality: &QualityReport) -> String {
    let nmi = quality.nmi.as_ref().map_or_else(String::new, |n| format!(", NMI {:.4}", n.value));
    format!(
        "{name:<13}{} communities (largest {}), modularity {:.4}{nmi}\n             (--variant {name}: {what})\n",
        quality.communities.count, quality.communities.max, quality.modularity
    )
}

fn parse_mfl(s: &str) -> std::result::Result<MflStrategy, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

/// Label `label` of a run of `variant` as the user knows it: the input id of the vertex it
/// started at, or, for a run with seeds, the seed file's value of a seed label; `None` when
/// unlabelled.
pub fn label_name(graph: &Graph, variant: &Variant, label: Label) -> Option<u64> {
    match (label, variant.seeds()) {
        (UNLABELLED, _) => None,
        // Seeded LP only spreads seed labels; a variant file may mix them with vertex ids.
        (_, Some(seeds)) => Some(seeds.value(label).unwrap_or_else(|| graph.ids.original(label))),
        (_, None) => Some(graph.ids.original(label)),
    }
}

/// One line per vertex: its input id, a tab, and its label as the user knows it
/// ([`label_name`]; `-` when unlabelled); with memberships (slp) every community of the
/// vertex, tab-separated.
fn labels_text(graph: &Graph, variant: &Variant, outcome: &LpOutcome) -> String {
    let name = |label: Label| label_name(graph, variant, label).map_or_else(|| "-".to_string(), |v| v.to_string());
    let mut text = String::with_capacity(outcome.labels.len() * 16);
    for (v, &label) in outcome.labels.iter().enumerate() {
        let _ = write!(text, "{}", graph.ids.original(v as u32));
        match &outcome.memberships {
            Some(memberships) if !memberships[v].is_empty() => {
                for &community in &memberships[v] {
                    let _ = write!(text, "\t{}", name(community));
                }
            }
            _ => {
                let _ = write!(text, "\t{}", name(label));
            }
        }
        text.push('\n');
    }
    text
}

fn summary(report: &LpReport) -> String {
    let q = &report.quality;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "graph        {} ({} vertices, {} stored edges)",
        report.graph, report.vertices, report.stored_edges
    );
    let threads = if report.threads > 0 { format!(", {} threads", report.threads) } else { String::new() };
    let _ = writeln!(s, "engine       {} {} {}{threads}", report.backend, report.schedule, report.variant);
    let _ = writeln!(
        s,
        "time         {:.2} ms ({} iterations{})",
        report.time_ms,
        report.iterations,
        if report.converged { ", converged" } else { ", iteration cap reached" }
    );
    let _ = writeln!(
        s,
        "communities  {} (largest {}, singletons {})",
        q.communities.count, q.communities.max, q.communities.singletons
    );
    if report.unlabelled_vertices > 0 {
        let _ = writeln!(s, "unlabelled   {} vertices", report.unlabelled_vertices);
    }
    if let Some(overlapping) = report.overlapping_vertices {
        let _ = writeln!(s, "overlapping  {overlapping} vertices in several communities");
    }
    let _ = writeln!(s, "modularity   {:.4}", q.modularity);
    s.push_str(&quality::truth_lines(q, report.truth_coverage.as_ref()));
    s.push_str(&quality::collapse_lines(q));
    s
}
