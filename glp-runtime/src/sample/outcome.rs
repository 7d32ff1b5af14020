//! What a sampling run produces, and its two shapes for other tools: walks (one row of
//! vertices per sample) and subgraphs (per-hop edge lists over relabelled vertices).

use super::roots::InitialSamples;
use crate::graph::VertexId;
use std::collections::HashMap;
use std::time::Duration;

/// The samples of a run, in sample order. Sample `i` has the roots
/// `roots[root_offsets[i]..root_offsets[i + 1]]` and added the vertices
/// `vertices[offsets[i]..offsets[i + 1]]`, in the order of the steps (within a step: transit
/// by transit, draw by draw); `sources[j]` is the transit `vertices[j]` was drawn from (the
/// sampled edge is `sources[j] -> vertices[j]`) and `steps[j]` the step that added it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampleOutcome {
    /// Row offsets of the roots (`samples + 1` entries).
    pub root_offsets: Vec<u64>,
    /// The roots of every sample.
    pub roots: Vec<VertexId>,
    /// Row offsets of the added vertices (`samples + 1` entries).
    pub offsets: Vec<u64>,
    /// The added vertices.
    pub vertices: Vec<VertexId>,
    /// The transit each added vertex was drawn from.
    pub sources: Vec<VertexId>,
    /// The step that added each vertex.
    pub steps: Vec<u32>,
    /// Time of the sampling itself.
    pub elapsed: Duration,
}

/// One sample of an outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleRef<'a> {
    /// Its roots.
    pub roots: &'a [VertexId],
    /// The vertices it added.
    pub vertices: &'a [VertexId],
    /// The transit of each added vertex.
    pub sources: &'a [VertexId],
    /// The step of each added vertex.
    pub steps: &'a [u32],
}

impl SampleOutcome {
    /// An outcome with the roots of `initial` and no sample recorded yet.
    pub(super) fn with_roots(initial: &InitialSamples) -> Self {
        let (root_offsets, roots) = initial.parts();
        SampleOutcome {
            root_offsets: root_offsets.to_vec(),
            roots: roots.to_vec(),
            offsets: vec![0],
            ..SampleOutcome::default()
        }
    }

    /// Appends the next sample's record.
    pub(super) fn push(&mut self, vertices: &[VertexId], sources: &[VertexId], steps: &[u32]) {
        self.vertices.extend_from_slice(vertices);
        self.sources.extend_from_slice(sources);
        self.steps.extend_from_slice(steps);
        self.offsets.push(self.vertices.len() as u64);
    }

    /// Number of samples.
    pub fn num_samples(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Vertices added by all samples (NextDoor's "sampled vertices"; roots excluded).
    pub fn sampled_vertices(&self) -> u64 {
        self.vertices.len() as u64
    }

    /// Sample `i`.
    pub fn sample(&self, i: usize) -> SampleRef<'_> {
        let r = self.root_offsets[i] as usize..self.root_offsets[i + 1] as usize;
        let a = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        SampleRef {
            roots: &self.roots[r],
            vertices: &self.vertices[a.clone()],
            sources: &self.sources[a.clone()],
            steps: &self.steps[a],
        }
    }

    /// The samples as walks: row `i` is sample `i`'s roots followed by the vertices it added,
    /// padded with `None` to the longest row. Returns the row length and the rows.
    pub fn walks(&self) -> (usize, Vec<Option<VertexId>>) {
        let width = (0..self.num_samples())
            .map(|i| {
                let s = self.sample(i);
                s.roots.len() + s.vertices.len()
            })
            .max()
            .unwrap_or(0);
        let mut rows = Vec::with_capacity(width * self.num_samples());
        for i in 0..self.num_samples() {
            let s = self.sample(i);
            rows.extend(s.roots.iter().chain(s.vertices).map(|&v| Some(v)));
            rows.resize(rows.len() + width - s.roots.len() - s.vertices.len(), None);
        }
        (width, rows)
    }

    /// The samples as one batch of disjoint subgraphs (PyG's `SamplerOutput` with
    /// `disjoint=True`, DGL's blocks): see [`SubgraphBatch`].
    pub fn subgraphs(&self) -> SubgraphBatch {
        let samples = self.num_samples();
        let hops = self.steps.iter().max().map_or(0, |&s| s as usize + 1);
        // Per sample: its distinct vertices in order of first appearance, with their hop.
        let mut per_sample: Vec<Vec<(VertexId, usize)>> = Vec::with_capacity(samples);
        let mut local_of: Vec<HashMap<VertexId, usize>> = Vec::with_capacity(samples);
        for i in 0..samples {
            let s = self.sample(i);
            let mut nodes = Vec::new();
            let mut index = HashMap::new();
            for &r in s.roots {
                index.entry(r).or_insert_with(|| {
                    nodes.push((r, 0));
                    nodes.len() - 1
                });
            }
            for (&v, &step) in s.vertices.iter().zip(s.steps) {
                index.entry(v).or_insert_with(|| {
                    nodes.push((v, step as usize + 1));
                    nodes.len() - 1
                });
            }
            per_sample.push(nodes);
            local_of.push(index);
        }
        // Global order: hop by hop, sample by sample inside a hop.
        let mut num_sampled_nodes = vec![0u64; hops + 1];
        for nodes in &per_sample {
            for &(_, hop) in nodes {
                num_sampled_nodes[hop] += 1;
            }
        }
        let mut next_of_hop: Vec<u64> = num_sampled_nodes
            .iter()
            .scan(0u64, |acc, &n| {
                let start = *acc;
                *acc += n;
                Some(start)
            })
            .collect();
        let total: u64 = num_sampled_nodes.iter().sum();
        let mut node = vec![0 as VertexId; total as usize];
        let mut batch = vec![0u64; total as usize];
        let mut global_of: Vec<Vec<u64>> = per_sample.iter().map(|nodes| vec![0; nodes.len()]).collect();
        for (hop, next) in next_of_hop.iter_mut().enumerate() {
            for (i, nodes) in per_sample.iter().enumerate() {
                for (k, &(v, h)) in nodes.iter().enumerate() {
                    if h == hop {
                        node[*next as usize] = v;
                        batch[*next as usize] = i as u64;
                        global_of[i][k] = *next;
                        *next += 1;
                    }
                }
            }
        }
        // Edges: step by step, sample by sample.
        let mut num_sampled_edges = vec![0u64; hops];
        let mut row = Vec::with_capacity(self.vertices.len());
        let mut col = Vec::with_capacity(self.vertices.len());
        for (step, count) in num_sampled_edges.iter_mut().enumerate() {
            for i in 0..samples {
                let s = self.sample(i);
                let local = |v: VertexId| global_of[i][local_of[i][&v]];
                for ((&v, &source), _) in
                    s.vertices.iter().zip(s.sources).zip(s.steps).filter(|&(_, &st)| st as usize == step)
                {
                    row.push(local(v));
                    col.push(local(source));
                    *count += 1;
                }
            }
        }
        SubgraphBatch { node, batch, row, col, num_sampled_nodes, num_sampled_edges }
    }
}

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
