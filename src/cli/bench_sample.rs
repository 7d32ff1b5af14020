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
//! CPU rows give the same against the CPU's probe (`glp bench probe --backend cpu`, in the
//! same run): a walk step there is two dependent reads (the row's offsets, then the
//! neighbour), so the ceiling is half the dependent random reads per second.
//!
//! With `--with-output`, rows also give the time the host takes to turn a run's samples into
//! the arrays `glp sample`'s `.npy` and `.npz` files and the Python API's results are made of
//! (walk rows; the numbering as PyG's disjoint subgraphs): what a user waits for beside the
//! sampling, before the ids are converted and written.
//!
//! With `--placement` (a graph whose edges stay in host memory), rows also give the bytes of
//! partitions copied, the rate they were copied at while the walks ran, and its fraction of
//! the probe's pinned host-to-device copy rate, measured in the same run.

use super::backend::BackendArg;
use super::bench::{median_min, print_json};
use super::common::{self, LoadArgs};
use super::output;
use super::sample::{initial_samples, App, AppParams, ClustersArg, RootsArg};
use super::sample_backend::SampleRun;
use super::sample_backend::{gpu_option, DeviceMemoryArg, EngineArg, PlacementArg, Sampling};
use clap::Args;
use glp_runtime::device::ceiling::{self, HostMemory};
use glp_runtime::host_ceiling;
use glp_runtime::io::WeightRule;
use glp_runtime::sample::gpu::Placement;
use glp_runtime::sample::{SampleGraph, SampleOutcome};
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    /// Where the GPU keeps the graph, comma-separated (each measured): auto, device,
    /// zero-copy, partitions
    #[arg(long, value_enum, value_name = "PLACEMENT,...", value_delimiter = ',', default_values_t = [PlacementArg::Auto])]
    pub placement: Vec<PlacementArg>,
    /// Also time, after each run, turning its samples into the arrays `.npy`/`.npz` outputs and
    /// the Python API's results are made of (walk rows; PyG's disjoint subgraphs), on the host
    #[arg(long)]
    pub with_output: bool,
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
    /// GPU: where the graph was (device, zero-copy, partitions).
    placement: Option<&'static str>,
    samples: usize,
    sampled_vertices: u64,
    median_ms: f64,
    min_ms: f64,
    sampled_vertices_per_s: f64,
    samples_per_s: f64,
    /// GPU: the median time with the transfers of roots and samples.
    median_with_transfers_ms: Option<f64>,
    /// With `--with-output`: the median time of turning a run's samples into output arrays.
    output_ms: Option<f64>,
    /// Sampled vertices per second over the ceiling's: its random reads per second on the GPU,
    /// half its dependent random reads per second on the CPU.
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
    /// GPU, partitioned walks (the last run): bytes of partitions copied, passes over the
    /// partitions, visits read over the bus, the copy rate over the run's time (bytes/s) and
    /// its fraction of the probe's pinned copy rate.
    copied_bytes: Option<u64>,
    passes: Option<u32>,
    bus_visits: Option<u64>,
    copy_bytes_per_s: Option<f64>,
    copy_fraction: Option<f64>,
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
    /// The random-read ceiling for an array of that size, reads/s, measured in this run
    /// (the CPU's: dependent reads, `glp bench probe --backend cpu`).
    ceiling_reads_per_s: Option<f64>,
    /// GPU, with a placement in host memory: the probe's pinned host-to-device copy rate
    /// (bytes/s) and zero-copy random reads of host memory (reads/s), measured in this run.
    pinned_copy_bytes_per_s: Option<f64>,
    zero_copy_reads_per_s: Option<f64>,
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
    let sample_graph = SampleGraph::of(&graph)?;
    let roots = args.roots_random.map_or(RootsArg::Every, RootsArg::Random);
    let gpu_options = gpu_option(&args.engine, &args.device_memory, &args.placement);
    let column_bytes = graph.csr.num_edges() * 4;
    let mut rows = Vec::new();
    let (mut backend, mut device, mut ceiling, mut host_rates) = ("cpu", None, None, None);
    // Dependent reads a sampled vertex costs at the ceiling: one on the GPU (a packed edge
    // holds the next row), two on the CPU (the row's offsets, then the neighbour).
    let mut reads_per_vertex = 1.0;
    for (index, &placement) in args.placement.iter().enumerate() {
        let sampling =
            Sampling::open(args.backend, &sample_graph, gpu_options, placement, args.device_memory.device_memory)?;
        (backend, device) = (sampling.name(), sampling.device());
        if index == 0 {
            if let Sampling::Gpu(on) = &sampling {
                let in_host_memory = on.graph.placement() != Placement::Device
                    || args.placement.iter().any(|&p| p == PlacementArg::ZeroCopy || p == PlacementArg::Partitions);
                let measured = if in_host_memory {
                    ceiling::measure_quick_with_host(&on.gpu)?
                } else {
                    ceiling::measure_quick(&on.gpu)?
                };
                ceiling = measured.for_array_bytes(column_bytes);
                host_rates = measured.host.clone();
            } else {
                ceiling = host_ceiling::measure().for_array(column_bytes);
                reads_per_vertex = 2.0;
            }
        }
        let engines: Vec<Option<EngineArg>> = match sampling {
            Sampling::Cpu => vec![None],
            Sampling::Gpu(_) => args.engine.iter().copied().map(Some).collect(),
        };
        for app in &apps {
            let initial =
                initial_samples(app, &graph, &roots, app.default_batch(), &ClustersArg::Ranges(100), args.seed)?;
            for &engine in &engines {
                let mut times = RunTimes::default();
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
                    times.with_transfers.push(run.outcome.elapsed);
                    times.sampling.push(
                        run.gpu.as_ref().map_or(run.outcome.elapsed, |g| Duration::from_secs_f64(g.kernel_ms / 1e3)),
                    );
                    if args.with_output {
                        times.outputs.push(output_time(app, &run.outcome)?);
                    }
                    last = Some(run);
                }
                let Some(run) = last else { continue };
                let vertex_ceiling = ceiling.map(|reads| reads / reads_per_vertex);
                rows.push(row_of(app, engine, &run, &mut times, vertex_ceiling, host_rates.as_ref()));
            }
        }
    }
    let report = SampleBenchReport {
        graph: common::graph_name(args.graph.as_deref()),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        backend,
        device,
        threads: rayon::current_num_threads(),
        seed: args.seed,
        column_bytes,
        ceiling_reads_per_s: ceiling,
        pinned_copy_bytes_per_s: host_rates.as_ref().and_then(|h| h.copy_bytes_per_s),
        zero_copy_reads_per_s: host_rates.as_ref().map(|h| h.random_reads_per_s),
        samplers: rows,
    };
    if args.json {
        return print_json(&report);
    }
    output::print(&table(&report))
}

