//! Pieces several subcommands share: graph loading options and the bundled graph.

use clap::{Args, ValueEnum};
use glp_runtime::graph::{BuildOptions, DuplicateEdges, Graph};
use glp_runtime::io::{self, Columns, Format, LoadOptions, TruthFile, WeightRule};
use glp_runtime::{Error, Result};
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

    /// Keep edge directions (by default every edge u->v also gets v->u, as community
    /// detection works on the symmetrised graph)
    #[arg(long)]
    pub directed: bool,

    /// Keep self loops (dropped by default)
    #[arg(long)]
    pub keep_self_loops: bool,

    /// Repeated edges between the same two vertices
    #[arg(long, value_enum, default_value_t = DuplicatesArg::Collapse, value_name = "POLICY")]
    pub duplicates: DuplicatesArg,

    /// Edge-list columns to read, SRC,DST[,WEIGHT]: CSV header names or 0-based indices
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

/// Loads `path`, or the bundled graph when there is none.
pub fn load(path: Option<&Path>, args: &LoadArgs) -> Result<Graph> {
    match path {
        Some(path) => io::load_graph(path, &args.options()),
        None => io::load_graph_from_bytes(BUNDLED_NAME, BUNDLED_GRAPH, &args.options()),
    }
}

/// Reads the ground truth at `path` for `graph`, or the bundled graph's when `path` is
/// `None` and the graph is the bundled one; warns about ids that are not vertices.
pub fn ground_truth(path: Option<&Path>, bundled: bool, graph: &Graph) -> Result<Option<TruthFile>> {
    let truth = match (path, bundled) {
        (Some(path), _) => io::read_ground_truth(path, &graph.ids)?,
        (None, true) => io::read_ground_truth_from_bytes(BUNDLED_TRUTH_NAME, BUNDLED_TRUTH, &graph.ids)?,
        (None, false) => return Ok(None),
    };
    if truth.unknown_ids > 0 {
        eprintln!(
            "warning: {} ground-truth entries name ids that are not vertices of the graph; they were ignored",
            truth.unknown_ids
        );
    }
    Ok(Some(truth))
}

/// Writes `text` to `path`, naming the file in errors.
pub fn write_file(path: &Path, text: &[u8]) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// A display name for a graph argument.
pub fn graph_name(path: Option<&Path>) -> String {
    match path {
        None => format!("{BUNDLED_NAME} (bundled)"),
        Some(p) if p.as_os_str() == io::STDIN_PATH => "<stdin>".to_string(),
        Some(p) => p.display().to_string(),
    }
}
