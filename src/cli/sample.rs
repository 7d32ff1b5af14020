//! `glp sample`: graph sampling with the built-in samplers (random walks, k-hop
//! neighbourhoods, layer-wise and cluster samplers) on the CPU engine, written as walks or
//! subgraphs that NumPy, PyG and DGL read directly.

use super::backend::BackendArg;
use super::common::{self, LoadArgs};
use super::console;
use super::output::{self, Content, Destination, Outputs};
use super::sample_backend::{gpu_option, DeviceMemoryArg, EngineArg, PlacementArg, RunOptions, Sampling};
use super::sample_output::{OutputFormat, SampleWriter};
pub use super::sample_roots::{initial_samples, ClustersArg, RootsArg};
use crate::samplers::{
    ClusterGcn, DeepWalk, FastGcn, KHop, Ladies, Layer, MultiRootWalk, Mvs, Node2vec, Ppr, WeightedDeepWalk, MAX_HOPS,
};
use clap::Args;
use glp_runtime::io::WeightRule;
use glp_runtime::sample::{
    self, CompiledSampler, InitialSamples, InterpretedSampler, SampleConfig, SampleGraph, SampleOutcome, SampleSink,
    Sampler, StreamSummary,
};
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The long help of `glp sample`.
pub const LONG_ABOUT: &str = "Sample random walks or subgraphs from a graph (NextDoor's samplers).\n\n\
    Samplers (APP):\n  \
    deepwalk           uniform random walks of --walk-length steps, one per root\n  \
    weighted-deepwalk  random walks along edges in proportion to their weight\n  \
    ppr                walks ended with probability --termination before each step (at most \
    --walk-length steps): personalized PageRank\n  \
    node2vec           second-order walks: back with bias 1/--p, to a common neighbour 1, \
    outward 1/--q\n  \
    khop               GraphSAGE's k-hop neighbourhoods: --fanouts 25,10 neighbours per vertex \
    and hop, with replacement unless --without-replacement\n  \
    layer              --layers layers of --layer-size distinct vertices drawn from the edges \
    of the layer above\n  \
    fastgcn            layers of --layer-size vertices drawn in proportion to their degree \
    among the neighbours of the layer above\n  \
    ladies             LADIES's layer-dependent importance sampling\n  \
    mvs                minimal-variance neighbour sampling: one hop per --fanouts entry (all \
    equal), neighbours drawn in proportion to 1/sqrt(degree) (equal embedding norms)\n  \
    cluster-gcn        the subgraph induced by --batch-size clusters: those of a partition \
    file (--clusters FILE: `vertex cluster` lines, e.g. communities from `glp lp --out`), or \
    --clusters C consecutive ranges of vertex ids\n  \
    multi-root-walk    --batch-size walkers, the one that moves chosen by degree (frontier \
    sampling)\n  \
    FILE.rs            a sampler written in Rust: a struct whose fields are its parameters and \
    `impl Sampler for` it, as in src/samplers/ (errors point at file:line:col); every parameter \
    its hooks read is given with --param NAME=VALUE, parsed as the field's type. It runs on the \
    interpreter and gives the samples the same Rust compiled into glp would. Its `validate` is \
    not run (it is host code): check the parameters you give. Also --sampler FILE.rs\n\n\
    Samples start from every vertex (one sample each; layer samplers: consecutive groups of \
    --batch-size vertices; cluster-gcn: every group of --batch-size clusters, in an order \
    drawn from --seed), from the vertex ids of --roots FILE (one per line), or from \
    --roots-random N samples of random roots. The same --seed gives the same samples whatever \
    the thread count.\n\n\
    Outputs (--out FILE, by its extension; vertex ids are those of the input file):\n  \
    .npy  walk samplers: a 2-D int64 array, one row per sample (its roots, then one vertex per \
    step), padded with -1\n  \
    .npz  a NumPy archive (numpy.load gives a dictionary): walk samplers: `walks` as above; \
    the others: the samples as disjoint subgraphs, the arrays of PyG's SamplerOutput: `node` \
    (graph id of each local vertex, hop by hop: all roots, then the vertices first reached at \
    step 0, ...), `batch` (the sample of each local vertex), `row` and `col` (local ids of \
    each sampled edge: the vertex drawn and the vertex it was drawn from, so \
    np.stack([row, col]) is PyG's edge_index), `num_sampled_nodes` (per hop) and \
    `num_sampled_edges` (per step)\n  \
    other, or -  text: walk samplers one line per walk (ids separated by spaces), the others \
    one `sample<TAB>step<TAB>from<TAB>vertex` line per sampled edge\n\n\
    The summary (or JSON with --json, times in milliseconds) gives the sampled vertices per \
    second (vertices added to samples, roots excluded) and the samples per second.\n\n\
    On a GPU (--backend gpu, or auto when one opens) the samples are the CPU's, bit for bit: \
    walks run several walkers per thread, other samplers one sample per thread or warp \
    (--engine sp), or NextDoor's transit-parallel steps (--engine tp); auto picks per step.\n\n\
    Samples are computed and written batch by batch (--batch-samples; on a GPU, batches also \
    fit --device-memory, and the next batch runs while the last one is written), so memory \
    holds a few batches and the output may exceed the host's and the GPU's memory. A graph \
    beyond --device-memory keeps its edges in pinned host memory (--placement): walks copy \
    it to the GPU partition by partition, other samplers read it over the bus. The output is the same whatever the batch size; a run that fails leaves no \
    output file (nor changes an existing one).";

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// The sampler: deepwalk, weighted-deepwalk, ppr, node2vec, khop, layer, fastgcn, ladies,
    /// mvs, cluster-gcn, multi-root-walk, or a FILE.rs (see above)
    #[arg(value_name = "APP", required_unless_present = "sampler")]
    pub app: Option<String>,

    /// Graph file (any supported format) [default: the bundled email-Eu-core]
    pub graph: Option<PathBuf>,

    /// Steps of a walk (ppr: the most steps)
    #[arg(long, value_name = "L", default_value_t = 80)]
    pub walk_length: u32,

    /// khop: neighbours drawn per vertex of each hop, comma-separated (1 to 4 hops); mvs: the
    /// same, every hop with the same fan-out
    #[arg(long, value_name = "F1,F2,...", value_delimiter = ',', default_values_t = [25u32, 10])]
    pub fanouts: Vec<u32>,

    /// khop: draw the neighbours of a vertex without replacement
    #[arg(long)]
    pub without_replacement: bool,

    /// node2vec: return parameter (> 0)
    #[arg(long, value_name = "P", default_value_t = 1.0, allow_negative_numbers = true)]
    pub p: f64,

    /// node2vec: in-out parameter (> 0)
    #[arg(long, value_name = "Q", default_value_t = 1.0, allow_negative_numbers = true)]
    pub q: f64,

    /// ppr: probability of ending a walk before each step, in (0, 1)
    #[arg(long, value_name = "A", default_value_t = 0.15, allow_negative_numbers = true)]
    pub termination: f64,

    /// layer, fastgcn, ladies: layers below the roots
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub layers: u32,

    /// layer, fastgcn, ladies: vertices per layer
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub layer_size: u32,

    /// Roots per sample (layer, fastgcn, ladies, khop: a mini-batch; multi-root-walk: the
    /// walkers; cluster-gcn: clusters) [default: 64 for layer samplers, 10 walkers, 1
    /// otherwise]
    #[arg(long, value_name = "B")]
    pub batch_size: Option<u32>,

    /// cluster-gcn: the clusters: a number C (the vertex ids cut into C consecutive ranges) or
    /// a partition FILE of `vertex cluster` lines (e.g. communities written by `glp lp --out`)
    #[arg(long, value_name = "C|FILE", default_value = "100")]
    pub clusters: String,

    /// Roots: one vertex id per line
    #[arg(long, value_name = "FILE", conflicts_with = "roots_random")]
    pub roots: Option<PathBuf>,

    /// N samples of random roots
    #[arg(long, value_name = "N")]
    pub roots_random: Option<u64>,

    /// Seed of every random draw
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Where to run: cpu, gpu, or auto (a GPU when one opens, else the CPU); the GPU gives
    /// the CPU's samples, bit for bit
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,

    /// The GPU engine: sp (sample-parallel), tp (transit-parallel) or auto (chosen per step)
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    #[command(flatten)]
    pub device_memory: DeviceMemoryArg,

    /// Where the GPU keeps the graph: auto, device, zero-copy (edges in host memory, read over
    /// the bus) or partitions (edges in host memory, copied partition by partition for walks)
    #[arg(long, value_enum, default_value_t = PlacementArg::Auto)]
    pub placement: PlacementArg,

    /// Samples per batch: samples are computed and written batch by batch, so memory holds a
    /// few batches, not the whole output (smaller batches take less memory; on the CPU, very
    /// small ones keep fewer threads busy) [default: 2048 per thread on the CPU, 1048576 on a GPU, fewer
    /// when --device-memory holds fewer]
    #[arg(long, value_name = "N")]
    pub batch_samples: Option<u64>,

    /// A sampler written in Rust, instead of APP (the first path is then the graph)
    #[arg(long, value_name = "FILE.rs")]
    pub sampler: Option<PathBuf>,

    /// A parameter of a FILE.rs sampler, NAME=VALUE (repeatable): every field its hooks read,
    /// parsed as the field's type (no defaults). Built-in samplers take the options above
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Write the samples here: .npy, .npz or text (see above); `-` is standard output (text)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub load: LoadArgs,
}

