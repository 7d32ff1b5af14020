//! `glp bench`: loading throughput, label propagation speed and quality, and kernel compile
//! and cache times.
//!
//! Benchmarks print a table and, with `--json`, one JSON document for tracking (times in
//! milliseconds, fields ending in `_ms`). Times are medians over `--repeat` runs; label propagation time runs from initialised labels to the
//! last iteration (loading, generation and allocation excluded), as GVE-LPA and nu-LPA
//! report it.

use super::common::{self, LoadArgs};
use super::console;
use super::engine::EngineArgs;
use super::gen::RmatArgs;
use super::limits;
use super::output;
use super::quality::TruthCoverage;
use clap::{Args, Subcommand};
use glp_runtime::community::GroundTruth;
use glp_runtime::gen::{self, CommunityParams, RmatSampler};
use glp_runtime::graph::Graph;
use glp_runtime::lp::gpu::MflStrategy;
use glp_runtime::lp::LpOutcome;
use glp_runtime::metrics::QualityReport;
use glp_runtime::{io, Error, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
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
    Lp(Box<LpBenchArgs>),
    /// Kernel compile times: for each built-in variant's reference kernel, the cold NVRTC
    /// compile (empty cache) and the load from the on-disk kernel cache (a fresh in-memory
    /// cache on the same folder, as a new process sees it). Needs NVRTC, not a GPU.
    Compile(CompileBenchArgs),
    /// Sampling throughput of every built-in sampler (sampled vertices/s and samples/s) on
    /// one graph, on the CPU engine or the GPU's (--backend), with the fraction of the
    /// device's measured ceiling.
    Sample(Box<super::bench_sample::SampleBenchArgs>),
    /// Edge programs (bfs, sssp, wcc, sswp, pr) on one graph: iterations, time to
    /// convergence, edges/s, Graph500 TEPS for BFS, and the fraction of the ceiling measured
    /// in the same run, on the CPU engine or the GPU's edge-centric engine (--backend).
    Run(Box<super::bench_run::RunBenchArgs>),
    /// The GPU's memory ceilings: random reads per second in device memory (1 to 32
    /// dependent chains per thread, and independent reads) on arrays from 8 MiB to 4 GiB,
    /// copy rates, and zero-copy reads of pinned host memory
    Probe(super::bench_probe::ProbeArgs),
}

#[derive(Debug, Args)]
pub struct CompileBenchArgs {
    /// GPU architecture compiled for
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    /// Cold compiles and cache loads per variant; the median is reported
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LoadBenchArgs {
    /// Graph files to load
    pub files: Vec<PathBuf>,
    /// Scale of the generated R-MAT edge list when no file is given (2^SCALE vertices,
    /// 16 * 2^SCALE edges, about 20 bytes each in the temporary directory; SCALE in 1..=31,
    /// refused when loading it needs more memory than the machine has)
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
    /// Generate an R-MAT graph of this scale in memory instead of reading a file (see `glp
    /// gen rmat --help` for the range)
    #[arg(long, value_name = "SCALE", conflicts_with_all = ["graph", "planted"])]
    pub rmat: Option<u32>,
    /// Generate a planted-partition graph with this many vertices in memory (its planted
    /// communities are the ground truth; see `glp gen planted --help` for the range)
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
    /// Engine: cpu, or gpu (see `glp lp --help`)
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    pub backend: String,
    /// Strategies to compare, comma-separated (glp, smem, global, sort, hash, mg2, mg4, mg8,
    /// mg16, mg32, mg, bm): one row each, the ablation of GLP's Table 6 with `--mfl
    /// global,smem,glp`, both baselines with `--mfl sort,global,smem,glp`, nu-LPA's sketches
    /// against its hash tables with `--mfl glp,hash,mg8,bm`. With --backend cpu: glp (the
    /// exact search) and the sketches' CPU twins
    #[arg(long, value_name = "LIST", default_value = "glp", value_delimiter = ',', value_parser = parse_mfl)]
    pub mfl: Vec<MflStrategy>,
    /// The order in which the GPU holds the vertices (each row says which it used)
    #[arg(long, value_enum, default_value_t = super::run::VertexOrderArg::Auto)]
    pub vertex_order: super::run::VertexOrderArg,
    #[command(flatten)]
    pub load: LoadArgs,
}

fn parse_mfl(s: &str) -> std::result::Result<MflStrategy, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

pub fn run(args: BenchArgs) -> Result<()> {
    match args.what {
        BenchKind::Load(args) => bench_load(args),
        BenchKind::Lp(args) => bench_lp(*args),
        BenchKind::Compile(args) => bench_compile(args),
        BenchKind::Sample(args) => super::bench_sample::run(*args),
        BenchKind::Probe(args) => super::bench_probe::run(args),
        BenchKind::Run(args) => super::bench_run::run(*args),
    }
}

#[derive(Debug, Serialize)]
struct LoadResult {
    file: String,
    bytes: u64,
    vertices: usize,
    stored_edges: u64,
    median_ms: f64,
    min_ms: f64,
    mb_per_s: f64,
    threads: usize,
}

fn bench_load(args: LoadBenchArgs) -> Result<()> {
    check_repeat(args.repeat)?;
    if args.files.is_empty() {
        limits::check_memory(&format!("--scale {}", args.scale), limits::rmat_bytes(args.scale, 16))?;
    }
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
            median_ms: median.as_secs_f64() * 1e3,
            min_ms: min.as_secs_f64() * 1e3,
            mb_per_s: bytes as f64 / 1e6 / median.as_secs_f64(),
            threads: rayon::current_num_threads(),
        });
    }
    if args.json {
        return print_json(&results);
    }
    let mut s = String::new();
    let _ =
        writeln!(s, "{:<40} {:>10} {:>10} {:>12} {:>10} {:>9}", "file", "MB", "vertices", "edges", "median ms", "MB/s");
    for r in &results {
        let _ = writeln!(
            s,
            "{:<40} {:>10.1} {:>10} {:>12} {:>10.1} {:>9.0}",
            r.file,
            r.bytes as f64 / 1e6,
            r.vertices,
            r.stored_edges,
            r.median_ms,
            r.mb_per_s
        );
    }
    output::print(&s)
}