/// The times of a row's runs.
#[derive(Default)]
struct RunTimes {
    /// The sampling's (on a GPU, its kernels').
    sampling: Vec<Duration>,
    /// On a GPU, with the transfers of roots and samples.
    with_transfers: Vec<Duration>,
    /// With `--with-output`: turning the samples into output arrays.
    outputs: Vec<Duration>,
}

/// The report's row of `app` on `engine` (`None`: the CPU) from its last run and the times of
/// every run.
fn row_of(
    app: &App,
    engine: Option<EngineArg>,
    run: &SampleRun,
    times: &mut RunTimes,
    ceiling: Option<f64>,
    host_rates: Option<&HostMemory>,
) -> SampleBenchRow {
    let outcome = &run.outcome;
    let (median, min) = median_min(&mut times.sampling);
    let seconds = median.as_secs_f64().max(1e-9);
    let sampled_vertices_per_s = outcome.sampled_vertices() as f64 / seconds;
    let gpu = run.gpu.as_ref();
    let streamed = gpu.filter(|g| g.copied_bytes > 0);
    let copy_bytes_per_s = streamed.map(|g| g.copied_bytes as f64 / (g.kernel_ms.max(1e-9) / 1e3));
    SampleBenchRow {
        sampler: app.name().to_string(),
        engine: match (engine, gpu) {
            (Some(asked), Some(stats)) => format!("{}:{}", asked.name(), stats.engine),
            _ => "cpu".to_string(),
        },
        placement: gpu.map(|g| g.placement),
        samples: outcome.num_samples(),
        sampled_vertices: outcome.sampled_vertices(),
        median_ms: median.as_secs_f64() * 1e3,
        min_ms: min.as_secs_f64() * 1e3,
        sampled_vertices_per_s,
        samples_per_s: outcome.num_samples() as f64 / seconds,
        median_with_transfers_ms: gpu.map(|_| median_min(&mut times.with_transfers).0.as_secs_f64() * 1e3),
        output_ms: (!times.outputs.is_empty()).then(|| median_min(&mut times.outputs).0.as_secs_f64() * 1e3),
        ceiling_fraction: ceiling.map(|c| sampled_vertices_per_s / c),
        extra_device_bytes: gpu.map(|g| g.device_bytes),
        step_engines: gpu.map_or_else(Vec::new, |g| g.step_engines.clone()),
        step_ms: gpu.map_or_else(Vec::new, |g| g.step_ms.clone()),
        index_share: gpu.filter(|g| g.step_engines.contains(&"tp")).map(|g| g.index_ms / g.kernel_ms.max(1e-9)),
        transit_classes: gpu.filter(|g| g.step_engines.contains(&"tp")).map(|g| g.transit_classes),
        copied_bytes: streamed.map(|g| g.copied_bytes),
        passes: streamed.map(|g| g.passes),
        bus_visits: streamed.map(|g| g.bus_visits),
        copy_bytes_per_s,
        copy_fraction: copy_bytes_per_s
            .zip(host_rates.and_then(|h| h.copy_bytes_per_s))
            .map(|(rate, probe)| rate / probe),
    }
}