/// The samplers of a command line: the built-ins with their parameters, or a file.
#[derive(Debug, Clone)]
pub enum App {
    DeepWalk(DeepWalk),
    WeightedDeepWalk(WeightedDeepWalk),
    Ppr(Ppr),
    Node2vec(Node2vec),
    KHop(KHop),
    Layer(Layer),
    FastGcn(FastGcn),
    Ladies(Ladies),
    Mvs(Mvs),
    ClusterGcn(ClusterGcn),
    MultiRootWalk(MultiRootWalk),
    /// A sampler written in a file, run on the interpreter.
    File(Box<FileSampler>),
}

/// A sampler read from a file.
#[derive(Debug, Clone)]
pub struct FileSampler {
    /// The file, as given.
    pub path: String,
    pub sampler: InterpretedSampler,
}

/// Runs `$body` with `$s` bound to the sampler inside `$app`, monomorphised per sampler.
macro_rules! with_sampler {
    ($app:expr, $s:ident => $body:expr) => {
        match $app {
            App::DeepWalk($s) => $body,
            App::WeightedDeepWalk($s) => $body,
            App::Ppr($s) => $body,
            App::Node2vec($s) => $body,
            App::KHop($s) => $body,
            App::Layer($s) => $body,
            App::FastGcn($s) => $body,
            App::Ladies($s) => $body,
            App::Mvs($s) => $body,
            App::ClusterGcn($s) => $body,
            App::MultiRootWalk($s) => $body,
            App::File(file) => {
                let $s = &file.sampler;
                $body
            }
        }
    };
}