/// A temporary file removed on drop.
struct GeneratedFile {
    path: PathBuf,
}

impl GeneratedFile {
    /// Writes the R-MAT edges of `scale` as a tab-separated edge list (the SNAP layout).
    fn rmat_edge_list(scale: u32) -> Result<Self> {
        let sampler = RmatSampler::new(
            &RmatArgs { scale, edge_factor: 16, seed: 1, drop_isolated: false, weighted: false }.params(),
        )?;
        let path = std::env::temp_dir().join(format!("glp-bench-rmat{scale}-{}.txt", std::process::id()));
        let file = GeneratedFile { path };
        console::status(format_args!("writing {} edges to {} ...", sampler.num_edges(), file.path.display()));
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
struct LpBenchReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    /// Loading or generating the graph.
    prepare_ms: f64,
    schedule: &'static str,
    variant: String,
    threads: usize,
    /// With a ground truth: how much of the graph it labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    truth_coverage: Option<TruthCoverage>,
    rows: Vec<CpuStrategyRow>,
}

/// One `--mfl` strategy on the CPU: the exact search (`glp`) or a sketch's CPU twin.
#[derive(Debug, Serialize)]
struct CpuStrategyRow {
    mfl: &'static str,
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
    let on_gpu = args.backend == "gpu";
    let config = args.engine.config(args.seed, on_gpu);
    config.validate()?;
    args.vertex_order.needs_gpu_run(on_gpu)?;
    if on_gpu {
        super::engine::check_gpu(&config, &args.mfl)?;
    } else {
        for &strategy in &args.mfl {
            super::engine::cpu_search(strategy)?;
        }
    }
    let variant = args.engine.check()?;
    if let Some(scale) = args.rmat {
        limits::check_memory(&format!("--rmat {scale}"), limits::rmat_bytes(scale, 16))?;
    }
    if let Some(vertices) = args.planted {
        limits::check_memory(&format!("--planted {vertices}"), limits::planted_bytes(vertices, args.avg_degree))?;
    }
    let start = Instant::now();
    let (name, graph, truth) = prepare_graph(&args)?;
    let prepare_ms = start.elapsed().as_secs_f64() * 1e3;
    let truth_coverage = truth.as_ref().map(|t| TruthCoverage::of(t, graph.num_vertices()));
    let variant = args.engine.read_seeds(variant, &graph)?;
    if on_gpu {
        let graph =
            super::bench_gpu::BenchGraph { name, graph: &graph, truth: truth.as_ref(), truth_coverage, prepare_ms };
        return super::bench_gpu::bench_lp_gpu(&args, &graph, &variant, &config);
    }
    let mut rows = Vec::new();
    for &strategy in &args.mfl {
        let mut times = Vec::new();
        let mut last: Option<LpOutcome> = None;
        for _ in 0..args.repeat {
            let outcome = variant.run_on_cpu(&graph.csr, &config, strategy, None)?;
            times.push(outcome.elapsed);
            last = Some(outcome);
        }
        let Some(outcome) = last else { return Err(Error::invalid("--repeat must be at least 1")) };
        let runs_ms = times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
        let (median, min) = median_min(&mut times);
        let iterations = outcome.iterations.len();
        rows.push(CpuStrategyRow {
            mfl: strategy.name(),
            runs_ms,
            median_ms: median.as_secs_f64() * 1e3,
            min_ms: min.as_secs_f64() * 1e3,
            iterations,
            edges_per_s: graph.num_edges() as f64 * iterations as f64 / median.as_secs_f64(),
            quality: QualityReport::new(&graph.csr, &outcome.labels, truth.as_ref())?,
        });
    }
    let report = LpBenchReport {
        graph: name,
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        prepare_ms,
        schedule: args.engine.schedule_name(),
        variant: args.engine.variant_name(),
        threads: rayon::current_num_threads(),
        truth_coverage,
        rows,
    };
    if args.json {
        return print_json(&report);
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "graph        {} ({} vertices, {} stored edges)",
        report.graph, report.vertices, report.stored_edges
    );
    let _ = writeln!(
        s,
        "engine       cpu {} {}, {} threads ({} runs per strategy)",
        report.schedule, report.variant, report.threads, args.repeat
    );
    if let Some(coverage) = &report.truth_coverage {
        let _ = writeln!(s, "truth        {}", coverage.describe());
    }
    for row in &report.rows {
        let q = &row.quality;
        let _ = writeln!(
            s,
            "{:<12} median {:.2} ms, min {:.2} ms, {} iterations, {:.3e} edges/s",
            row.mfl, row.median_ms, row.min_ms, row.iterations, row.edges_per_s
        );
        let _ = writeln!(s, "             communities {} (largest {})", q.communities.count, q.communities.max);
        let _ = writeln!(s, "             modularity  {:.4}", q.modularity);
        if let Some(nmi) = &q.nmi {
            let _ = writeln!(s, "             NMI         {:.4}", nmi.value);
        }
        if let Some(onmi) = &q.overlapping_nmi {
            let _ = writeln!(s, "             overlap NMI {:.4}", onmi.nmi_max);
        }
    }
    output::print(&s)
}

/// The figures `glp bench compile` names as targets.
const COLD_TARGET_MS: f64 = 1000.0;
const DISK_TARGET_MS: f64 = 20.0;

#[derive(Debug, Serialize)]
struct CompileBenchReport {
    arch: String,
    nvrtc_version: String,
    repeat: usize,
    /// The first NVRTC call of the process (loading the library, compiling an empty
    /// kernel), kept out of the variants' cold times.
    nvrtc_first_call_ms: f64,
    cold_target_ms: f64,
    disk_target_ms: f64,
    variants: Vec<CompileBenchResult>,
}

#[derive(Debug, Serialize)]
struct CompileBenchResult {
    variant: String,
    source_bytes: usize,
    ptx_bytes: usize,
    /// Key derivation, NVRTC compile and entry write, with an empty cache folder.
    cold_runs_ms: Vec<f64>,
    cold_median_ms: f64,
    /// Key derivation, entry read and checks, in a fresh in-memory cache on the same folder.
    disk_runs_ms: Vec<f64>,
    disk_median_ms: f64,
    /// A repeated request to the same cache (key derivation and map lookup).
    memory_median_ms: f64,
    meets_targets: bool,
}

fn bench_compile(args: CompileBenchArgs) -> Result<()> {
    use crate::variants::{Classic, Llp, Seeded, Slp, Weighted};
    use glp_runtime::device::cache::KernelCache;
    use glp_runtime::device::nvrtc;
    use glp_runtime::lp::CompiledVariant;

    check_repeat(args.repeat)?;
    let (major, minor) = nvrtc::version()?;
    let start = Instant::now();
    nvrtc::compile_ptx("glp_bench_warmup.cu", "extern \"C\" __global__ void glp_bench_warmup() {}\n", &args.arch)?;
    let nvrtc_first_call_ms = start.elapsed().as_secs_f64() * 1e3;

    let variants: [(&str, &dyn CompiledVariant); 5] = [
        ("classic", &Classic),
        ("weighted", &Weighted),
        ("llp", &Llp::default()),
        ("slp", &Slp::default()),
        ("seeded", &Seeded),
    ];
    let mut results = Vec::new();
    for (name, variant) in variants {
        let source = glp_codegen::kinds::lp::reference_kernel_source(variant.device_functions())
            .map_err(|e| Error::KernelCompile(format!("{name}: {e}")))?;
        let file_name = format!("{}.cu", variant.name());
        let (mut cold, mut disk, mut memory) = (Vec::new(), Vec::new(), Vec::new());
        let mut ptx_bytes = 0;
        for run in 0..args.repeat {
            let dir = TempDir::new(&format!("glp-bench-kernels-{}-{name}-{run}", std::process::id()))?;
            let first = KernelCache::new(Some(dir.path.clone()));
            let start = Instant::now();
            let ptx = first.ptx(&file_name, &source, &args.arch)?;
            cold.push(start.elapsed());
            let stats = first.stats();
            if stats.compiles != 1 || stats.disk_writes != 1 {
                return Err(Error::KernelCompile(format!(
                    "the kernel cache could not write to {} ({stats:?})",
                    dir.path.display()
                )));
            }
            let fresh = KernelCache::new(Some(dir.path.clone()));
            let start = Instant::now();
            let loaded = fresh.ptx(&file_name, &source, &args.arch)?;
            disk.push(start.elapsed());
            let start = Instant::now();
            fresh.ptx(&file_name, &source, &args.arch)?;
            memory.push(start.elapsed());
            let stats = fresh.stats();
            if stats.disk_hits != 1 || stats.compiles != 0 || loaded != ptx {
                return Err(Error::KernelCompile(format!("{name}: the cache entry was not loaded back ({stats:?})")));
            }
            ptx_bytes = ptx.len();
        }
        let ms = |times: &[Duration]| times.iter().map(|t| t.as_secs_f64() * 1e3).collect::<Vec<f64>>();
        let (cold_runs_ms, disk_runs_ms) = (ms(&cold), ms(&disk));
        let cold_median_ms = median_min(&mut cold).0.as_secs_f64() * 1e3;
        let disk_median_ms = median_min(&mut disk).0.as_secs_f64() * 1e3;
        results.push(CompileBenchResult {
            variant: name.to_string(),
            source_bytes: source.len(),
            ptx_bytes,
            cold_runs_ms,
            cold_median_ms,
            disk_runs_ms,
            disk_median_ms,
            memory_median_ms: median_min(&mut memory).0.as_secs_f64() * 1e3,
            meets_targets: cold_median_ms < COLD_TARGET_MS && disk_median_ms < DISK_TARGET_MS,
        });
    }
    let report = CompileBenchReport {
        arch: args.arch.clone(),
        nvrtc_version: format!("{major}.{minor}"),
        repeat: args.repeat,
        nvrtc_first_call_ms,
        cold_target_ms: COLD_TARGET_MS,
        disk_target_ms: DISK_TARGET_MS,
        variants: results,
    };
    if args.json {
        return print_json(&report);
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "NVRTC {} for {}, median of {} (first NVRTC call of the process: {:.0} ms, not counted)",
        report.nvrtc_version, report.arch, report.repeat, report.nvrtc_first_call_ms
    );
    let _ = writeln!(
        s,
        "targets: cold compile < {COLD_TARGET_MS:.0} ms, load from the disk cache < {DISK_TARGET_MS:.0} ms"
    );
    let _ = writeln!(
        s,
        "{:<10} {:>10} {:>8} {:>10} {:>10} {:>11} {:>8}",
        "variant", "source KB", "PTX KB", "cold ms", "disk ms", "memory ms", "targets"
    );
    for r in &report.variants {
        let _ = writeln!(
            s,
            "{:<10} {:>10.1} {:>8.1} {:>10.1} {:>10.2} {:>11.3} {:>8}",
            r.variant,
            r.source_bytes as f64 / 1e3,
            r.ptx_bytes as f64 / 1e3,
            r.cold_median_ms,
            r.disk_median_ms,
            r.memory_median_ms,
            if r.meets_targets { "met" } else { "MISSED" }
        );
    }
    output::print(&s)
}

/// A folder under the system's temporary folder, removed with its contents on drop.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new(name: &str) -> Result<Self> {
        let path = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The benchmarked graph, its display name and its ground truth.
fn prepare_graph(args: &LpBenchArgs) -> Result<(String, Graph, Option<GroundTruth>)> {
    if let Some(scale) = args.rmat {
        let graph = gen::rmat(
            &RmatArgs { scale, edge_factor: 16, seed: args.seed, drop_isolated: false, weighted: false }.params(),
        )?;
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
    let graph = common::load_for_lp(args.graph.as_deref(), &args.load)?;
    let truth = common::ground_truth(args.ground_truth.as_deref(), args.graph.is_none(), &graph)?;
    Ok((common::graph_name(args.graph.as_deref()), graph, truth.map(|t| t.truth)))
}

pub(super) fn check_repeat(repeat: usize) -> Result<()> {
    if repeat == 0 {
        return Err(Error::invalid("--repeat must be at least 1"));
    }
    Ok(())
}

pub(super) fn median_min(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[0])
}

pub(super) fn print_json<T: Serialize>(value: &T) -> Result<()> {
    output::print(&output::json(value)?)
}
