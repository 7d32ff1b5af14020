//! `glp gen`: synthetic graphs written as `.glpg` (plus the planted communities).

use super::console;
use super::limits;
use super::output::{Content, Destination, Outputs};
use super::progress::PhaseSpinner;
use clap::{Args, Subcommand};
use glp_runtime::gen::{self, CommunityParams, RmatParams};
use glp_runtime::graph::Graph;
use glp_runtime::{io, Error, Result};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, Args)]
pub struct GenArgs {
    #[command(subcommand)]
    pub kind: GenKind,
}

#[derive(Debug, Subcommand)]
pub enum GenKind {
    /// R-MAT / Kronecker graph with Graph500 parameters (no community structure)
    Rmat {
        #[command(flatten)]
        params: RmatArgs,
        /// Output .glpg file; `-` is standard output (refused on a terminal)
        #[arg(long, short, value_name = "FILE")]
        out: PathBuf,
    },
    /// Community-structured graph (degree-corrected planted partition, LFR-like) with its
    /// ground truth; no vertex's degree exceeds --max-degree
    Planted {
        #[command(flatten)]
        params: PlantedArgs,
        /// Output .glpg file; `-` is standard output (refused on a terminal; --truth is then
        /// needed)
        #[arg(long, short, value_name = "FILE")]
        out: PathBuf,
        /// Ground-truth output: one `vertex<TAB>community` line per vertex; `-` is standard
        /// output [default: the output path with extension .truth]
        #[arg(long, value_name = "FILE")]
        truth: Option<PathBuf>,
    },
}

/// R-MAT parameters.
#[derive(Debug, Clone, Args)]
pub struct RmatArgs {
    /// 2^SCALE vertices, SCALE in 1..=31 (a graph that needs more memory than the machine
    /// has, about 32 bytes per generated edge, is refused)
    #[arg(long, default_value_t = 20)]
    pub scale: u32,
    /// Generated edges per vertex (before symmetrisation and deduplication)
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u32,
    /// Seed of every random draw
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Remove the vertices no edge touches, keeping the others' ids (LDBC Graphalytics'
    /// graph500-N sets: `--scale 26 --drop-isolated` is graph500-26)
    #[arg(long)]
    pub drop_isolated: bool,
    /// Give every undirected edge a weight drawn uniformly from [0, 1), the same both ways
    /// (Graph500's SSSP weights; for `glp run sssp` and `sswp`)
    #[arg(long)]
    pub weighted: bool,
}

impl RmatArgs {
    pub fn params(&self) -> RmatParams {
        RmatParams {
            scale: self.scale,
            edge_factor: self.edge_factor,
            seed: self.seed,
            weighted: self.weighted,
            ..RmatParams::default()
        }
    }

    /// Checks that the graph fits in memory.
    pub fn check(&self) -> Result<()> {
        let option = format!("--scale {} --edge-factor {}", self.scale, self.edge_factor);
        limits::check_memory(&option, limits::rmat_bytes(self.scale, self.edge_factor))
    }
}

