//! Samples as disjoint subgraphs over local vertex ids ([`SubgraphBatch`], the arrays of
//! PyG's `SamplerOutput`), numbered batch by batch ([`SubgraphNumbering`]) so that a streamed
//! run's subgraphs can be written without holding its samples.
//!
//! Local ids are numbered hop by hop over all samples, so a vertex's id depends on how many
//! vertices every sample has at the hops before its own: unknown until the last batch. The
//! numbering therefore gives each local vertex as a [`LocalVertex`] (its hop and its index
//! among that hop's vertices, which is known as soon as its sample is), and the id is the
//! hop's start plus that index once the run is over ([`SubgraphNumbering::hop_starts`]).

use super::outcome::SampleOutcome;
use crate::error::{Error, Result};
use crate::graph::VertexId;
use rustc_hash::FxHashMap;

/// Samples as subgraphs over local vertex ids, the arrays PyG's `SamplerOutput` (with
/// `disjoint=True`) and DGL's blocks are built from.
///
/// Every sample has its own copy of its vertices (a vertex two samples reached has two local
/// ids). Local ids are numbered hop by hop: first every sample's roots (hop 0), sample by
/// sample, then the vertices first reached at step 0 (hop 1), and so on; a vertex keeps the
/// local id of its first appearance in its sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubgraphBatch {
    /// Graph vertex of each local id.
    pub node: Vec<VertexId>,
    /// Sample of each local id.
    pub batch: Vec<u64>,
    /// Sampled edges: local id of the vertex drawn (the message's source in PyG's
    /// convention) ...
    pub row: Vec<u64>,
    /// ... and of the transit it was drawn from (the message's destination), step by step.
    pub col: Vec<u64>,
    /// Local ids per hop (hop 0: the roots).
    pub num_sampled_nodes: Vec<u64>,
    /// Edges per step.
    pub num_sampled_edges: Vec<u64>,
}

/// A local vertex of a run's subgraphs: the `index`-th vertex of hop `hop` (over all
/// samples); its local id is `hop_starts[hop] + index` ([`SubgraphNumbering::hop_starts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalVertex {
    pub hop: u32,
    pub index: u64,
}

/// One batch's part of a run's subgraph arrays, each in the order of the run's arrays: what
/// the batch appends to every hop's vertices and every step's edges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubgraphPieces {
    /// Per hop: the graph vertex of each local vertex the batch adds to the hop ...
    pub node: Vec<Vec<VertexId>>,
    /// ... and its sample (the run's index).
    pub batch: Vec<Vec<u64>>,
    /// Per step: the batch's sampled edges, the vertex drawn ...
    pub row: Vec<Vec<LocalVertex>>,
    /// ... and the transit it was drawn from.
    pub col: Vec<Vec<LocalVertex>>,
}

/// Numbers a run's samples as subgraphs, batch by batch in sample order: the counts so far
/// per hop and per step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubgraphNumbering {
    nodes_per_hop: Vec<u64>,
    edges_per_step: Vec<u64>,
}

impl Default for SubgraphNumbering {
    fn default() -> Self {
        SubgraphNumbering { nodes_per_hop: vec![0], edges_per_step: Vec::new() }
    }
}

impl SubgraphNumbering {
    /// A numbering with no sample yet.
    pub fn new() -> Self {
        SubgraphNumbering::default()
    }

    /// Numbers the samples of `batch`, which follow those numbered so far, and returns what
    /// they add to the arrays. Errors on a sampled edge from a vertex its sample does not
    /// hold (no engine records one).
    pub fn add(&mut self, batch: &SampleOutcome) -> Result<SubgraphPieces> {
        let mut pieces = SubgraphPieces::default();
        let mut local: FxHashMap<VertexId, LocalVertex> = FxHashMap::default();
        for k in 0..batch.num_samples() {
            let sample = batch.first + k as u64;
            let s = batch.sample(k);
            local.clear();
            let hops = s
                .roots
                .iter()
                .map(|&r| (r, 0))
                .chain(s.vertices.iter().zip(s.steps.iter()).map(|(&v, &step)| (v, step + 1)));
            for (v, hop) in hops {
                if local.contains_key(&v) {
                    continue;
                }
                let h = hop as usize;
                if self.nodes_per_hop.len() <= h {
                    self.nodes_per_hop.resize(h + 1, 0);
                }
                if pieces.node.len() <= h {
                    pieces.node.resize(h + 1, Vec::new());
                    pieces.batch.resize(h + 1, Vec::new());
                }
                local.insert(v, LocalVertex { hop, index: self.nodes_per_hop[h] });
                self.nodes_per_hop[h] += 1;
                pieces.node[h].push(v);
                pieces.batch[h].push(sample);
            }
            for ((&v, &source), &step) in s.vertices.iter().zip(s.sources.iter()).zip(s.steps.iter()) {
                let (Some(&row), Some(&col)) = (local.get(&v), local.get(&source)) else {
                    return Err(Error::invalid(format!(
                        "internal: sample {sample} has an edge {source} -> {v} from a vertex it does not hold"
                    )));
                };
                let step = step as usize;
                if self.edges_per_step.len() <= step {
                    self.edges_per_step.resize(step + 1, 0);
                }
                if pieces.row.len() <= step {
                    pieces.row.resize(step + 1, Vec::new());
                    pieces.col.resize(step + 1, Vec::new());
                }
                self.edges_per_step[step] += 1;
                pieces.row[step].push(row);
                pieces.col[step].push(col);
            }
        }
        Ok(pieces)
    }

    /// Local ids per hop so far (hop 0: the roots): one entry per hop the steps so far can
    /// reach, [`Self::num_sampled_edges`]'s length plus one.
    pub fn num_sampled_nodes(&self) -> Vec<u64> {
        let mut nodes = self.nodes_per_hop.clone();
        nodes.resize(self.edges_per_step.len() + 1, 0);
        nodes
    }

    /// Edges per step so far.
    pub fn num_sampled_edges(&self) -> &[u64] {
        &self.edges_per_step
    }

    /// The local id of each hop's first vertex, once every sample is numbered.
    pub fn hop_starts(&self) -> Vec<u64> {
        self.num_sampled_nodes()
            .iter()
            .scan(0u64, |next, &n| {
                let start = *next;
                *next += n;
                Some(start)
            })
            .collect()
    }
}

impl SampleOutcome {
    /// The samples as one batch of disjoint subgraphs (PyG's `SamplerOutput` with
    /// `disjoint=True`, DGL's blocks): see [`SubgraphBatch`]. Errors as
    /// [`SubgraphNumbering::add`].
    pub fn subgraphs(&self) -> Result<SubgraphBatch> {
        let mut numbering = SubgraphNumbering::new();
        let pieces = numbering.add(self)?;
        let starts = numbering.hop_starts();
        let id = |v: &LocalVertex| starts[v.hop as usize] + v.index;
        Ok(SubgraphBatch {
            node: pieces.node.concat(),
            batch: pieces.batch.concat(),
            row: pieces.row.iter().flatten().map(id).collect(),
            col: pieces.col.iter().flatten().map(id).collect(),
            num_sampled_nodes: numbering.num_sampled_nodes(),
            num_sampled_edges: numbering.num_sampled_edges().to_vec(),
        })
    }
}
