//! `glp bench sample`: sampling throughput of every built-in sampler on one graph, on the CPU
//! or on a GPU with each `--engine`.
//!
//! Reported per sampler and engine, as NextDoor's evaluation should have been (its "samples
//! per second" is undefined): sampled vertices per second (vertices added to samples, roots
//! excluded) and samples (walks, trees, subgraphs) per second, both from the median time of
//! `--repeat` runs (loading and root drawing excluded; on a GPU the time of the sampling
//! kernels with the graph resident, as NextDoor reports, and the time with the transfers of
//! roots and samples beside it). GPU rows also give the fraction of the device's
//! random-access ceiling, measured in the same run (`glp bench probe`): a sampled vertex is
//! at least one random read of the column array, so sampled vertices per second over the
//! ceiling's reads per second for an array of that size is the share of the hardware used.

use super::backend::BackendArg;
use super::bench::{median_min, print_json};
use super::common::{self, LoadArgs};
use super::output;
use super::sample::{initial_samples, App, AppParams, ClustersArg, RootsArg};
use super::sample_backend::{gpu_option, DeviceMemoryArg, EngineArg, Sampling};
use clap::Args;
use glp_runtime::device::ceiling;
use glp_runtime::io::WeightRule;
use glp_runtime::sample::SampleGraph;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct SampleBenchArgs {
    /// Graph file [default: the bundled email-Eu-core]
    pub graph: Option<PathBuf>,
    /// Samplers to measure, comma-separated [default: all built-in samplers]
    #[arg(long, value_name = "APP,...", value_delimiter = ',')]
    pub apps: Vec<String>,
    /// Samples per run: random roots (layer samplers and multi-root walks: a mini-batch each;
    /// cluster-gcn: groups of clusters) [default: one per vertex, layer samplers one per 64
    /// vertices, cluster-gcn one epoch]
    #[arg(long, value_name = "N")]
    pub roots_random: Option<u64>,
    /// Runs per sampler; the median is reported
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Seed of every random draw
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where to run: cpu, gpu, or auto (a GPU when one opens, else the CPU)
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// GPU engines to measure, comma-separated: sp, tp, auto
    #[arg(long, value_enum, value_name = "ENGINE,...", value_delimiter = ',', default_values_t = [EngineArg::Auto])]
    pub engine: Vec<EngineArg>,
    #[command(flatten)]
    pub device_memory: DeviceMemoryArg,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

/// One row of the report.
#[derive(Debug, Serialize)]
struct SampleBenchRow {
    sampler: String,
    /// cpu, or the GPU engine asked for (sp, tp, auto) and the one that ran.
    engine: String,
    samples: usize,
    sampled_vertices: u64,
    median_ms: f64,
    min_ms: f64,
    sampled_vertices_per_s: f64,
    samples_per_s: f64,
    /// GPU: the median time with the transfers of roots and samples.
    median_with_transfers_ms: Option<f64>,
    /// GPU: sampled vertices per second over the ceiling's random reads per second.
    ceiling_fraction: Option<f64>,
    /// GPU: the most device memory the run's buffers held besides the graph.
    extra_device_bytes: Option<u64>,
    /// GPU, step by step: each step's engine (sp, tp) and time (the last run).
    step_engines: Vec<&'static str>,
    step_ms: Vec<f64>,
    /// GPU, transit-parallel steps: the scheduling index's share of the kernel time, and the
    /// transits of each kernel class (sub-warp, block, grid).
    index_share: Option<f64>,
    transit_classes: Option<[u64; 3]>,
}

#[derive(Debug, Serialize)]
struct SampleBenchReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    backend: &'static str,
    device: Option<String>,
    threads: usize,
    seed: u64,
    /// Bytes of the column array (what steps read at random).
    column_bytes: u64,
    /// GPU: the random-read ceiling for an array of that size, reads/s, measured in this run.
    ceiling_reads_per_s: Option<f64>,
    samplers: Vec<SampleBenchRow>,
}