/// Planted-partition parameters (defaults follow the LFR benchmarks).
#[derive(Debug, Clone, Args)]
pub struct PlantedArgs {
    /// Number of vertices, 2..=2^32-1 (a graph that needs more memory than the machine has,
    /// about 16 bytes per stored edge, is refused)
    #[arg(long, default_value_t = CommunityParams::default().num_vertices)]
    pub vertices: u64,
    /// Average degree
    #[arg(long, default_value_t = CommunityParams::default().avg_degree)]
    pub avg_degree: f64,
    /// Largest degree: no vertex of the generated graph has more neighbours
    #[arg(long, default_value_t = CommunityParams::default().max_degree)]
    pub max_degree: u32,
    /// Exponent of the power-law degree distribution
    #[arg(long, default_value_t = CommunityParams::default().degree_exponent)]
    pub degree_exponent: f64,
    /// Exponent of the power-law community-size distribution
    #[arg(long, default_value_t = CommunityParams::default().community_exponent)]
    pub community_exponent: f64,
    /// Smallest community
    #[arg(long, default_value_t = CommunityParams::default().min_community)]
    pub min_community: u32,
    /// Largest community
    #[arg(long, default_value_t = CommunityParams::default().max_community)]
    pub max_community: u32,
    /// Mixing parameter mu: fraction of each vertex's edges leaving its community
    #[arg(long, default_value_t = CommunityParams::default().mixing)]
    pub mu: f64,
    /// Seed of every random draw
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl PlantedArgs {
    pub fn params(&self) -> CommunityParams {
        CommunityParams {
            num_vertices: self.vertices,
            avg_degree: self.avg_degree,
            max_degree: self.max_degree,
            degree_exponent: self.degree_exponent,
            community_exponent: self.community_exponent,
            min_community: self.min_community,
            max_community: self.max_community,
            mixing: self.mu,
            seed: self.seed,
        }
    }

    /// Checks that the graph fits in memory.
    pub fn check(&self) -> Result<()> {
        let option = format!("--vertices {} --avg-degree {}", self.vertices, self.avg_degree);
        limits::check_memory(&option, limits::planted_bytes(self.vertices, self.avg_degree))
    }
}

/// Generates the graph with a spinner naming each phase, then writes the outputs, all checked
/// before generation starts and committed together: a failure leaves neither file.
pub fn run(args: GenArgs) -> Result<()> {
    let start = Instant::now();
    match args.kind {
        GenKind::Rmat { params, out } => {
            let out = Destination::check("--out", &out, Content::Binary)?;
            params.check()?;
            let spinner = PhaseSpinner::new("rmat");
            let mut graph = gen::rmat_with_phases(&params.params(), &|phase| spinner.phase(phase))?;
            if params.drop_isolated {
                spinner.step("removing isolated vertices");
                graph = graph.without_isolated()?;
            }
            spinner.step(&format!("writing {out}"));
            let mut outputs = Outputs::new();
            outputs.stage_with(&out, |path| io::write_glpg(&graph, path))?;
            drop(spinner);
            outputs.commit()?;
            report(&out, &graph, start);
        }
        GenKind::Planted { params, out, truth } => {
            let truth_path = match truth {
                Some(truth) => truth,
                None if out.as_os_str() == "-" => {
                    return Err(Error::invalid(
                        "--out - writes the graph to standard output: name the ground truth's file with --truth",
                    ))
                }
                None => out.with_extension("truth"),
            };
            let out = Destination::check("--out", &out, Content::Binary)?;
            let truth = Destination::check("--truth", &truth_path, Content::Text)?;
            out.check_distinct(&truth)?;
            params.check()?;
            let spinner = PhaseSpinner::new("planted");
            let (graph, communities) =
                gen::planted_partition_with_phases(&params.params(), &|phase| spinner.phase(phase))?;
            spinner.step(&format!("writing {out} and {truth}"));
            let mut outputs = Outputs::new();
            outputs.stage_with(&out, |path| io::write_glpg(&graph, path))?;
            outputs.stage_with(&truth, |path| write_truth(path, &graph, &communities))?;
            drop(spinner);
            outputs.commit()?;
            report(&out, &graph, start);
            console::status(format_args!("wrote {truth} (ground truth)"));
        }
    }
    Ok(())
}

fn report(out: &Destination, graph: &Graph, start: Instant) {
    console::status(format_args!(
        "wrote {out} ({} vertices, {} stored edges) in {:.2} s",
        graph.num_vertices(),
        graph.num_edges(),
        start.elapsed().as_secs_f64()
    ));
}

/// One `vertex<TAB>community` line per vertex, in the graph's original ids, written to `path`.
fn write_truth(path: &Path, graph: &Graph, communities: &[u32]) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    for (v, &c) in communities.iter().enumerate() {
        writeln!(out, "{}\t{c}", graph.ids.original(v as u32)).map_err(|e| Error::io(path, e))?;
    }
    out.into_inner().map_err(|e| Error::io(path, e.into_error()))?.sync_all().map_err(|e| Error::io(path, e))
}
