//! From parsed edges with original ids to a [`Graph`]: vertex set, relabelling, CSR build.
//!
//! Every text parser hands over the same [`ParsedGraph`]: one buffer of original ids (all
//! sources, then all targets, then the vertices declared besides the endpoints) and the
//! weights. This module is the single place that turns it into a graph, so all formats
//! relabel and build identically:
//!
//! - ids are relabelled densely in increasing order of the original id
//!   ([`crate::graph::relabel`]), isolated and declared vertices included; keeping every id in
//!   one buffer lets a single `relabel` call see them all without another copy;
//! - a declared vertex set (`.v` file) must contain every endpoint, else the caller's
//!   `undeclared` callback turns the first offending edge into a positioned error;
//! - a range vertex set (Matrix Market's `1..=n`) needs no relabelling at all;
//! - then [`build_csr`](crate::graph::build_csr) applies the build options.

use crate::error::{Error, Result};
use crate::graph::{build_trusted, relabel, BuildOptions, EdgeSlices, Graph, VertexId, VertexIds};
use rayon::prelude::*;

/// Which vertices the graph has, given the buffer layout of [`ParsedGraph::ids`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VertexSet {
    /// The ids appearing as endpoints, plus the declared ones (edge lists, CSV, adjacency
    /// lists, whose lone-vertex lines declare vertices).
    Appearing,
    /// Exactly the declared ids (a `.v` file); an endpoint outside is an error.
    Declared,
    /// `first..first + len` (Matrix Market's `1..=n`); nothing is declared in the buffer.
    Range { first: u64, len: usize },
}

/// What a parser hands over.
#[derive(Debug)]
pub(crate) struct ParsedGraph {
    /// Original ids: the source of every edge, then the target of every edge (both in input
    /// order), then the vertices declared besides the endpoints.
    pub ids: Vec<u64>,
    /// Number of edges.
    pub edges: usize,
    /// One weight per edge, when the input is weighted.
    pub weights: Option<Vec<f32>>,
    /// How to read the vertex set.
    pub vertices: VertexSet,
}

impl ParsedGraph {
    fn sources(&self) -> &[u64] {
        &self.ids[..self.edges]
    }

    fn targets(&self) -> &[u64] {
        &self.ids[self.edges..2 * self.edges]
    }

    fn declared(&self) -> &[u64] {
        &self.ids[2 * self.edges..]
    }
}

/// Edges parsed from one chunk of input into vectors of their own (for formats whose number
/// of edges per line is not known in advance: adjacency lists).
#[derive(Debug, Default)]
pub(crate) struct EdgeChunk {
    /// Original source ids.
    pub sources: Vec<u64>,
    /// Original target ids.
    pub targets: Vec<u64>,
    /// Vertices the chunk declares besides edge endpoints.
    pub vertices: Vec<u64>,
}

impl ParsedGraph {
    /// Gathers per-chunk vectors (unweighted) into one buffer.
    pub(crate) fn from_chunks(chunks: Vec<EdgeChunk>, vertices: VertexSet) -> Self {
        let edges = chunks.iter().map(|c| c.sources.len()).sum();
        let mut parts: Vec<&[u64]> = chunks.iter().map(|c| c.sources.as_slice()).collect();
        parts.extend(chunks.iter().map(|c| c.targets.as_slice()));
        parts.extend(chunks.iter().map(|c| c.vertices.as_slice()));
        ParsedGraph { ids: concat(parts), edges, weights: None, vertices }
    }
}

/// An endpoint outside a declared vertex set: edge index (in input order), whether it is the
/// target, and the id.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Undeclared {
    pub edge: usize,
    pub is_target: bool,
    pub id: u64,
}

/// Builds the graph; `undeclared` makes the error for an endpoint outside the vertex set.
/// `symmetric` says whether the result is symmetric (the caller knows from the format and
/// the build options).
pub(crate) fn assemble(
    parsed: ParsedGraph,
    build: &BuildOptions,
    symmetric: bool,
    undeclared: impl FnOnce(Undeclared) -> Error,
) -> Result<Graph> {
    let m = parsed.edges;
    // Dense endpoints: all sources, then all targets (then, after relabelling, the declared
    // vertices, which the build does not read).
    let (dense, ids) = match parsed.vertices {
        VertexSet::Range { first, len } => {
            let outside = |id: u64| id.wrapping_sub(first) >= len as u64;
            if let Some(bad) = first_edge_outside(parsed.sources(), parsed.targets(), outside) {
                return Err(undeclared(bad));
            }
            let dense = parsed.ids[..2 * m].par_iter().map(|&id| (id - first) as VertexId).collect();
            (dense, VertexIds::Range { first, len })
        }
        VertexSet::Appearing | VertexSet::Declared => {
            let relabelled = relabel(&parsed.ids)?;
            if parsed.vertices == VertexSet::Declared {
                let mut declared = parsed.declared().to_vec();
                declared.par_sort_unstable();
                declared.dedup();
                if relabelled.ids.len() != declared.len() {
                    // More distinct ids than declared: some endpoint is undeclared.
                    let outside = |id: u64| declared.binary_search(&id).is_err();
                    let bad = first_edge_outside(parsed.sources(), parsed.targets(), outside);
                    return Err(undeclared(bad.unwrap_or(Undeclared { edge: 0, is_target: false, id: 0 })));
                }
            }
            (relabelled.dense, relabelled.ids)
        }
    };
    let ParsedGraph { ids: raw, weights, .. } = parsed;
    drop(raw);
    // Valid by construction: dense ids are below the vertex count, and parsers check weights.
    let (sources, rest) = dense.split_at(m);
    let edges = EdgeSlices { num_vertices: ids.len(), sources, targets: &rest[..m], weights: weights.as_deref() };
    let csr = build_trusted(edges, build)?;
    drop(dense);
    Ok(Graph { csr, ids, symmetric })
}

/// The first edge (in input order) with an endpoint for which `outside` holds.
fn first_edge_outside(sources: &[u64], targets: &[u64], outside: impl Fn(u64) -> bool + Sync) -> Option<Undeclared> {
    let edge = sources.par_iter().zip(targets).position_first(|(&s, &t)| outside(s) || outside(t))?;
    let is_target = !outside(sources[edge]);
    let id = if is_target { targets[edge] } else { sources[edge] };
    Some(Undeclared { edge, is_target, id })
}

/// Concatenates `parts` in parallel.
pub(crate) fn concat<T: Copy + Default + Send + Sync>(parts: Vec<&[T]>) -> Vec<T> {
    let total = parts.iter().map(|p| p.len()).sum();
    let mut out = vec![T::default(); total];
    let mut rest = out.as_mut_slice();
    let mut pieces = Vec::with_capacity(parts.len());
    for part in &parts {
        let (piece, tail) = rest.split_at_mut(part.len());
        pieces.push(piece);
        rest = tail;
    }
    pieces.into_par_iter().zip(parts).for_each(|(piece, part)| piece.copy_from_slice(part));
    out
}