/// The parameters of the samplers, as the command lines give them.
#[derive(Debug, Clone, PartialEq)]
pub struct AppParams {
    pub walk_length: u32,
    pub fanouts: Vec<u32>,
    pub without_replacement: bool,
    pub p: f64,
    pub q: f64,
    pub termination: f64,
    pub layers: u32,
    pub layer_size: u32,
    /// `--param NAME=VALUE` assignments (sampler files only).
    pub file_params: Vec<String>,
}

impl App {
    /// The sampler named `name` with `params`; errors name the option at fault. A name
    /// ending in `.rs` is a sampler file ([`App::file`]).
    pub fn new(name: &str, params: &AppParams) -> Result<App> {
        if name.ends_with(".rs") {
            return App::file(Path::new(name), &params.file_params);
        }
        if let Some(given) = params.file_params.first() {
            return Err(Error::invalid(format!(
                "--param {given}: --param sets the parameters of a FILE.rs sampler; {name} takes the options of \
                 `glp sample --help`"
            )));
        }
        let length = params.walk_length;
        let needs_length = matches!(name, "deepwalk" | "weighted-deepwalk" | "ppr" | "node2vec" | "multi-root-walk");
        if needs_length && length == 0 {
            return Err(Error::invalid("--walk-length must be at least 1"));
        }
        if matches!(name, "layer" | "fastgcn" | "ladies") && (params.layers == 0 || params.layer_size == 0) {
            return Err(Error::invalid("--layers and --layer-size must be at least 1"));
        }
        let (layers, size) = (params.layers, params.layer_size);
        let app = match name {
            "deepwalk" => App::DeepWalk(DeepWalk { length }),
            "weighted-deepwalk" => App::WeightedDeepWalk(WeightedDeepWalk { length }),
            "ppr" => App::Ppr(Ppr { termination: params.termination, max_length: length }),
            "node2vec" => App::Node2vec(Node2vec { length, p: params.p, q: params.q }),
            "khop" => {
                if let Some(h) = params.fanouts.iter().position(|&f| f == 0) {
                    return Err(Error::invalid(format!("--fanouts: the fan-out of hop {} is 0 (at least 1)", h + 1)));
                }
                let khop = KHop::new(&params.fanouts, !params.without_replacement).ok_or_else(|| {
                    Error::invalid(format!("--fanouts takes 1 to {MAX_HOPS} fan-outs (got {})", params.fanouts.len()))
                })?;
                App::KHop(khop)
            }
            "layer" => App::Layer(Layer { layers, size }),
            "fastgcn" => App::FastGcn(FastGcn { layers, size }),
            "ladies" => App::Ladies(Ladies { layers, size }),
            "mvs" => {
                if params.fanouts.contains(&0) || params.fanouts.is_empty() {
                    return Err(Error::invalid("--fanouts: every fan-out must be at least 1"));
                }
                if params.fanouts.iter().any(|&f| f != params.fanouts[0]) {
                    return Err(Error::invalid(
                        "--fanouts: mvs draws the same fan-out at every hop (e.g. --fanouts 10,10 for 2 hops)",
                    ));
                }
                App::Mvs(Mvs { hops: params.fanouts.len() as u32, fanout: params.fanouts[0] })
            }
            "cluster-gcn" => App::ClusterGcn(ClusterGcn),
            "multi-root-walk" => App::MultiRootWalk(MultiRootWalk { length }),
            other => {
                let names: Vec<&str> = crate::samplers::BUILT_IN.iter().map(|b| b.name).collect();
                return Err(Error::invalid(format!(
                    "unknown sampler `{other}`: expected one of {} or a FILE.rs",
                    names.join(", ")
                )));
            }
        };
        with_sampler!(&app, s => s.validate())?;
        Ok(app)
    }