/// The time of turning `outcome` into the arrays of an output: walk rows (int64, padded) for
/// a walk sampler, the numbering as PyG's disjoint subgraphs for the others (the arrays freed
/// after the time is taken).
fn output_time(app: &App, outcome: &SampleOutcome) -> Result<Duration> {
    let start = Instant::now();
    let (rows, subgraphs) = if app.is_walk() {
        (Some(outcome.walk_rows(i64::from, -1)?), None)
    } else {
        (None, Some(outcome.subgraphs()?))
    };
    let elapsed = start.elapsed();
    drop(std::hint::black_box((rows, subgraphs)));
    Ok(elapsed)
}

fn table(report: &SampleBenchReport) -> String {
    let mut s = String::new();
    let place = match &report.device {
        Some(device) => format!("{device}, GPU engines (kernel time, graph placed before the runs)"),
        None => format!("{} threads, CPU engine", report.threads),
    };
    let _ =
        writeln!(s, "{} ({} vertices, {} stored edges), {place}", report.graph, report.vertices, report.stored_edges);
    match (report.ceiling_reads_per_s, &report.device) {
        (Some(ceiling), Some(_)) => {
            let _ = writeln!(
                s,
                "ceiling: {:.2} G random reads/s for the {} MiB column array (glp bench probe, this run)",
                ceiling / 1e9,
                report.column_bytes >> 20
            );
        }
        (Some(ceiling), None) => {
            let _ = writeln!(
                s,
                "ceiling: {:.1} M dependent random reads/s for the {} MiB column array, a sampled vertex two of them \
                 (glp bench probe --backend cpu, this run)",
                ceiling / 1e6,
                report.column_bytes >> 20
            );
        }
        (None, _) => {}
    }
    if let Some(copy) = report.pinned_copy_bytes_per_s {
        let zero_copy = report
            .zero_copy_reads_per_s
            .map_or_else(String::new, |r| format!("; zero-copy random reads of host memory: {:.1} M/s", r / 1e6));
        let _ =
            writeln!(s, "pinned host-to-device copies: {:.1} GB/s{zero_copy} (glp bench probe, this run)", copy / 1e9);
    }
    let _ = writeln!(s);
    let with_output = report.samplers.iter().any(|r| r.output_ms.is_some());
    let _ = writeln!(
        s,
        "{:<18} {:<22} {:<10} {:>9} {:>12} {:>10} {:>16} {:>12} {:>9}{}",
        "sampler",
        "engine",
        "placement",
        "samples",
        "sampled",
        "median ms",
        "sampled verts/s",
        "samples/s",
        "ceiling",
        if with_output { format!(" {:>10}", "output ms") } else { String::new() }
    );
    for r in &report.samplers {
        let fraction = r.ceiling_fraction.map_or_else(|| "-".to_string(), |f| format!("{:.1}%", f * 100.0));
        let output = r.output_ms.map_or_else(String::new, |ms| format!(" {ms:>10.2}"));
        let _ = writeln!(
            s,
            "{:<18} {:<22} {:<10} {:>9} {:>12} {:>10.2} {:>16.3e} {:>12.3e} {:>9}{output}",
            r.sampler,
            r.engine,
            r.placement.unwrap_or("-"),
            r.samples,
            r.sampled_vertices,
            r.median_ms,
            r.sampled_vertices_per_s,
            r.samples_per_s,
            fraction
        );
    }
    let streamed: Vec<&SampleBenchRow> = report.samplers.iter().filter(|r| r.copied_bytes.is_some()).collect();
    if !streamed.is_empty() {
        let _ = writeln!(s, "\npartitions copied while the walks ran (the last run)");
        for r in streamed {
            let fraction =
                r.copy_fraction.map_or_else(String::new, |f| format!(", {:.0}% of the pinned copy rate", f * 100.0));
            let _ = writeln!(
                s,
                "{:<18} {:<22} {:.2} GB in {} passes ({} partition visits over the bus): {:.1} GB/s{fraction}",
                r.sampler,
                r.engine,
                r.copied_bytes.unwrap_or(0) as f64 / 1e9,
                r.passes.unwrap_or(0),
                r.bus_visits.unwrap_or(0),
                r.copy_bytes_per_s.unwrap_or(0.0) / 1e9
            );
        }
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
