//! `glp lp`: community detection with label propagation.

use super::common::{self, LoadArgs};
use clap::{Args, ValueEnum};
use glp_runtime::device;
use glp_runtime::graph::{Csr, Graph};
use glp_runtime::lp::{self, Classic, LpConfig, LpOutcome, Schedule, TieBreak, Weighted};
use glp_runtime::metrics::QualityReport;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The long help of `glp lp`.
pub const LONG_ABOUT: &str = "Detect communities with label propagation.\n\n\
    Every vertex starts with its own label and repeatedly takes the label that carries the \
    most weight among its neighbours.\n\n\
    Schedules:\n  \
    async  in place, as nu-LPA / GVE-LPA: only vertices whose neighbourhood changed are \
    revisited; every --pick-less-every-th iteration (the first included) a vertex may only \
    move to a smaller label, which stops label swaps; stops after an iteration that is not \
    Pick-Less and changed at most --tolerance of the vertices, or after --iterations (20).\n  \
    sync   double-buffered, as GLP and LDBC CDLP: every vertex reads the previous \
    iteration's labels; deterministic; stops when no label changes or after --iterations \
    (20); ties go to the smallest label, so it reproduces the LDBC CDLP reference outputs.\n\n\
    With no GRAPH, runs on the bundled email-Eu-core graph and scores the result against its \
    department labels.\n\n\
    Output: a summary (time, iterations, communities, modularity, and NMI / ARI or overlapping \
    NMI when a ground truth is given), or JSON with --json; --out writes one `vertex<TAB>label` \
    line per vertex using the input's vertex ids (a label is the input id of the vertex it \
    started at).";

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

    /// Write `vertex<TAB>label` lines here
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

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

/// `--schedule` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    /// Double-buffered, deterministic (GLP, LDBC CDLP)
    Sync,
    /// In place with affected flags, Pick-Less and a tolerance (nu-LPA, GVE-LPA)
    Async,
}

/// `--variant` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VariantArg {
    /// Most frequent neighbour label
    Classic,
    /// Neighbour label with the largest total edge weight
    Weighted,
}

/// `--backend` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// A GPU when one can run the engine, else the CPU
    Auto,
    /// The multi-threaded CPU engine
    Cpu,
    /// A CUDA GPU (an error when none can run the engine)
    Gpu,
}

/// `--ties` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TiesArg {
    /// The smallest label
    Smallest,
    /// The label met first along the vertex's sorted adjacency
    First,
    /// A pseudo-random but deterministic choice per vertex (no bias toward low ids)
    Hashed,
}

/// Options of the label propagation engine, shared by `glp lp` and `glp bench lp`.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Update schedule
    #[arg(long, value_enum, default_value_t = ScheduleArg::Async)]
    pub schedule: ScheduleArg,

    /// Most iterations to run
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub iterations: u32,

    /// Label propagation variant: classic counts neighbours, weighted sums edge weights
    /// (the same on unweighted graphs)
    #[arg(long, value_enum, default_value_t = VariantArg::Classic)]
    pub variant: VariantArg,

    /// Rule for labels with equal scores [default: smallest for sync, first for async]
    #[arg(long, value_enum)]
    pub ties: Option<TiesArg>,

    /// Async schedule: Pick-Less iterations are those divisible by this (0 disables)
    #[arg(long, value_name = "RHO", default_value_t = lp::DEFAULT_PICK_LESS_EVERY)]
    pub pick_less_every: u32,

    /// Async schedule: stop when a non-Pick-Less iteration changes at most this fraction
    /// of the vertices
    #[arg(long, value_name = "TAU", default_value_t = lp::DEFAULT_TOLERANCE)]
    pub tolerance: f64,
}

impl EngineArgs {
    /// The engine configuration these options describe (not yet validated).
    pub fn config(&self) -> LpConfig {
        let (schedule, default_ties) = match self.schedule {
            ScheduleArg::Sync => (Schedule::Synchronous, TieBreak::SmallestLabel),
            ScheduleArg::Async => (
                Schedule::Asynchronous { pick_less_every: self.pick_less_every, tolerance: self.tolerance },
                TieBreak::FirstSeen,
            ),
        };
        let ties = match self.ties {
            None => default_ties,
            Some(TiesArg::Smallest) => TieBreak::SmallestLabel,
            Some(TiesArg::First) => TieBreak::FirstSeen,
            Some(TiesArg::Hashed) => TieBreak::Hashed,
        };
        LpConfig { schedule, max_iterations: self.iterations, ties }
    }