    /// The sampler in the file `path`, compiled, with its parameters from `--param`
    /// assignments. Its host methods (`validate`) are not run: a warning says so.
    pub fn file(path: &Path, assignments: &[String]) -> Result<App> {
        let sampler =
            common::compile_program_file("", "sampler", path, assignments, InterpretedSampler::from_source::<String>)?;
        let skipped = sampler.skipped_host_methods();
        if !skipped.is_empty() {
            let names: Vec<String> = skipped.iter().map(|m| format!("`{m}`")).collect();
            console::warning(format!(
                "{}: {} of `{}` not run: host code (ordinary Rust) runs only in samplers compiled into glp; \
                 the hooks run on the interpreter, so check the parameters you give",
                path.display(),
                names.join(", "),
                sampler.name()
            ));
        }
        Ok(App::File(Box::new(FileSampler { path: path.display().to_string(), sampler })))
    }

    /// The name `glp sample` takes (the file for a sampler file).
    pub fn name(&self) -> &str {
        match self {
            App::File(file) => &file.path,
            App::DeepWalk(_) => "deepwalk",
            App::WeightedDeepWalk(_) => "weighted-deepwalk",
            App::Ppr(_) => "ppr",
            App::Node2vec(_) => "node2vec",
            App::KHop(_) => "khop",
            App::Layer(_) => "layer",
            App::FastGcn(_) => "fastgcn",
            App::Ladies(_) => "ladies",
            App::Mvs(_) => "mvs",
            App::ClusterGcn(_) => "cluster-gcn",
            App::MultiRootWalk(_) => "multi-root-walk",
        }
    }

    /// Whether a sample is a walk (one vertex per step), written as rows of vertices. A
    /// sampler file is a walk when each of its steps draws once from one transit: an
    /// individual sampler drawing 1 vertex per step, whose transits are what it added.
    pub fn is_walk(&self) -> bool {
        match self {
            App::File(file) => {
                let s = &file.sampler;
                s.sampling() == sample::INDIVIDUAL
                    && s.next_transits() == sample::ADDED
                    && (0..s.steps()).all(|step| s.sample_size(step) == 1)
            }
            _ => matches!(
                self,
                App::DeepWalk(_) | App::WeightedDeepWalk(_) | App::Ppr(_) | App::Node2vec(_) | App::MultiRootWalk(_)
            ),
        }
    }

