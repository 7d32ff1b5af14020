//! `glp bench lp --backend gpu`: the GPU engine, one row per MFL strategy.
//!
//! Per strategy: time per iteration (CUDA events) and edges per second per iteration, the
//! run from initialised labels to the last iteration, the same with compilation, planning
//! and host-to-device copies, and with loading or generating the graph too; GPU memory held
//! and what the strategy and schedule add beyond graph, inputs, labels and facilities, per
//! vertex (class lists, flags) and per edge (hash tables, G-Sort's arrays); modularity and
//! NMI; and two fractions of the device's ceilings, measured in the same run: of its copy
//! bandwidth for the bytes an iteration must move at least (each edge's target and its
//! neighbour's label, each vertex's offsets, label and output: `8 E + 20 V` bytes), and of its
//! random-read rate (`glp bench probe`'s independent reads) for an array the size of the
//! labels: every edge reads its neighbour's label at a random place, so a sweep of `E` edges
//! takes at least `E` such reads, and that ceiling, not the copy bandwidth, is what bounds
//! label propagation on graphs whose labels do not fit in L2. With the asynchronous schedule
//! later sweeps visit only affected vertices; edges per second still divide all stored edges
//! by the mean sweep time. Each row names the vertex order the GPU held (`--vertex-order`,
//! decided per strategy); renumbering the rows by degree is part of the upload.

use super::bench::{check_repeat, median_min, print_json, LpBenchArgs};
use super::engine::{with_gpu_flags, Variant};
use super::output;
use super::quality::TruthCoverage;
use glp_runtime::community::GroundTruth;
use glp_runtime::device::{ceiling, DeviceGraph, Gpu};
use glp_runtime::graph::Graph;
use glp_runtime::lp::gpu::{places_by_degree, run_gpu_on, GpuStats};
use glp_runtime::lp::{LpConfig, LpOutcome};
use glp_runtime::metrics::QualityReport;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Instant;

/// The benchmarked graph.
pub struct BenchGraph<'a> {
    pub name: String,
    pub graph: &'a Graph,
    pub truth: Option<&'a GroundTruth>,
    /// How much of the graph the truth labels.
    pub truth_coverage: Option<TruthCoverage>,
    /// Milliseconds spent loading or generating it.
    pub prepare_ms: f64,
}

#[derive(Debug, Serialize)]
struct GpuBenchReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    device: String,
    schedule: &'static str,
    variant: String,
    /// Loading or generating the graph.
    prepare_ms: f64,
    /// With a ground truth: how much of the graph it labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    truth_coverage: Option<TruthCoverage>,
    copy_bandwidth_gb_s: f64,
    /// Bytes of the labels (`4 V`): the array size the gather ceiling is measured for.
    gather_array_bytes: u64,
    /// Independent random reads per second in an array of `gather_array_bytes`, measured in
    /// this run; `None` when the probe measured no size.
    gather_ceiling_reads_per_s: Option<f64>,
    rows: Vec<StrategyRow>,
    /// Strategies whose memory does not fit on the device, with the allocation error.
    not_run: Vec<NotRun>,
}

#[derive(Debug, Serialize)]
struct NotRun {
    mfl: &'static str,
    reason: String,
}

#[derive(Debug, Serialize)]
struct StrategyRow {
    mfl: &'static str,
    /// The order the GPU held the vertices in: `degree` or `graph`.
    vertex_order: &'static str,
    iterations: usize,
    /// Median over runs of the mean device time per iteration.
    iteration_ms: f64,
    edges_per_s_per_iteration: f64,
    /// Iterations only (initialised labels to the last iteration), median run.
    run_ms: f64,
    /// Plus kernel compilation, class planning and host-to-device copies.
    with_setup_ms: f64,
    /// Plus loading or generating the graph.
    with_load_ms: f64,
    compile_ms: f64,
    device_bytes: u64,
    table_bytes: u64,
    table_bytes_per_edge: f64,
    /// Extra bytes beyond graph, inputs, labels, facilities and the per-edge tables, per vertex.
    extra_bytes_per_vertex: f64,
    bandwidth_fraction: f64,
    /// Edges per second per iteration over `gather_ceiling_reads_per_s`.
    of_gather_ceiling: Option<f64>,
    per_iteration_ms: Vec<f64>,
    /// High-class vertex visits whose labels overflowed the shared table: decided by the
    /// count-min sketch, or deferred to the exact kernel (glp and smem).
    high_settled_by_sketch: u64,
    high_deferred: u64,
    modularity: f64,
    nmi: Option<f64>,
}