    /// Runs the chosen variant on `csr` with `config` on the CPU.
    pub fn run(&self, csr: &Csr, config: &LpConfig) -> Result<LpOutcome> {
        match self.variant {
            VariantArg::Classic => lp::run(csr, &Classic, config),
            VariantArg::Weighted => lp::run(csr, &Weighted, config),
        }
    }

    /// `sync` or `async`, for reports.
    pub fn schedule_name(&self) -> &'static str {
        match self.schedule {
            ScheduleArg::Sync => "sync",
            ScheduleArg::Async => "async",
        }
    }

    /// `classic` or `weighted`, for reports.
    pub fn variant_name(&self) -> &'static str {
        match self.variant {
            VariantArg::Classic => "classic",
            VariantArg::Weighted => "weighted",
        }
    }
}

/// The JSON document `glp lp --json` prints.
#[derive(Debug, Serialize)]
struct LpReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    backend: &'static str,
    schedule: &'static str,
    variant: &'static str,
    threads: usize,
    iterations: usize,
    converged: bool,
    time_ms: f64,
    changed_per_iteration: Vec<u64>,
    quality: QualityReport,
}

pub fn run(args: LpArgs) -> Result<()> {
    let config = args.engine.config();
    config.validate()?;
    let backend = choose_backend(args.backend)?;
    let graph = common::load(args.graph.as_deref(), &args.load)?;
    let truth = common::ground_truth(args.ground_truth.as_deref(), args.graph.is_none(), &graph)?;
    let outcome = args.engine.run(&graph.csr, &config)?;
    let quality = QualityReport::new(&graph.csr, &outcome.labels, truth.as_ref().map(|t| &t.truth))?;
    if let Some(path) = &args.out {
        write_labels(path, &graph, &outcome)?;
    }
    let report = LpReport {
        graph: common::graph_name(args.graph.as_deref()),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        backend,
        schedule: args.engine.schedule_name(),
        variant: args.engine.variant_name(),
        threads: rayon::current_num_threads(),
        iterations: outcome.iterations.len(),
        converged: outcome.converged,
        time_ms: outcome.elapsed.as_secs_f64() * 1e3,
        changed_per_iteration: outcome.iterations.iter().map(|i| i.changed).collect(),
        quality,
    };
    if args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| Error::invalid(format!("JSON output: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", summary(&report));
    }
    Ok(())
}

/// Picks the engine. Only the CPU engine exists in this version: `auto` says so in one line
/// when it falls back, `gpu` is an error that says why.
fn choose_backend(requested: BackendArg) -> Result<&'static str> {
    const NO_GPU_ENGINE: &str = "this build of glp has no GPU label propagation engine yet";
    match requested {
        BackendArg::Cpu => Ok("cpu"),
        BackendArg::Gpu => match device::probe() {
            Err(e) => Err(e),
            Ok(gpus) => Err(Error::GpuUnavailable(format!("found {}, but {NO_GPU_ENGINE}", gpus[0].name))),
        },
        BackendArg::Auto => {
            let reason = match device::probe() {
                Err(Error::GpuUnavailable(reason)) => reason,
                Err(e) => e.to_string(),
                Ok(gpus) => format!("found {}, but {NO_GPU_ENGINE}", gpus[0].name),
            };
            eprintln!("notice: running on the CPU ({reason})");
            Ok("cpu")
        }
    }
}

fn write_labels(path: &Path, graph: &Graph, outcome: &LpOutcome) -> Result<()> {
    let mut text = String::with_capacity(outcome.labels.len() * 16);
    for (v, &label) in outcome.labels.iter().enumerate() {
        let vertex = graph.ids.original(v as u32);
        if label == glp_runtime::community::UNLABELLED {
            let _ = writeln!(text, "{vertex}\t-");
        } else {
            let _ = writeln!(text, "{vertex}\t{}", graph.ids.original(label));
        }
    }
    common::write_file(path, text.as_bytes())
}

fn summary(report: &LpReport) -> String {
    let q = &report.quality;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "graph        {} ({} vertices, {} stored edges)",
        report.graph, report.vertices, report.stored_edges
    );
    let _ = writeln!(
        s,
        "engine       {} {} {}, {} threads",
        report.backend, report.schedule, report.variant, report.threads
    );
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
    let _ = writeln!(s, "modularity   {:.4}", q.modularity);
    if let (Some(nmi), Some(ari)) = (&q.nmi, &q.ari) {
        let _ = writeln!(s, "NMI          {:.4} ({} vertices compared)", nmi.value, nmi.compared);
        let _ = writeln!(s, "ARI          {:.4}", ari.value);
    }
    if let Some(onmi) = &q.overlapping_nmi {
        let _ = writeln!(s, "overlap NMI  {:.4} (McDaid et al., NMI_max)", onmi.nmi_max);
    }
    s
}
