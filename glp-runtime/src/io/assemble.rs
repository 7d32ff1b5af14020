//! From parsed edges with original ids to a [`Graph`]: vertex set, relabelling, CSR build.
//!
//! Every text parser produces the same thing: per-chunk vectors of original source and target
//! ids (and weights), plus a description of the vertex set. This module is the single place
//! that turns them into a graph, so all formats relabel and build identically:
//!
//! - ids are relabelled densely in increasing order of the original id
//!   ([`crate::graph::relabel`]), isolated and declared vertices included;
//! - a declared vertex set (`.v` file) must contain every endpoint, else the caller's
//!   `undeclared` callback turns the first offending edge into a positioned error;
//! - a range vertex set (Matrix Market's `1..=n`) needs no relabelling at all;
//! - then [`build_csr`] applies the build options.

use crate::error::{Error, Result};
use crate::graph::{build_csr, relabel, BuildOptions, EdgeList, Graph, VertexId, VertexIds};
use rayon::prelude::*;

/// Edges parsed from one chunk of input, with original ids.
#[derive(Debug, Default)]
pub(crate) struct EdgeChunk {
    /// Original source ids.
    pub sources: Vec<u64>,
    /// Original target ids.
    pub targets: Vec<u64>,
    /// One weight per edge when the input is weighted, else empty.
    pub weights: Vec<f32>,
    /// Vertices the chunk declares besides edge endpoints (adjacency-list lines).
    pub vertices: Vec<u64>,
}

/// Which vertices the graph has.
#[derive(Debug)]
pub(crate) enum VertexSet {
    /// The ids appearing as endpoints, plus those the chunks declare (edge lists, CSV,
    /// adjacency lists).
    Appearing,
    /// Exactly these ids (a `.v` file); an endpoint outside is an error.
    Declared(Vec<u64>),
    /// `first..first + len` (Matrix Market's `1..=n`); the parser has checked the endpoints.
    Range { first: u64, len: usize },
}

/// What a parser hands over.
#[derive(Debug)]
pub(crate) struct ParsedGraph {
    /// Edges, chunk after chunk, in input order.
    pub chunks: Vec<EdgeChunk>,
    /// Whether the edges carry weights.
    pub weighted: bool,
    /// The vertex set.
    pub vertices: VertexSet,
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
    let ParsedGraph { chunks, weighted, vertices } = parsed;
    let m: usize = chunks.iter().map(|c| c.sources.len()).sum();
    let weights = weighted.then(|| concat(chunks.iter().map(|c| c.weights.as_slice()).collect()));
    let (sources, targets, ids) = match vertices {
        VertexSet::Range { first, len } => {
            let outside = |id: u64| id.wrapping_sub(first) >= len as u64;
            if let Some(bad) = first_edge_outside(&chunks, outside) {
                return Err(undeclared(bad));
            }
            let to_dense = |id: u64| (id - first) as VertexId;
            let sources = map_concat(chunks.iter().map(|c| c.sources.as_slice()).collect(), to_dense);
            let targets = map_concat(chunks.iter().map(|c| c.targets.as_slice()).collect(), to_dense);
            (sources, targets, VertexIds::Range { first, len })
        }
        VertexSet::Appearing => relabel_with(&chunks, m, &[])?,
        VertexSet::Declared(declared) => {
            let (sources, targets, ids) = relabel_with(&chunks, m, &declared)?;
            let mut distinct = declared;
            distinct.par_sort_unstable();
            distinct.dedup();
            if ids.len() != distinct.len() {
                let outside = |id: u64| distinct.binary_search(&id).is_err();
                // More distinct ids than declared: some endpoint is undeclared.
                let bad =
                    first_edge_outside(&chunks, outside).unwrap_or(Undeclared { edge: 0, is_target: false, id: 0 });
                return Err(undeclared(bad));
            }
            (sources, targets, ids)
        }
    };
    drop(chunks);
    let edges = EdgeList { num_vertices: ids.len(), sources, targets, weights };
    let csr = build_csr(&edges, build)?;
    Ok(Graph { csr, ids, symmetric })
}

/// Relabels sources, targets and the chunks' declared vertices plus `extra` together.
fn relabel_with(chunks: &[EdgeChunk], m: usize, extra: &[u64]) -> Result<(Vec<VertexId>, Vec<VertexId>, VertexIds)> {
    let mut parts: Vec<&[u64]> = chunks.iter().map(|c| c.sources.as_slice()).collect();
    parts.extend(chunks.iter().map(|c| c.targets.as_slice()));
    parts.extend(chunks.iter().map(|c| c.vertices.as_slice()));
    parts.push(extra);
    let all = concat(parts);
    let relabelled = relabel(&all)?;
    drop(all);
    let mut sources = relabelled.dense;
    let targets = sources[m..2 * m].to_vec();
    sources.truncate(m);
    sources.shrink_to_fit();
    Ok((sources, targets, relabelled.ids))
}

/// The first edge (in input order) with an endpoint for which `outside` holds.
fn first_edge_outside(chunks: &[EdgeChunk], outside: impl Fn(u64) -> bool + Sync) -> Option<Undeclared> {
    let mut base = 0;
    for chunk in chunks {
        let bad = chunk.sources.par_iter().zip(&chunk.targets).position_first(|(&s, &t)| outside(s) || outside(t));
        if let Some(i) = bad {
            let is_target = !outside(chunk.sources[i]);
            let id = if is_target { chunk.targets[i] } else { chunk.sources[i] };
            return Some(Undeclared { edge: base + i, is_target, id });
        }
        base += chunk.sources.len();
    }
    None
}

/// Concatenates `parts` in parallel, mapping every element through `f`.
fn map_concat<T: Copy + Sync, U: Copy + Default + Send>(parts: Vec<&[T]>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let total = parts.iter().map(|p| p.len()).sum();
    let mut out = vec![U::default(); total];
    let mut rest = out.as_mut_slice();
    let mut pieces = Vec::with_capacity(parts.len());
    for part in &parts {
        let (piece, tail) = rest.split_at_mut(part.len());
        pieces.push(piece);
        rest = tail;
    }
    pieces.into_par_iter().zip(parts).for_each(|(piece, part)| {
        for (o, &x) in piece.iter_mut().zip(part) {
            *o = f(x);
        }
    });
    out
}

/// Concatenates `parts` in parallel.
pub(crate) fn concat<T: Copy + Default + Send + Sync>(parts: Vec<&[T]>) -> Vec<T> {
    map_concat(parts, |x| x)
}