    /// Roots per sample when `--batch-size` is not given.
    pub fn default_batch(&self) -> u32 {
        match self {
            App::Layer(_) | App::FastGcn(_) | App::Ladies(_) => 64,
            App::MultiRootWalk(_) => 10,
            _ => 1,
        }
    }

    /// Whether samples may have several roots (a walk of a file has one).
    pub(super) fn takes_batches(&self) -> bool {
        match self {
            App::File(_) => !self.is_walk(),
            _ => !matches!(self, App::DeepWalk(_) | App::WeightedDeepWalk(_) | App::Ppr(_) | App::Node2vec(_)),
        }
    }

    /// The sampler as compiled (its hooks' CUDA, for the GPU engines).
    pub fn compiled(&self) -> &dyn CompiledSampler {
        with_sampler!(self, s => s as &dyn CompiledSampler)
    }

    /// Runs the sampler on the CPU engine, handing the samples to `sink` in batches of
    /// `batch_samples`.
    pub fn run_streamed(
        &self,
        graph: &SampleGraph<'_>,
        initial: &InitialSamples,
        seed: u64,
        batch_samples: usize,
        sink: &mut SampleSink<'_>,
    ) -> Result<StreamSummary> {
        let config = SampleConfig { seed };
        with_sampler!(self, s => sample::run_streamed(graph, s, initial, &config, batch_samples, sink))
    }

