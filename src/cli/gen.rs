//! `glp gen`: synthetic graphs written as `.glpg` (plus the planted communities).

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
        /// Output .glpg file
        #[arg(long, short, value_name = "FILE")]
        out: PathBuf,
    },
    /// Community-structured graph (degree-corrected planted partition, LFR-like) with its
    /// ground truth
    Planted {
        #[command(flatten)]
        params: PlantedArgs,
        /// Output .glpg file
        #[arg(long, short, value_name = "FILE")]
        out: PathBuf,
        /// Ground-truth output: one `vertex<TAB>community` line per vertex
        /// [default: the output path with extension .truth]
        #[arg(long, value_name = "FILE")]
        truth: Option<PathBuf>,
    },
}

/// R-MAT parameters.
#[derive(Debug, Clone, Args)]
pub struct RmatArgs {
    /// 2^SCALE vertices
    #[arg(long, default_value_t = 20)]
    pub scale: u32,
    /// Generated edges per vertex (before symmetrisation and deduplication)
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u32,
    /// Seed of every random draw
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl RmatArgs {
    pub fn params(&self) -> RmatParams {
        RmatParams { scale: self.scale, edge_factor: self.edge_factor, seed: self.seed, ..RmatParams::default() }
    }
}

/// Planted-partition parameters (defaults follow the LFR benchmarks).
#[derive(Debug, Clone, Args)]
pub struct PlantedArgs {
    /// Number of vertices
    #[arg(long, default_value_t = CommunityParams::default().num_vertices)]
    pub vertices: u64,
    /// Average degree
    #[arg(long, default_value_t = CommunityParams::default().avg_degree)]
    pub avg_degree: f64,
    /// Largest degree
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
}

pub fn run(args: GenArgs) -> Result<()> {
    let start = Instant::now();
    match args.kind {
        GenKind::Rmat { params, out } => {
            let graph = gen::rmat(&params.params())?;
            io::write_glpg(&graph, &out)?;
            report(&out, &graph, start);
        }
        GenKind::Planted { params, out, truth } => {
            let (graph, communities) = gen::planted_partition(&params.params())?;
            io::write_glpg(&graph, &out)?;
            let truth = truth.unwrap_or_else(|| out.with_extension("truth"));
            write_truth(&truth, &graph, &communities)?;
            report(&out, &graph, start);
            eprintln!("wrote {} (ground truth)", truth.display());
        }
    }
    Ok(())
}

fn report(out: &Path, graph: &Graph, start: Instant) {
    eprintln!(
        "wrote {} ({} vertices, {} stored edges) in {:.2} s",
        out.display(),
        graph.num_vertices(),
        graph.num_edges(),
        start.elapsed().as_secs_f64()
    );
}

/// One `vertex<TAB>community` line per vertex, in the graph's original ids.
fn write_truth(path: &Path, graph: &Graph, communities: &[u32]) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = std::io::BufWriter::new(file);
    for (v, &c) in communities.iter().enumerate() {
        writeln!(out, "{}\t{c}", graph.ids.original(v as u32)).map_err(|e| Error::io(path, e))?;
    }
    out.flush().map_err(|e| Error::io(path, e))
}
