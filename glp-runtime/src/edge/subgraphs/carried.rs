//! The edges the subgraphs split, as values travel along them: each edge's sender (whose
//! value it carries), receiver and weight, in the order the subgraphs take them.

use crate::edge::{is_idempotent, EdgeGraph, BOTH, IN, OUT};
use crate::error::{Error, Result};
use crate::graph::{Csr, EdgeList, VertexId};
use rayon::prelude::*;

/// Edges as `(sender, receiver, weight)` in three arrays, in subgraph order (a
/// [`EdgeList`] holds them as parsed: source and target).
#[derive(Debug, Clone, PartialEq)]
pub struct CarriedEdges {
    num_vertices: usize,
    senders: Vec<VertexId>,
    receivers: Vec<VertexId>,
    /// `None`: every weight is 1.
    weights: Option<Vec<f32>>,
}

impl CarriedEdges {
    /// The edges a run pulling in `direction` with combine `combine` reads on `graph`, in the
    /// in-memory engines' order ([`EdgeGraph::pull_rows`]): row by row of each receiver, so
    /// that an edge block's receivers are consecutive ids (its shared-memory slots serve).
    pub fn pulled(graph: &EdgeGraph<'_>, direction: u32, combine: u32) -> Result<Self> {
        let rows = graph.pull_rows(direction, combine)?;
        let total: u64 = rows.iter().map(|csr| csr.num_edges()).sum();
        crate::memory::ensure_available(total * 12, || "cannot hold the edge list of the subgraphs".into())?;
        let mut list = CarriedEdges {
            num_vertices: graph.num_vertices(),
            senders: Vec::with_capacity(total as usize),
            receivers: Vec::with_capacity(total as usize),
            weights: rows.iter().all(|csr| csr.is_weighted()).then(|| Vec::with_capacity(total as usize)),
        };
        for csr in rows {
            list.senders.extend_from_slice(csr.targets());
            list.receivers.extend(expanded_rows(csr));
            if let (Some(weights), Some(w)) = (&mut list.weights, csr.weights()) {
                weights.extend_from_slice(w);
            }
        }
        Ok(list)
    }

    /// The edges of `list` in its order (a file's), carried as `direction` says: `source ->
    /// target` for [`OUT`], `target -> source` for [`IN`], both for [`BOTH`]; `weighted` keeps
    /// the weights (1 without).
    ///
    /// Errors: an id that is not a vertex, a direction out of range.
    pub fn from_edge_list(list: &EdgeList, weighted: bool, direction: u32) -> Result<Self> {
        if direction > BOTH {
            return Err(Error::invalid(format!("direction {direction}; expected OUT, IN or BOTH")));
        }
        let n = list.num_vertices;
        if let Some((u, w)) = list.sources.iter().zip(&list.targets).find(|(u, w)| (**u).max(**w) as usize >= n) {
            return Err(Error::invalid(format!("edge {u} -> {w}: not a vertex of a graph of {n} vertices")));
        }
        let weight = |i: usize| list.weights.as_ref().map_or(1.0, |w| w[i]);
        let (mut senders, mut receivers, mut weights) = (Vec::new(), Vec::new(), Vec::new());
        let mut carry = |from: &[VertexId], to: &[VertexId]| {
            senders.extend_from_slice(from);
            receivers.extend_from_slice(to);
            weights.extend((0..from.len()).map(weight));
        };
        if direction != IN {
            carry(&list.sources, &list.targets);
        }
        if direction != OUT {
            carry(&list.targets, &list.sources);
        }
        Ok(CarriedEdges { num_vertices: n, senders, receivers, weights: weighted.then_some(weights) })
    }

    /// The number of vertices the ids index.
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// The number of edges.
    pub fn len(&self) -> u64 {
        self.senders.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.senders.is_empty()
    }

    pub fn senders(&self) -> &[VertexId] {
        &self.senders
    }

    pub fn receivers(&self) -> &[VertexId] {
        &self.receivers
    }

    /// The weights, `None` when every weight is 1.
    pub fn weights(&self) -> Option<&[f32]> {
        self.weights.as_deref()
    }

    /// Edge `i`'s weight (1 without weights).
    pub fn weight(&self, i: usize) -> f64 {
        self.weights.as_ref().map_or(1.0, |w| f64::from(w[i]))
    }

    /// Bytes an edge takes in an engine's arrays: sender, receiver and weight if any.
    pub fn edge_bytes(&self) -> u64 {
        8 + if self.weights.is_some() { 4 } else { 0 }
    }
}

/// The row of each entry of `csr`, in entry order.
fn expanded_rows(csr: &Csr) -> Vec<VertexId> {
    (0..csr.num_vertices() as VertexId)
        .into_par_iter()
        .flat_map_iter(|v| std::iter::repeat_n(v, csr.degree(v)))
        .collect()
}

impl EdgeGraph<'_> {
    /// The CSRs a receiver pulls its messages from in `direction` with combine `combine`, in
    /// the CPU engine's order: the in-edges (for [`OUT`] and [`BOTH`]), then the out-edges
    /// (for [`IN`] and [`BOTH`]). On a symmetric graph both are one CSR, which `BOTH` with an
    /// idempotent combine (min, max) reads once: its messages combined twice give what they
    /// give once.
    pub fn pull_rows(&self, direction: u32, combine: u32) -> Result<Vec<&Csr>> {
        if direction > BOTH {
            return Err(Error::invalid(format!("direction {direction}; expected OUT, IN or BOTH")));
        }
        let symmetric = self.is_symmetric();
        let mut rows = Vec::new();
        if direction != IN {
            rows.push(self.in_edges());
        }
        if direction != OUT && !(symmetric && direction == BOTH && is_idempotent(combine)) {
            rows.push(self.out_edges());
        }
        Ok(rows)
    }

    /// The edges an iteration that reads every edge pulling in `direction` with `combine`
    /// reads ([`EdgeGraph::pull_rows`]).
    pub fn edges_read(&self, direction: u32, combine: u32) -> Result<u64> {
        Ok(self.pull_rows(direction, combine)?.iter().map(|csr| csr.num_edges()).sum())
    }
}
