//! `glp bench sample`: sampling throughput of every built-in sampler on one graph.
//!
//! Reported per sampler, as NextDoor's evaluation should have been (its "samples per second"
//! is undefined): sampled vertices per second (vertices added to samples, roots excluded) and
//! samples (walks, trees, subgraphs) per second, both from the median time of `--repeat`
//! runs of the CPU engine (loading and root drawing excluded).

use super::bench::{median_min, print_json};
use super::common::{self, LoadArgs};
use super::lp::BackendArg;
use super::output;
use super::sample::{check_backend, initial_samples, App, AppParams, ClustersArg, RootsArg};
use clap::Args;
use glp_runtime::io::WeightRule;
use glp_runtime::sample::SampleGraph;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

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
    /// Where to run: cpu (gpu is refused for now; auto samples on the CPU)
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
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
    samples: usize,
    sampled_vertices: u64,
    median_ms: f64,
    min_ms: f64,
    sampled_vertices_per_s: f64,
    samples_per_s: f64,
}

#[derive(Debug, Serialize)]
struct SampleBenchReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    threads: usize,
    seed: u64,
    samplers: Vec<SampleBenchRow>,
}

pub fn run(args: SampleBenchArgs) -> Result<()> {
    if args.repeat == 0 {
        return Err(Error::invalid("--repeat must be at least 1"));
    }
    check_backend(args.backend)?;
    let params = AppParams {
        walk_length: 80,
        fanouts: vec![25, 10],
        without_replacement: false,
        p: 2.0,
        q: 0.5,
        termination: 0.15,
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
    let mut rows = Vec::new();
    for app in &apps {
        let initial = initial_samples(app, &graph, &roots, app.default_batch(), &ClustersArg::Ranges(100), args.seed)?;
        let mut times = Vec::with_capacity(args.repeat);
        let mut last = None;
        for _ in 0..args.repeat {
            let outcome = app.run(&sample_graph, &initial, args.seed)?;
            times.push(outcome.elapsed);
            last = Some(outcome);
        }
        let Some(outcome) = last else { continue };
        let (median, min) = median_min(&mut times);
        let seconds = median.as_secs_f64().max(1e-9);
        rows.push(SampleBenchRow {
            sampler: app.name().to_string(),
            samples: outcome.num_samples(),
            sampled_vertices: outcome.sampled_vertices(),
            median_ms: median.as_secs_f64() * 1e3,
            min_ms: min.as_secs_f64() * 1e3,
            sampled_vertices_per_s: outcome.sampled_vertices() as f64 / seconds,
            samples_per_s: outcome.num_samples() as f64 / seconds,
        });
    }
    let report = SampleBenchReport {
        graph: common::graph_name(args.graph.as_deref()),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        threads: rayon::current_num_threads(),
        seed: args.seed,
        samplers: rows,
    };
    if args.json {
        return print_json(&report);
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ({} vertices, {} stored edges), {} threads, CPU engine\n",
        report.graph, report.vertices, report.stored_edges, report.threads
    );
    let _ = writeln!(
        s,
        "{:<18} {:>9} {:>12} {:>10} {:>16} {:>12}",
        "sampler", "samples", "sampled", "median ms", "sampled verts/s", "samples/s"
    );
    for r in &report.samplers {
        let _ = writeln!(
            s,
            "{:<18} {:>9} {:>12} {:>10.2} {:>16.3e} {:>12.3e}",
            r.sampler, r.samples, r.sampled_vertices, r.median_ms, r.sampled_vertices_per_s, r.samples_per_s
        );
    }
    output::print(&s)
}
