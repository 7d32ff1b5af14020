//! Where `glp sample`'s samples start: every vertex, the roots of a file, random roots, in
//! groups of `--batch-size`; ClusterGCN's clusters from a partition file or from ranges of
//! vertex ids.

use super::console;
use super::sample::App;
use glp_runtime::community::UNLABELLED;
use glp_runtime::graph::{Graph, VertexId};
use glp_runtime::random::sample_stream;
use glp_runtime::sample::{InitialSamples, ROOT_STEP};
use glp_runtime::{Error, Result};
use std::path::PathBuf;

/// Where samples start, from the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum RootsArg {
    /// One sample per vertex, or per group of `batch` consecutive vertices.
    Every,
    /// The vertex ids of a file.
    File(PathBuf),
    /// `N` samples of random roots.
    Random(u64),
    /// Roots given as dense vertex ids (the Python package's `roots=` array), in order.
    Given(Vec<VertexId>),
}

/// ClusterGCN's clusters, from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClustersArg {
    /// The vertex ids cut into this many consecutive ranges (clusters only when the graph's
    /// ids were numbered by a partition).
    Ranges(u32),
    /// A partition file: `vertex cluster` lines (clusters are any integers).
    File(PathBuf),
}

impl ClustersArg {
    /// `--clusters C|FILE`: a number is a count of ranges, anything else a file.
    pub fn parse(given: &str) -> ClustersArg {
        match given.parse::<u32>() {
            Ok(count) => ClustersArg::Ranges(count),
            Err(_) => ClustersArg::File(PathBuf::from(given)),
        }
    }

    /// The clusters' vertices, each cluster's in ascending order.
    fn members(&self, graph: &Graph) -> Result<Vec<Vec<VertexId>>> {
        let n = graph.num_vertices();
        match self {
            ClustersArg::Ranges(count) => {
                let count = *count;
                if count == 0 || count as usize > n {
                    return Err(Error::invalid(format!("--clusters must lie in 1..={n} (the vertices) (got {count})")));
                }
                let bound = |c: u64| (c * n as u64 / count as u64) as VertexId;
                Ok((0..count as u64).map(|c| (bound(c)..bound(c + 1)).collect()).collect())
            }
            ClustersArg::File(path) => {
                let partition = glp_runtime::io::read_seeds(path, &graph.ids)?;
                // Internal labels are the smallest vertex of each cluster: one slot each.
                let mut slot = vec![u32::MAX; n];
                let mut members: Vec<Vec<VertexId>> = Vec::new();
                let mut unassigned = 0usize;
                for (v, &label) in partition.labels.iter().enumerate() {
                    if label == UNLABELLED {
                        unassigned += 1;
                        continue;
                    }
                    let label = label as usize;
                    if slot[label] == u32::MAX {
                        slot[label] = members.len() as u32;
                        members.push(Vec::new());
                    }
                    members[slot[label] as usize].push(v as VertexId);
                }
                if members.is_empty() {
                    return Err(Error::invalid(format!(
                        "--clusters {}: the file assigns no vertex of the graph to a cluster",
                        path.display()
                    )));
                }
                if unassigned > 0 {
                    console::warning(format!(
                        "--clusters {}: {unassigned} of the {n} vertices are in no cluster and are never sampled",
                        path.display()
                    ));
                }
                Ok(members)
            }
        }
    }
}

/// The initial samples of `app` on `graph`: `batch` roots per sample (clusters for
/// ClusterGCN).
pub fn initial_samples(
    app: &App,
    graph: &Graph,
    roots: &RootsArg,
    batch: u32,
    clusters: &ClustersArg,
    seed: u64,
) -> Result<InitialSamples> {
    let n = graph.num_vertices();
    if batch == 0 {
        return Err(Error::invalid("--batch-size must be at least 1"));
    }
    if batch > 1 && !app.takes_batches() {
        return Err(Error::invalid(format!("{} samples one walk per root: --batch-size must be 1", app.name())));
    }
    if n == 0 {
        return Err(Error::invalid("the graph has no vertices: there is nothing to sample"));
    }
    if let App::ClusterGcn(_) = app {
        return cluster_samples(n, roots, batch, &clusters.members(graph)?, seed);
    }
    match roots {
        RootsArg::Every if batch == 1 => InitialSamples::every_vertex(n),
        RootsArg::Every => grouped((0..n as VertexId).collect(), batch, n),
        RootsArg::File(path) => grouped(glp_runtime::io::read_roots(path, &graph.ids)?, batch, n),
        RootsArg::Random(0) => Err(Error::invalid("--roots-random must be at least 1")),
        RootsArg::Random(count) => InitialSamples::random(*count, batch, n, seed),
        RootsArg::Given(roots) if roots.is_empty() => Err(Error::invalid("no roots given: there is nothing to sample")),
        RootsArg::Given(roots) => grouped(roots.clone(), batch, n),
    }
}

/// `roots` in consecutive groups of `batch` (the last one smaller).
fn grouped(roots: Vec<VertexId>, batch: u32, n: usize) -> Result<InitialSamples> {
    let len = roots.len() as u64;
    let mut offsets: Vec<u64> = (0..len).step_by(batch as usize).collect();
    offsets.push(len);
    InitialSamples::groups(offsets, roots, n)
}

/// ClusterGCN's samples: every sample is `batch` of the `clusters`: an epoch (all clusters,
/// in an order drawn from `seed`, in groups of `batch`), or `N` samples of `batch` distinct
/// random clusters.
fn cluster_samples(
    n: usize,
    roots: &RootsArg,
    batch: u32,
    members: &[Vec<VertexId>],
    seed: u64,
) -> Result<InitialSamples> {
    let clusters = members.len() as u64;
    if batch as u64 > clusters {
        return Err(Error::invalid(format!("--batch-size {batch} exceeds the {clusters} clusters")));
    }
    // A Fisher-Yates shuffle of the clusters, drawn from the stream of sample `i`'s roots.
    let shuffled = |i: u32| {
        let mut order: Vec<u64> = (0..clusters).collect();
        let mut stream = sample_stream(seed, i, ROOT_STEP, 1);
        for k in (1..order.len()).rev() {
            order.swap(k, stream.next_below(k as u64 + 1) as usize);
        }
        order
    };
    let groups: Vec<Vec<u64>> = match roots {
        RootsArg::Every => shuffled(0).chunks(batch as usize).map(<[u64]>::to_vec).collect(),
        RootsArg::Random(0) => return Err(Error::invalid("--roots-random must be at least 1")),
        RootsArg::Random(count) => {
            if *count > u32::MAX as u64 {
                return Err(Error::invalid(format!("--roots-random {count}: at most {} samples", u32::MAX)));
            }
            (0..*count as u32).map(|i| shuffled(i)[..batch as usize].to_vec()).collect()
        }
        RootsArg::File(_) | RootsArg::Given(_) => {
            return Err(Error::invalid("cluster-gcn takes its roots from --clusters, not from --roots"));
        }
    };
    let mut offsets = vec![0u64];
    let mut vertices = Vec::new();
    for group in groups {
        for c in group {
            vertices.extend_from_slice(&members[c as usize]);
        }
        offsets.push(vertices.len() as u64);
    }
    InitialSamples::groups(offsets, vertices, n)
}
