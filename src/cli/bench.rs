//! `glp bench`: loading throughput and label propagation speed and quality.
//!
//! Benchmarks print a table and, with `--json`, one JSON document for tracking. Times are
//! medians over `--repeat` runs; label propagation time runs from initialised labels to the
//! last iteration (loading, generation and allocation excluded), as GVE-LPA and nu-LPA
//! report it.

use super::common::{self, LoadArgs};
use super::engine::EngineArgs;
use super::gen::RmatArgs;
use clap::{Args, Subcommand};
use glp_runtime::community::GroundTruth;
use glp_runtime::gen::{self, CommunityParams, RmatSampler};
use glp_runtime::graph::Graph;
use glp_runtime::lp::LpOutcome;
use glp_runtime::metrics::QualityReport;
use glp_runtime::{io, Error, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchKind,
}

#[derive(Debug, Subcommand)]
pub enum BenchKind {
    /// Loading throughput (MB/s of text, file to graph). Without FILES, writes an R-MAT
    /// edge list of --scale to a temporary file and loads that.
    Load(LoadBenchArgs),
    /// Label propagation time, iterations, edges/s and quality on one graph: a file, the
    /// bundled graph, or one generated in memory (--rmat, --planted).
    Lp(LpBenchArgs),
}

#[derive(Debug, Args)]
pub struct LoadBenchArgs {
    /// Graph files to load
    pub files: Vec<PathBuf>,
    /// Scale of the generated R-MAT edge list when no file is given (2^SCALE vertices,
    /// 16 * 2^SCALE edges)
    #[arg(long, default_value_t = 20)]
    pub scale: u32,
    /// Loads per file; the median is reported
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Args)]
pub struct LpBenchArgs {
    /// Graph file [default: the bundled email-Eu-core, unless --rmat or --planted]
    pub graph: Option<PathBuf>,
    /// Generate an R-MAT graph of this scale in memory instead of reading a file
    #[arg(long, value_name = "SCALE", conflicts_with_all = ["graph", "planted"])]
    pub rmat: Option<u32>,
    /// Generate a planted-partition graph with this many vertices in memory (its planted
    /// communities are the ground truth)
    #[arg(long, value_name = "VERTICES", conflicts_with = "graph")]
    pub planted: Option<u64>,
    /// Mixing parameter of --planted
    #[arg(long, default_value_t = 0.3)]
    pub mu: f64,
    /// Average degree of --planted
    #[arg(long, default_value_t = 20.0)]
    pub avg_degree: f64,
    /// Seed of the generated graph and of the variant's random numbers
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Ground truth of GRAPH (see `glp lp --help`)
    #[arg(long, value_name = "FILE")]
    pub ground_truth: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Runs; the median time is reported
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

pub fn run(args: BenchArgs) -> Result<()> {
    match args.what {
        BenchKind::Load(args) => bench_load(args),
        BenchKind::Lp(args) => bench_lp(args),
    }
}

#[derive(Debug, Serialize)]
struct LoadResult {
    file: String,
    bytes: u64,
    vertices: usize,
    stored_edges: u64,
    median_s: f64,
    min_s: f64,
    mb_per_s: f64,
    threads: usize,
}

fn bench_load(args: LoadBenchArgs) -> Result<()> {
    check_repeat(args.repeat)?;
    let mut options = args.load.options();
    options.progress = false;
    let generated = if args.files.is_empty() { Some(GeneratedFile::rmat_edge_list(args.scale)?) } else { None };
    let files: Vec<PathBuf> = match &generated {
        Some(g) => vec![g.path.clone()],
        None => args.files.clone(),
    };
    let mut results = Vec::new();
    for file in &files {
        let bytes = std::fs::metadata(file).map_err(|e| Error::io(file, e))?.len();
        let mut times = Vec::new();
        let mut shape = (0, 0);
        for _ in 0..args.repeat {
            let start = Instant::now();
            let graph = io::load_graph(file, &options)?;
            times.push(start.elapsed());
            shape = (graph.num_vertices(), graph.num_edges());
        }
        let (median, min) = median_min(&mut times);
        results.push(LoadResult {
            file: file.display().to_string(),
            bytes,
            vertices: shape.0,
            stored_edges: shape.1,
            median_s: median.as_secs_f64(),
            min_s: min.as_secs_f64(),
            mb_per_s: bytes as f64 / 1e6 / median.as_secs_f64(),
            threads: rayon::current_num_threads(),
        });
    }
    if args.json {
        print_json(&results)?;
    } else {
        println!("{:<40} {:>10} {:>10} {:>12} {:>9} {:>9}", "file", "MB", "vertices", "edges", "median s", "MB/s");
        for r in &results {
            println!(
                "{:<40} {:>10.1} {:>10} {:>12} {:>9.3} {:>9.0}",
                r.file,
                r.bytes as f64 / 1e6,
                r.vertices,
                r.stored_edges,
                r.median_s,
                r.mb_per_s
            );
        }
    }
    Ok(())
}

/// A temporary file removed on drop.
struct GeneratedFile {
    path: PathBuf,
}

impl GeneratedFile {
    /// Writes the R-MAT edges of `scale` as a tab-separated edge list (the SNAP layout).
    fn rmat_edge_list(scale: u32) -> Result<Self> {
        let sampler = RmatSampler::new(&RmatArgs { scale, edge_factor: 16, seed: 1 }.params())?;
        let path = std::env::temp_dir().join(format!("glp-bench-rmat{scale}-{}.txt", std::process::id()));
        let file = GeneratedFile { path };
        eprintln!("writing {} edges to {} ...", sampler.num_edges(), file.path.display());
        let out = std::fs::File::create(&file.path).map_err(|e| Error::io(&file.path, e))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
        const BLOCK: u64 = 1 << 20;
        for block in 0..sampler.num_edges().div_ceil(BLOCK) {
            let end = ((block + 1) * BLOCK).min(sampler.num_edges());
            let text: String = (block * BLOCK..end)
                .into_par_iter()
                .map(|i| {
                    let (s, t) = sampler.edge(i);
                    format!("{s}\t{t}\n")
                })
                .collect();
            out.write_all(text.as_bytes()).map_err(|e| Error::io(&file.path, e))?;
        }
        out.flush().map_err(|e| Error::io(&file.path, e))?;
        Ok(file)
    }
}

impl Drop for GeneratedFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[derive(Debug, Serialize)]
struct LpBenchResult {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    prepare_s: f64,
    schedule: &'static str,
    variant: String,
    threads: usize,
    runs_ms: Vec<f64>,
    median_ms: f64,
    min_ms: f64,
    iterations: usize,
    /// Stored edges times iterations, per second of the median run: the rate an engine that
    /// visits every edge each iteration would need to match.
    edges_per_s: f64,
    quality: QualityReport,
}

fn bench_lp(args: LpBenchArgs) -> Result<()> {
    check_repeat(args.repeat)?;
    let config = args.engine.config(args.seed);
    config.validate()?;
    let checked = args.engine.check()?;
    let start = Instant::now();
    let (name, graph, truth) = prepare_graph(&args)?;
    let prepare_s = start.elapsed().as_secs_f64();
    let variant = args.engine.prepare(checked, &graph)?;
    let mut times = Vec::new();
    let mut last: Option<LpOutcome> = None;
    for _ in 0..args.repeat {
        let outcome = variant.run(&graph.csr, &config)?;
        times.push(outcome.elapsed);
        last = Some(outcome);
    }
    let Some(outcome) = last else { return Err(Error::invalid("--repeat must be at least 1")) };
    let runs_ms = times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
    let (median, min) = median_min(&mut times);
    let quality = QualityReport::new(&graph.csr, &outcome.labels, truth.as_ref())?;
    let iterations = outcome.iterations.len();
    let result = LpBenchResult {
        graph: name,
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        prepare_s,
        schedule: args.engine.schedule_name(),
        variant: args.engine.variant_name(),
        threads: rayon::current_num_threads(),
        runs_ms,
        median_ms: median.as_secs_f64() * 1e3,
        min_ms: min.as_secs_f64() * 1e3,
        iterations,
        edges_per_s: graph.num_edges() as f64 * iterations as f64 / median.as_secs_f64(),
        quality,
    };
    if args.json {
        return print_json(&result);
    }
    let q = &result.quality;
    println!("graph        {} ({} vertices, {} stored edges)", result.graph, result.vertices, result.stored_edges);
    println!(
        "engine       cpu {} {}, {} threads ({} runs)",
        result.schedule, result.variant, result.threads, args.repeat
    );
    println!(
        "time         median {:.2} ms, min {:.2} ms, {} iterations, {:.3e} edges/s",
        result.median_ms, result.min_ms, result.iterations, result.edges_per_s
    );
    println!("communities  {} (largest {})", q.communities.count, q.communities.max);
    println!("modularity   {:.4}", q.modularity);
    if let Some(nmi) = &q.nmi {
        println!("NMI          {:.4}", nmi.value);
    }
    if let Some(onmi) = &q.overlapping_nmi {
        println!("overlap NMI  {:.4}", onmi.nmi_max);
    }
    Ok(())
}

/// The benchmarked graph, its display name and its ground truth.
fn prepare_graph(args: &LpBenchArgs) -> Result<(String, Graph, Option<GroundTruth>)> {
    if let Some(scale) = args.rmat {
        let graph = gen::rmat(&RmatArgs { scale, edge_factor: 16, seed: args.seed }.params())?;
        return Ok((format!("rmat scale {scale}"), graph, None));
    }
    if let Some(vertices) = args.planted {
        let params = CommunityParams {
            num_vertices: vertices,
            avg_degree: args.avg_degree,
            mixing: args.mu,
            seed: args.seed,
            ..CommunityParams::default()
        };
        let (graph, communities) = gen::planted_partition(&params)?;
        return Ok((
            format!("planted {vertices} vertices, mu {}", args.mu),
            graph,
            Some(GroundTruth::Partition(communities)),
        ));
    }
    let graph = common::load(args.graph.as_deref(), &args.load)?;
    let truth = common::ground_truth(args.ground_truth.as_deref(), args.graph.is_none(), &graph)?;
    Ok((common::graph_name(args.graph.as_deref()), graph, truth.map(|t| t.truth)))
}

fn check_repeat(repeat: usize) -> Result<()> {
    if repeat == 0 {
        return Err(Error::invalid("--repeat must be at least 1"));
    }
    Ok(())
}

fn median_min(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[0])
}

fn print_json<T: Serialize>(value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::invalid(format!("JSON output: {e}")))?;
    println!("{text}");
    Ok(())
}
