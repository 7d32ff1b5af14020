//! The edges the subgraphs split, as values travel along them: each edge's sender (whose
//! value it carries), receiver and weight, in the order the subgraphs take them.

use crate::edge::{is_idempotent, EdgeGraph, BOTH, IN, OUT};
use crate::error::{Error, Result};
use crate::graph::{Csr, EdgeList, VertexId};
use rayon::prelude::*;
use std::ops::Range;

/// Edges as `(sender, receiver, weight)` in three arrays, in subgraph order (a
/// [`EdgeList`] holds them as parsed: source and target).
#[derive(Debug, Clone, PartialEq)]
pub struct CarriedEdges {
    num_vertices: usize,
    senders: Vec<VertexId>,
    receivers: Vec<VertexId>,
    /// `None`: every weight is 1.
    weights: Option<Vec<f32>>,
    /// Whether the list holds each edge's reverse (with its weight), in receiver order.
    reversible: bool,
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
            reversible: graph.is_symmetric() && rows.len() == 1,
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
        Ok(CarriedEdges {
            num_vertices: n,
            senders,
            receivers,
            weights: weighted.then_some(weights),
            reversible: false,
        })
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

    /// Whether the list holds each edge's reverse with its weight, in receiver order (the
    /// edges a run pulls once on a symmetric graph).
    pub fn reversible(&self) -> bool {
        self.reversible
    }

    /// The edges `indices`, in order.
    pub fn subset(&self, indices: &[u64]) -> CarriedEdges {
        let mut senders = vec![0; indices.len()];
        let mut receivers = vec![0; indices.len()];
        let mut weights = self.weights.as_ref().map(|_| vec![0.0; indices.len()]);
        self.gather(indices, &mut senders, &mut receivers, weights.as_deref_mut());
        CarriedEdges { num_vertices: self.num_vertices, senders, receivers, weights, reversible: false }
    }

    /// The reverses of the edges `own` whose senders are below the receiver of the first,
    /// in order.
    pub(super) fn reversed_before(&self, own: Range<u64>) -> CarriedEdges {
        let n = self.count_reversed_before(own.clone());
        let mut senders = vec![0; n];
        let mut receivers = vec![0; n];
        let mut weights = self.weights.as_ref().map(|_| vec![0.0; n]);
        self.reversed_before_into(own, &mut senders, &mut receivers, weights.as_deref_mut());
        CarriedEdges { num_vertices: self.num_vertices, senders, receivers, weights, reversible: false }
    }

    /// How many edges [`CarriedEdges::reversed_before`] gives.
    pub(super) fn count_reversed_before(&self, own: Range<u64>) -> usize {
        self.reversed_chunks(own).iter().map(|(_, count)| count).sum()
    }

    /// The edges `own` in chunks, with the count of each one's edges whose senders are below
    /// the first's receiver.
    fn reversed_chunks(&self, own: Range<u64>) -> Vec<(Range<usize>, usize)> {
        const CHUNK: usize = 1 << 16;
        let own = (own.start as usize)..(own.end as usize);
        let Some(&first) = self.receivers.get(own.start) else { return Vec::new() };
        let starts: Vec<usize> = own.clone().step_by(CHUNK).collect();
        starts
            .into_par_iter()
            .map(|at| {
                let chunk = at..(at + CHUNK).min(own.end);
                let count = self.senders[chunk.clone()].iter().filter(|&&s| s < first).count();
                (chunk, count)
            })
            .collect()
    }

    /// Writes [`CarriedEdges::reversed_before`]'s edges to the slices (as long as their
    /// count), on every thread: each chunk of the edges counted, then written where the counts
    /// before it end.
    pub(super) fn reversed_before_into(
        &self,
        own: Range<u64>,
        senders: &mut [VertexId],
        receivers: &mut [VertexId],
        weights: Option<&mut [f32]>,
    ) {
        let Some(&first) = self.receivers.get(own.start as usize) else { return };
        let chunks = self.reversed_chunks(own);
        let mut parts = Vec::with_capacity(chunks.len());
        let (mut senders, mut receivers, mut weights) = (senders, receivers, weights);
        for (chunk, count) in chunks {
            let (s, s_rest) = std::mem::take(&mut senders).split_at_mut(count);
            let (r, r_rest) = std::mem::take(&mut receivers).split_at_mut(count);
            let w = match weights.take() {
                Some(all) => {
                    let (w, w_rest) = all.split_at_mut(count);
                    weights = Some(w_rest);
                    Some(w)
                }
                None => None,
            };
            parts.push((chunk, s, r, w));
            (senders, receivers) = (s_rest, r_rest);
        }
        parts.into_par_iter().for_each(|(chunk, s, r, mut w)| {
            for (k, i) in chunk.filter(|&i| self.senders[i] < first).enumerate() {
                s[k] = self.receivers[i];
                r[k] = self.senders[i];
                if let (Some(w), Some(from)) = (w.as_deref_mut(), &self.weights) {
                    w[k] = from[i];
                }
            }
        });
    }

    /// Writes the senders, receivers and (when `weights` is given) weights of the edges
    /// `indices` to the slices, in order, on every thread.
    pub fn gather(
        &self,
        indices: &[u64],
        senders: &mut [VertexId],
        receivers: &mut [VertexId],
        weights: Option<&mut [f32]>,
    ) {
        let gather = |out: &mut [VertexId], from: &[VertexId]| {
            out.par_iter_mut().zip(indices).for_each(|(o, &i)| *o = from[i as usize])
        };
        gather(senders, &self.senders);
        gather(receivers, &self.receivers);
        if let (Some(out), Some(from)) = (weights, &self.weights) {
            out.par_iter_mut().zip(indices).for_each(|(o, &i)| *o = from[i as usize]);
        }
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
