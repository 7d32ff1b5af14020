//! `glp info`: vertex, edge and degree statistics of a graph.

use super::common::{self, LoadArgs};
use super::output;
use clap::Args;
use glp_runtime::graph::{Csr, Graph, VertexIds};
use glp_runtime::Result;
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

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
    /// Vertices with no edge at all, in or out.
    pub isolated_vertices: u64,
    /// Directed graphs: vertices with in-edges but no out-edge (`None` when symmetric).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sink_vertices: Option<u64>,
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
        let (isolated, sinks) = if graph.symmetric {
            (degrees.par_iter().filter(|&&d| d == 0).count() as u64, None)
        } else {
            let incoming = has_in_edges(csr);
            let count = |in_edges: bool| {
                degrees.par_iter().zip(&incoming).filter(|&(&d, i)| d == 0 && i.load(Relaxed) == in_edges).count()
            };
            (count(false) as u64, Some(count(true) as u64))
        };
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
            sink_vertices: sinks,
            min_degree: degrees.first().copied().unwrap_or(0),
            max_degree: degrees.last().copied().unwrap_or(0),
            mean_degree: if n == 0 { 0.0 } else { csr.num_edges() as f64 / n as f64 },
            median_degree: median,
            id_range,
            total_weight,
        }
    }
}

/// Whether each vertex is the target of an edge.
fn has_in_edges(csr: &Csr) -> Vec<AtomicBool> {
    let incoming: Vec<AtomicBool> = (0..csr.num_vertices()).into_par_iter().map(|_| AtomicBool::new(false)).collect();
    csr.targets().par_chunks(1 << 16).for_each(|targets| {
        for &t in targets {
            incoming[t as usize].store(true, Relaxed);
        }
    });
    incoming
}

pub fn run(args: InfoArgs) -> Result<()> {
    let graph = common::load(args.graph.as_deref(), &args.load)?;
    let info = GraphInfo::of(common::graph_name(args.graph.as_deref()), &graph);
    output::print(&if args.json { output::json(&info)? } else { text(&info) })
}

/// The text report.
fn text(info: &GraphInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "graph             {}", info.graph);
    let _ = writeln!(s, "vertices          {}", info.vertices);
    let _ = writeln!(
        s,
        "stored edges      {} ({})",
        info.stored_edges,
        if info.symmetric { "symmetric: each undirected edge stored twice" } else { "directed" }
    );
    let _ = writeln!(s, "weighted          {}", if info.weighted { "yes" } else { "no" });
    let _ = writeln!(s, "total weight      {}", info.total_weight);
    let _ = writeln!(s, "self loops        {}", info.self_loops);
    match info.sink_vertices {
        None => {
            let _ = writeln!(s, "isolated vertices {}", info.isolated_vertices);
        }
        Some(sinks) => {
            let _ = writeln!(s, "isolated vertices {} (no in- or out-edge)", info.isolated_vertices);
            let _ = writeln!(s, "sinks             {sinks} (in-edges only)");
        }
    }
    let _ = writeln!(
        s,
        "{}        min {}, median {}, mean {:.2}, max {}",
        if info.symmetric { "degree    " } else { "out-degree" },
        info.min_degree,
        info.median_degree,
        info.mean_degree,
        info.max_degree
    );
    if let Some((first, last)) = info.id_range {
        let _ = writeln!(s, "input ids         {first}..={last}");
    }
    s
}