pub fn bench_lp_gpu(args: &LpBenchArgs, bench: &BenchGraph<'_>, variant: &Variant, config: &LpConfig) -> Result<()> {
    check_repeat(args.repeat)?;
    let gpu = Gpu::open(0)?;
    let csr = &bench.graph.csr;
    let bandwidth = gpu.copy_bandwidth(1 << 30)?;
    let label_bytes = 4 * csr.num_vertices() as u64;
    let gather_ceiling = ceiling::measure_quick(&gpu)?.for_array_bytes(label_bytes);
    let (kernel, inputs) = variant.kernel();
    let weights = kernel.features().edge_weights;
    // The graph goes to the GPU once per vertex order, for every strategy and repeat that
    // uses it: the runs' setup times cover the kernels, the plan and the run's own buffers;
    // the upload is added to each strategy's `with_setup_ms`, as when every run uploaded its
    // own copy. One copy is held at a time.
    let mut placed: Option<(bool, DeviceGraph, std::time::Duration)> = None;
    let mut rows = Vec::new();
    let mut not_run = Vec::new();
    'strategies: for &strategy in &args.mfl {
        let by_degree = places_by_degree(&gpu, csr, kernel, strategy, args.vertex_order.order())?;
        if placed.as_ref().map(|(order, ..)| *order) != Some(by_degree) {
            drop(placed.take()); // the other order's copy leaves the GPU first
            let upload_start = Instant::now();
            let graph = match by_degree {
                true => DeviceGraph::upload_by_degree(&gpu, csr, weights)?,
                false => DeviceGraph::upload(&gpu, csr, weights)?,
            };
            placed = Some((by_degree, graph, upload_start.elapsed()));
        }
        let (_, graph, upload) = placed.as_ref().ok_or_else(|| Error::invalid("internal: no graph on the GPU"))?;
        let upload = *upload;
        let mut runs: Vec<(LpOutcome, GpuStats)> = Vec::new();
        for _ in 0..args.repeat {
            match run_gpu_on(&gpu, graph, kernel, config, &inputs, strategy) {
                Ok(run) => runs.push(run),
                // A strategy that does not fit is a result of the comparison (nu-LPA's hash
                // tables on a large graph), not the end of it.
                Err(e @ Error::GpuOutOfMemory { .. }) => {
                    not_run.push(NotRun { mfl: strategy.name(), reason: with_gpu_flags(e).to_string() });
                    continue 'strategies;
                }
                Err(e) => return Err(e),
            }
        }
        let mut times: Vec<_> = runs.iter().map(|(o, _)| o.elapsed).collect();
        let (median, _) = median_min(&mut times);
        let (outcome, stats) =
            runs.iter().find(|(o, _)| o.elapsed == median).ok_or_else(|| Error::invalid("no run to report"))?;
        let iterations = outcome.iterations.len().max(1);
        let mut per_iteration: Vec<f64> =
            runs.iter().map(|(_, s)| s.iteration_ms.iter().sum::<f64>() / s.iteration_ms.len().max(1) as f64).collect();
        per_iteration.sort_by(f64::total_cmp);
        let iteration_ms = per_iteration[per_iteration.len() / 2];
        let edges = csr.num_edges() as f64;
        let bytes = 8.0 * edges + 20.0 * csr.num_vertices() as f64;
        let quality = QualityReport::new(csr, &outcome.labels, bench.truth)?;
        let run_ms = median.as_secs_f64() * 1e3;
        let with_setup_ms = run_ms + (stats.compile + stats.setup + upload).as_secs_f64() * 1e3;
        rows.push(StrategyRow {
            mfl: strategy.name(),
            vertex_order: if by_degree { "degree" } else { "graph" },
            iterations,
            iteration_ms,
            edges_per_s_per_iteration: edges / (iteration_ms / 1e3),
            run_ms,
            with_setup_ms,
            with_load_ms: with_setup_ms + bench.prepare_ms,
            compile_ms: stats.compile.as_secs_f64() * 1e3,
            device_bytes: stats.device_bytes,
            table_bytes: stats.table_bytes,
            table_bytes_per_edge: stats.table_bytes as f64 / edges.max(1.0),
            extra_bytes_per_vertex: stats.device_bytes.saturating_sub(stats.base_bytes + stats.table_bytes) as f64
                / (csr.num_vertices() as f64).max(1.0),
            bandwidth_fraction: bytes / (iteration_ms / 1e3) / bandwidth,
            of_gather_ceiling: gather_ceiling.map(|reads| edges / (iteration_ms / 1e3) / reads),
            per_iteration_ms: stats.iteration_ms.clone(),
            high_settled_by_sketch: stats.high_class.settled_by_sketch,
            high_deferred: stats.high_class.deferred,
            modularity: quality.modularity,
            nmi: quality.nmi.as_ref().map(|n| n.value),
        });
    }
    let report = GpuBenchReport {
        graph: bench.name.clone(),
        vertices: csr.num_vertices(),
        stored_edges: csr.num_edges(),
        device: gpu.info().name.clone(),
        schedule: args.engine.schedule_name(),
        variant: args.engine.variant_name(),
        prepare_ms: bench.prepare_ms,
        truth_coverage: bench.truth_coverage,
        copy_bandwidth_gb_s: bandwidth / 1e9,
        gather_array_bytes: label_bytes,
        gather_ceiling_reads_per_s: gather_ceiling,
        rows,
        not_run,
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
        "device       {}, copy bandwidth {:.0} GB/s; {} {}, {} runs per strategy; graph prepared in {:.0} ms",
        report.device, report.copy_bandwidth_gb_s, report.schedule, report.variant, args.repeat, report.prepare_ms
    );
    let gather = report.gather_ceiling_reads_per_s.map_or("-".into(), |r| format!("{:.2} G", r / 1e9));
    let _ = writeln!(
        s,
        "ceiling      {gather} random reads/s in a {}-byte array, the labels' size (glp bench probe, this run)",
        report.gather_array_bytes
    );
    if let Some(coverage) = &report.truth_coverage {
        let _ = writeln!(s, "truth        {}", coverage.describe());
    }
    let _ = writeln!(
        s,
        "{:<7} {:<6} {:>5} {:>10} {:>12} {:>10} {:>12} {:>12} {:>10} {:>10} {:>9} {:>9} {:>7} {:>9} {:>10} {:>7}",
        "mfl",
        "order",
        "iters",
        "ms/iter",
        "Gedges/s/it",
        "run ms",
        "+setup ms",
        "+load ms",
        "compile",
        "GPU MB",
        "table B/e",
        "extra B/v",
        "of bw",
        "of gather",
        "modularity",
        "NMI"
    );
    for r in &report.rows {
        let _ = writeln!(
            s,
            "{:<7} {:<6} {:>5} {:>10.3} {:>12.2} {:>10.2} {:>12.1} {:>12.1} {:>10.1} {:>10.1} {:>9.2} {:>9.2} {:>6.1}% {:>9} {:>10.4} {:>7}",
            r.mfl,
            r.vertex_order,
            r.iterations,
            r.iteration_ms,
            r.edges_per_s_per_iteration / 1e9,
            r.run_ms,
            r.with_setup_ms,
            r.with_load_ms,
            r.compile_ms,
            r.device_bytes as f64 / 1e6,
            r.table_bytes_per_edge,
            r.extra_bytes_per_vertex,
            100.0 * r.bandwidth_fraction,
            r.of_gather_ceiling.map_or("-".to_string(), |f| format!("{:.1}%", 100.0 * f)),
            r.modularity,
            r.nmi.map_or("-".to_string(), |n| format!("{n:.4}"))
        );
    }
    for r in &report.not_run {
        let _ = writeln!(s, "{:<7} does not fit: {}", r.mfl, r.reason);
    }
    output::print(&s)
}
