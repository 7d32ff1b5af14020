//! Pieces several subcommands share: graph loading options, the bundled graph and ground
//! truths.

use super::console;
use super::quality::TruthCoverage;
use clap::{Args, ValueEnum};
use glp_runtime::graph::{directed_neighbourhoods, BuildOptions, DuplicateEdges, Graph};
use glp_runtime::io::{self, Columns, Format, LoadOptions, TruthFile, WeightRule};
use glp_runtime::Result;
use std::path::Path;

/// The graph bundled into the binary: SNAP email-Eu-core (1005 vertices, 25571 directed
/// edges, CRLF line ends) and its 42 department labels as ground truth.
pub const BUNDLED_NAME: &str = "email-Eu-core.txt";
const BUNDLED_GRAPH: &[u8] = include_bytes!("../../data/email-Eu-core.txt");
const BUNDLED_TRUTH_NAME: &str = "email-Eu-core-department-labels.txt";
const BUNDLED_TRUTH: &[u8] = include_bytes!("../../data/email-Eu-core-department-labels.txt");

/// Options that say how a graph file becomes a graph.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs {
    /// Input format: mtx, edges, csv, adj (LDBC adjacency lists), ldbc (.v/.e pair) or glpg
    /// [default: detected from the content and the name; a graph path `-` reads standard
    /// input, detected from its content]
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<Format>,

    /// The input's edges are directed: info and convert keep their directions; lp and bench
    /// lp count in- and out-neighbours, a neighbour linked both ways twice (LDBC Graphalytics
    /// CDLP). Without it every edge u->v also gets v->u and repeated edges follow --duplicates
    #[arg(long)]
    pub directed: bool,

    /// Keep self loops (dropped by default)
    #[arg(long)]
    pub keep_self_loops: bool,

    /// Repeated edges between the same two vertices
    #[arg(long, value_enum, default_value_t = DuplicatesArg::Collapse, value_name = "POLICY")]
    pub duplicates: DuplicatesArg,

    /// Edge-list columns to read, `SRC,DST[,WEIGHT]`: CSV header names or 0-based indices
    /// (other columns are then ignored) [default: by the CSV header's names, else `source
    /// target [weight]` as the first data line has them]
    #[arg(long, value_name = "SRC,DST[,WEIGHT]", value_parser = parse_columns)]
    pub columns: Option<Columns>,

    /// The edge weights the command accepts (set by the command, not on the command line)
    #[arg(skip)]
    pub weights: WeightRule,
}

/// `--duplicates` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DuplicatesArg {
    /// Keep every copy (LDBC CDLP semantics: a neighbour linked both ways counts twice)
    Keep,
    /// Keep one edge per pair, with the largest weight
    Collapse,
    /// Keep one edge per pair, weighted by the sum of the copies' weights
    Sum,
}

fn parse_format(s: &str) -> std::result::Result<Format, String> {
    s.parse::<Format>().map_err(|e| e.to_string())
}

fn parse_columns(s: &str) -> std::result::Result<Columns, String> {
    s.parse::<Columns>().map_err(|e| e.to_string())
}

impl LoadArgs {
    /// These arguments, loading only weights that `weights` accepts.
    pub fn with_weights(&self, weights: WeightRule) -> LoadArgs {
        LoadArgs { weights, ..self.clone() }
    }

    /// The loader options these arguments describe.
    pub fn options(&self) -> LoadOptions {
        let duplicates = match self.duplicates {
            DuplicatesArg::Keep => DuplicateEdges::Keep,
            DuplicatesArg::Collapse => DuplicateEdges::Collapse,
            DuplicatesArg::Sum => DuplicateEdges::Sum,
        };
        LoadOptions {
            format: self.format,
            build: BuildOptions { symmetrise: !self.directed, drop_self_loops: !self.keep_self_loops, duplicates },
            progress: true,
            columns: self.columns.clone(),
            weights: self.weights,
        }
    }
}

/// Loads `path`, or the bundled graph when there is none; the loading bar is drawn unless
/// `--quiet`.
pub fn load(path: Option<&Path>, args: &LoadArgs) -> Result<Graph> {
    let options = LoadOptions { progress: console::progress_requested(), ..args.options() };
    match path {
        Some(path) => io::load_graph(path, &options),
        None => io::load_graph_from_bytes(BUNDLED_NAME, BUNDLED_GRAPH, &options),
    }
}

/// Loads the graph label propagation runs on: [`load`], refusing negative edge weights at
/// their line (LP's scores and modularity need non-negative weights), then, with `--directed`, every
/// directed edge in both endpoints' rows ([`directed_neighbourhoods`]): LP counts in- and
/// out-neighbours, a neighbour linked both ways twice (LDBC Graphalytics CDLP on directed
/// graphs), after repeated edges of one direction were kept, collapsed or summed as
/// `--duplicates` says.
pub fn load_for_lp(path: Option<&Path>, args: &LoadArgs) -> Result<Graph> {
    let mut graph = load(path, &args.with_weights(WeightRule::NonNegative))?;
    if args.directed {
        graph.csr = directed_neighbourhoods(&graph.csr)?;
        graph.symmetric = true;
    }
    Ok(graph)
}

/// Reads the ground truth at `path` for `graph`, or the bundled graph's when `path` is
/// `None` and the graph is the bundled one; warns about ids that are not vertices and about
/// a truth that covers little of the graph.
pub fn ground_truth(path: Option<&Path>, bundled: bool, graph: &Graph) -> Result<Option<TruthFile>> {
    let truth = match (path, bundled) {
        (Some(path), _) => io::read_ground_truth(path, &graph.ids)?,
        (None, true) => io::read_ground_truth_from_bytes(BUNDLED_TRUTH_NAME, BUNDLED_TRUTH, &graph.ids)?,
        (None, false) => return Ok(None),
    };
    if truth.unknown_ids > 0 {
        console::warning(format_args!(
            "{} ground-truth entries name ids that are not vertices of the graph; they were ignored",
            truth.unknown_ids
        ));
    }
    TruthCoverage::of(&truth.truth, graph.num_vertices()).warn_if_low();
    Ok(Some(truth))
}

/// A display name for a graph argument.
pub fn graph_name(path: Option<&Path>) -> String {
    match path {
        None => format!("bundled {BUNDLED_NAME}"),
        Some(p) if p.as_os_str() == io::STDIN_PATH => "<stdin>".to_string(),
        Some(p) => p.display().to_string(),
    }
}

/// Reads the program file `path` given with `flag` (a variant or a sampler: `noun`) and
/// compiles it with `compile` (the kind's `from_source`, taking the file name, its text and
/// the `--param NAME=VALUE` strings); a parameter error names `--param`.
pub fn compile_program_file<T>(
    flag: &str,
    noun: &str,
    path: &Path,
    params: &[String],
    compile: impl FnOnce(&str, &str, &[String]) -> Result<T>,
) -> Result<T> {
    // An I/O error of its kind (a missing file is `NotFound`, which Python raises as
    // `FileNotFoundError`), printed `--variant FILE: cannot read the variant file: why`.
    let source = std::fs::read_to_string(path).map_err(|e| {
        let why = std::io::Error::new(e.kind(), format!("cannot read the {noun} file: {e}"));
        glp_runtime::Error::io(format!("{flag}{}", path.display()), why)
    })?;
    let file = path.display().to_string();
    compile(&file, &source, params).map_err(|e| match e {
        glp_runtime::Error::Parameter(e) => glp_runtime::Error::invalid(e.with_flag(Some("--param"))),
        other => other,
    })
}