pub fn run(args: SampleBenchArgs) -> Result<()> {
    if args.repeat == 0 {
        return Err(Error::invalid("--repeat must be at least 1"));
    }
    let params = AppParams {
        walk_length: 100,
        fanouts: vec![25, 10],
        without_replacement: false,
        p: 2.0,
        q: 0.5,
        termination: 0.01,
        layers: 2,
        layer_size: 64,
        file_params: Vec::new(),
    };
    let names: Vec<String> = if args.apps.is_empty() {
        crate::samplers::BUILT_IN.iter().map(|b| b.name.to_string()).collect()
    } else {
        args.apps.clone()
    };
    let apps = names
        .iter()
        .map(|name| match name.as_str() {
            "mvs" => App::new(name, &AppParams { fanouts: vec![10, 10], ..params.clone() }),
            _ => App::new(name, &params),
        })
        .collect::<Result<Vec<App>>>()?;
    let graph = common::load(args.graph.as_deref(), &args.load.with_weights(WeightRule::NonNegative))?;
    let sample_graph = SampleGraph::new(&graph.csr)?;
    let roots = args.roots_random.map_or(RootsArg::Every, RootsArg::Random);
    let sampling = Sampling::open(args.backend, &sample_graph, gpu_option(&args.engine, &args.device_memory))?;
    let column_bytes = graph.csr.num_edges() * 4;
    let ceiling = match &sampling {
        Sampling::Gpu(on) => ceiling::measure_quick(&on.gpu)?.for_array_bytes(column_bytes),
        Sampling::Cpu => None,
    };
    let engines: Vec<Option<EngineArg>> = match sampling {
        Sampling::Cpu => vec![None],
        Sampling::Gpu(_) => args.engine.iter().copied().map(Some).collect(),
    };
    let mut rows = Vec::new();
    for app in &apps {
        let initial = initial_samples(app, &graph, &roots, app.default_batch(), &ClustersArg::Ranges(100), args.seed)?;
        for &engine in &engines {
            let mut times = Vec::with_capacity(args.repeat);
            let mut with_transfers = Vec::with_capacity(args.repeat);
            let mut last = None;
            for _ in 0..args.repeat {
                let run = sampling.run(
                    app,
                    &sample_graph,
                    &initial,
                    args.seed,
                    engine.unwrap_or(EngineArg::Auto),
                    args.device_memory.device_memory,
                )?;
                with_transfers.push(run.outcome.elapsed);
                times
                    .push(run.gpu.as_ref().map_or(run.outcome.elapsed, |g| Duration::from_secs_f64(g.kernel_ms / 1e3)));
                last = Some(run);
            }
            let Some(run) = last else { continue };
            let outcome = &run.outcome;
            let (median, min) = median_min(&mut times);
            let seconds = median.as_secs_f64().max(1e-9);
            let sampled_vertices_per_s = outcome.sampled_vertices() as f64 / seconds;
            rows.push(SampleBenchRow {
                sampler: app.name().to_string(),
                engine: match (engine, &run.gpu) {
                    (Some(asked), Some(stats)) => format!("{}:{}", asked.name(), stats.engine),
                    _ => "cpu".to_string(),
                },
                samples: outcome.num_samples(),
                sampled_vertices: outcome.sampled_vertices(),
                median_ms: median.as_secs_f64() * 1e3,
                min_ms: min.as_secs_f64() * 1e3,
                sampled_vertices_per_s,
                samples_per_s: outcome.num_samples() as f64 / seconds,
                median_with_transfers_ms: run
                    .gpu
                    .as_ref()
                    .map(|_| median_min(&mut with_transfers).0.as_secs_f64() * 1e3),
                ceiling_fraction: ceiling.map(|c| sampled_vertices_per_s / c),
                extra_device_bytes: run.gpu.as_ref().map(|g| g.device_bytes),
                step_engines: run.gpu.as_ref().map_or_else(Vec::new, |g| g.step_engines.clone()),
                step_ms: run.gpu.as_ref().map_or_else(Vec::new, |g| g.step_ms.clone()),
                index_share: run
                    .gpu
                    .as_ref()
                    .filter(|g| g.step_engines.contains(&"tp"))
                    .map(|g| g.index_ms / g.kernel_ms.max(1e-9)),
                transit_classes: run.gpu.as_ref().filter(|g| g.step_engines.contains(&"tp")).map(|g| g.transit_classes),
            });
        }
    }
    let report = SampleBenchReport {
        graph: common::graph_name(args.graph.as_deref()),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        backend: sampling.name(),
        device: sampling.device(),
        threads: rayon::current_num_threads(),
        seed: args.seed,
        column_bytes,
        ceiling_reads_per_s: ceiling,
        samplers: rows,
    };
    if args.json {
        return print_json(&report);
    }
    output::print(&table(&report))
}

fn table(report: &SampleBenchReport) -> String {
    let mut s = String::new();
    let place = match &report.device {
        Some(device) => format!("{device}, GPU engines (kernel time, graph resident)"),
        None => format!("{} threads, CPU engine", report.threads),
    };
    let _ =
        writeln!(s, "{} ({} vertices, {} stored edges), {place}", report.graph, report.vertices, report.stored_edges);
    if let Some(ceiling) = report.ceiling_reads_per_s {
        let _ = writeln!(
            s,
            "ceiling: {:.2} G random reads/s for the {} MiB column array (glp bench probe, this run)",
            ceiling / 1e9,
            report.column_bytes >> 20
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<18} {:<22} {:>9} {:>12} {:>10} {:>16} {:>12} {:>9}",
        "sampler", "engine", "samples", "sampled", "median ms", "sampled verts/s", "samples/s", "ceiling"
    );
    for r in &report.samplers {
        let fraction = r.ceiling_fraction.map_or_else(|| "-".to_string(), |f| format!("{:.1}%", f * 100.0));
        let _ = writeln!(
            s,
            "{:<18} {:<22} {:>9} {:>12} {:>10.2} {:>16.3e} {:>12.3e} {:>9}",
            r.sampler,
            r.engine,
            r.samples,
            r.sampled_vertices,
            r.median_ms,
            r.sampled_vertices_per_s,
            r.samples_per_s,
            fraction
        );
    }
    let stepwise: Vec<&SampleBenchRow> = report.samplers.iter().filter(|r| !r.step_engines.is_empty()).collect();
    if !stepwise.is_empty() {
        let _ = writeln!(s, "\nstep by step (engine ms per step; the scheduling index's share; transits per class)");
        for r in stepwise {
            let steps: Vec<String> = r
                .step_engines
                .iter()
                .zip(&r.step_ms)
                .take(STEPS_SHOWN)
                .map(|(engine, ms)| format!("{engine} {ms:.2}"))
                .collect();
            let more =
                if r.step_ms.len() > STEPS_SHOWN { format!(" ... ({} steps)", r.step_ms.len()) } else { String::new() };
            let index = r.index_share.map_or_else(String::new, |f| format!("; index {:.0}%", f * 100.0));
            let classes = r.transit_classes.map_or_else(String::new, |[sub_warp, block, grid]| {
                format!("; sub-warp {sub_warp}, block {block}, grid {grid}")
            });
            let _ = writeln!(s, "{:<18} {:<22} {}{more}{index}{classes}", r.sampler, r.engine, steps.join(" | "));
        }
    }
    s
}

/// Steps whose times the table shows (the JSON has them all).
const STEPS_SHOWN: usize = 6;