    /// Runs the sampler on the CPU engine, its samples gathered into one outcome batch by
    /// batch (`batch_samples` a batch), `progress` called after each with the samples done.
    pub fn run_gathered(
        &self,
        graph: &SampleGraph<'_>,
        initial: &InitialSamples,
        seed: u64,
        batch_samples: usize,
        progress: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<SampleOutcome> {
        let config = SampleConfig { seed };
        with_sampler!(self, s => sample::run_gathered(graph, s, initial, &config, batch_samples, progress))
    }
}

/// The JSON document `glp sample --json` prints.
#[derive(Debug, Serialize)]
struct SampleReport {
    graph: String,
    vertices: usize,
    stored_edges: u64,
    sampler: String,
    backend: &'static str,
    /// The GPU's name (GPU runs).
    device: Option<String>,
    /// The GPU engine that ran: walks, ring-walks, partitioned-walks, per-sample,
    /// warp-per-sample or step-by-step (GPU runs).
    engine: Option<&'static str>,
    /// Where the GPU kept the graph: device, zero-copy or partitions (GPU runs).
    placement: Option<&'static str>,
    /// Time of the GPU's sampling kernels alone (GPU runs; time_ms adds the transfers).
    kernel_ms: Option<f64>,
    seed: u64,
    threads: usize,
    samples: u64,
    /// Vertices added to samples (roots excluded).
    sampled_vertices: u64,
    time_ms: f64,
    sampled_vertices_per_s: f64,
    samples_per_s: f64,
}

pub fn run(args: SampleArgs) -> Result<()> {
    let (app_name, graph_path) = match (&args.sampler, &args.app, &args.graph) {
        (None, Some(app), graph) => (app.clone(), graph.clone()),
        (Some(file), None, graph) => (file.display().to_string(), graph.clone()),
        (Some(file), Some(first), None) => (file.display().to_string(), Some(PathBuf::from(first))),
        (Some(_), Some(first), Some(graph)) => {
            return Err(Error::invalid(format!(
                "--sampler gives the sampler: expected at most one GRAPH, got `{first}` and `{}`",
                graph.display()
            )));
        }
        (None, None, _) => return Err(Error::invalid("expected a sampler: APP, FILE.rs or --sampler FILE.rs")),
    };
    if args.sampler.as_ref().is_some_and(|file| file.extension().is_none_or(|e| e != "rs")) {
        let file = args.sampler.as_ref().map(|f| f.display().to_string()).unwrap_or_default();
        return Err(Error::invalid(format!("--sampler {file}: expected a Rust source file (FILE.rs)")));
    }
    let params = AppParams {
        walk_length: args.walk_length,
        fanouts: args.fanouts.clone(),
        without_replacement: args.without_replacement,
        p: args.p,
        q: args.q,
        termination: args.termination,
        layers: args.layers,
        layer_size: args.layer_size,
        file_params: args.params.clone(),
    };
    let app = App::new(&app_name, &params)?;
    if args.batch_samples == Some(0) {
        return Err(Error::invalid("--batch-samples must be at least 1"));
    }
    let out = match &args.out {
        Some(path) => {
            let format = OutputFormat::of(path);
            let content = if format == OutputFormat::Text { Content::Text } else { Content::Binary };
            if format == OutputFormat::Npy && !app.is_walk() {
                return Err(Error::invalid(format!(
                    "--out {}: {} samples subgraphs, which take several arrays: write them to a .npz file",
                    path.display(),
                    app.name()
                )));
            }
            Some((Destination::check("--out", path, content)?, format))
        }
        None => None,
    };
    let roots = match (&args.roots, args.roots_random) {
        (Some(path), _) => RootsArg::File(path.clone()),
        (None, Some(count)) => RootsArg::Random(count),
        (None, None) => RootsArg::Every,
    };
    let batch = args.batch_size.unwrap_or(app.default_batch());
    let graph = common::load(graph_path.as_deref(), &args.load.with_weights(WeightRule::NonNegative))?;
    let clusters = ClustersArg::parse(&args.clusters);
    let initial = initial_samples(&app, &graph, &roots, batch, &clusters, args.seed)?;
    let sample_graph = SampleGraph::of(&graph)?;
    let gpu_options = gpu_option(&[args.engine], &args.device_memory, &[args.placement]);
    let sampling =
        Sampling::open(args.backend, &sample_graph, gpu_options, args.placement, args.device_memory.device_memory)?;
    let options = RunOptions {
        seed: args.seed,
        engine: args.engine,
        device_memory: args.device_memory.device_memory,
        batch_samples: Some(args.batch_samples.unwrap_or(sampling.default_batch_samples())),
    };
    let run_into = |sink: &mut SampleSink<'_>| sampling.run_streamed(&app, &sample_graph, &initial, &options, sink);
    let mut outputs = Outputs::new();
    let run = match &out {
        Some((destination, format)) => outputs.stage_with(destination, |path| {
            let mut writer = SampleWriter::create(path, destination.error_path(), *format, &app, &graph, &initial)?;
            let run = run_into(&mut |batch| writer.write(&batch))?;
            writer.finish()?;
            Ok(run)
        })?,
        None => run_into(&mut |_| Ok(()))?,
    };
    let totals = run.summary;
    let seconds = totals.elapsed.as_secs_f64().max(1e-9);
    let report = SampleReport {
        graph: common::graph_name(graph_path.as_deref()),
        vertices: graph.num_vertices(),
        stored_edges: graph.num_edges(),
        sampler: app.name().to_string(),
        backend: sampling.name(),
        device: sampling.device(),
        engine: run.gpu.as_ref().map(|stats| stats.engine),
        placement: run.gpu.as_ref().map(|stats| stats.placement),
        kernel_ms: run.gpu.as_ref().map(|stats| stats.kernel_ms),
        seed: args.seed,
        threads: rayon::current_num_threads(),
        samples: totals.samples,
        sampled_vertices: totals.sampled_vertices,
        time_ms: totals.elapsed.as_secs_f64() * 1e3,
        sampled_vertices_per_s: totals.sampled_vertices as f64 / seconds,
        samples_per_s: totals.samples as f64 / seconds,
    };
    let text = if args.json { output::json(&report)? } else { summary(&report) };
    outputs.stage_report(text);
    outputs.commit()
}

fn summary(r: &SampleReport) -> String {
    let place = match (&r.device, r.engine, r.placement) {
        (Some(device), Some(engine), Some(placement)) => {
            format!("on {device} ({engine} engine, graph placed: {placement}, seed {})", r.seed)
        }
        _ => format!("on the CPU ({} threads, seed {})", r.threads, r.seed),
    };
    let kernels = r.kernel_ms.map_or_else(String::new, |ms| format!(" ({ms:.1} ms in the sampling kernels)"));
    format!(
        "graph        {} ({} vertices, {} stored edges)\n\
         sampler      {} {place}\n\
         samples      {} ({} sampled vertices)\n\
         time         {:.1} ms{kernels}: {:.3e} sampled vertices/s, {:.3e} samples/s\n",
        r.graph,
        r.vertices,
        r.stored_edges,
        r.sampler,
        r.samples,
        r.sampled_vertices,
        r.time_ms,
        r.sampled_vertices_per_s,
        r.samples_per_s
    )
}
