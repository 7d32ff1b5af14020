//! `glp info`: vertex, edge and degree statistics of a graph.

use super::common::{self, LoadArgs};
use clap::Args;
use glp_runtime::graph::{Graph, VertexIds};
use glp_runtime::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Graph file [default: the bundled email-Eu-core]
    pub graph: Option<PathBuf>,

    /// Print the statistics as JSON
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub load: LoadArgs,
}

/// Statistics `glp info` prints.
#[derive(Debug, Serialize, PartialEq)]
pub struct GraphInfo {
    pub graph: String,
    pub vertices: usize,
    /// Stored (directed) edges: an undirected edge counts twice.
    pub stored_edges: u64,
    pub symmetric: bool,
    pub weighted: bool,
    pub self_loops: u64,
    pub isolated_vertices: u64,
    pub min_degree: u64,
    pub max_degree: u64,
    pub mean_degree: f64,
    pub median_degree: f64,
    /// Smallest and largest original vertex id.
    pub id_range: Option<(u64, u64)>,
    pub total_weight: f64,
}

impl GraphInfo {
    pub fn of(name: String, graph: &Graph) -> Self {
        let csr = &graph.csr;
        let n = csr.num_vertices();
        let mut degrees: Vec<u64> = (0..n as u32).into_par_iter().map(|v| csr.degree(v) as u64).collect();
        let self_loops =
            (0..n as u32).into_par_iter().map(|v| csr.neighbors(v).binary_search(&v).map_or(0, |_| 1u64)).sum();
        let isolated = degrees.par_iter().filter(|&&d| d == 0).count() as u64;
        degrees.par_sort_unstable();
        let median = match n {
            0 => 0.0,
            _ if n % 2 == 1 => degrees[n / 2] as f64,
            _ => (degrees[n / 2 - 1] + degrees[n / 2]) as f64 / 2.0,
        };
        let total_weight = csr.weights().map_or(csr.num_edges() as f64, |w| w.par_iter().map(|&x| x as f64).sum());
        let id_range = match &graph.ids {
            VertexIds::Range { len: 0, .. } => None,
            ids => Some((ids.original(0), ids.original(n as u32 - 1))),
        };
        GraphInfo {
            graph: name,
            vertices: n,
            stored_edges: csr.num_edges(),
            symmetric: graph.symmetric,
            weighted: csr.is_weighted(),
            self_loops,
            isolated_vertices: isolated,
            min_degree: degrees.first().copied().unwrap_or(0),
            max_degree: degrees.last().copied().unwrap_or(0),
            mean_degree: if n == 0 { 0.0 } else { csr.num_edges() as f64 / n as f64 },
            median_degree: median,
            id_range,
            total_weight,
        }
    }
}

pub fn run(args: InfoArgs) -> Result<()> {
    let graph = common::load(args.graph.as_deref(), &args.load)?;
    let info = GraphInfo::of(common::graph_name(args.graph.as_deref()), &graph);
    if args.json {
        let text = serde_json::to_string_pretty(&info).map_err(|e| Error::invalid(format!("JSON output: {e}")))?;
        println!("{text}");
        return Ok(());
    }
    println!("graph             {}", info.graph);
    println!("vertices          {}", info.vertices);
    println!(
        "stored edges      {} ({})",
        info.stored_edges,
        if info.symmetric { "symmetric: each undirected edge stored twice" } else { "directed" }
    );
    println!("weighted          {}", if info.weighted { "yes" } else { "no" });
    println!("total weight      {}", info.total_weight);
    println!("self loops        {}", info.self_loops);
    println!("isolated vertices {}", info.isolated_vertices);
    println!(
        "out-degree        min {}, median {}, mean {:.2}, max {}",
        info.min_degree, info.median_degree, info.mean_degree, info.max_degree
    );
    if let Some((first, last)) = info.id_range {
        println!("input ids         {first}..={last}");
    }
    Ok(())
}
