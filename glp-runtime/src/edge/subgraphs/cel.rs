//! The subgraphs' pieces: a subgraph's own edges and, with the Concatenated Edge List, the
//! edges of the subgraphs already processed in the outer iteration whose senders are its
//! receivers, cut into pieces an engine's edge buffer holds.

use super::{CarriedEdges, SubgraphPlan};
use crate::graph::VertexId;
use rayon::prelude::*;
use std::ops::Range;

/// WolfGraph's mapping array: for each vertex, the indices of the edges it sends along,
/// ascending (a counting sort of the senders).
#[derive(Debug)]
pub struct SentBy {
    offsets: Vec<u64>,
    edges: Vec<u64>,
}

impl SentBy {
    pub fn of(list: &CarriedEdges) -> Self {
        let mut offsets = vec![0u64; list.num_vertices() + 1];
        for &s in list.senders() {
            offsets[s as usize + 1] += 1;
        }
        for v in 0..list.num_vertices() {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets.clone();
        let mut edges = vec![0u64; list.len() as usize];
        for (i, &s) in list.senders().iter().enumerate() {
            edges[next[s as usize] as usize] = i as u64;
            next[s as usize] += 1;
        }
        SentBy { offsets, edges }
    }

    /// The edges `v` sends along, ascending.
    fn of_vertex(&self, v: VertexId) -> &[u64] {
        &self.edges[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }
}

/// One piece: edges an engine's edge buffer holds, run to local convergence as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The subgraph it belongs to.
    pub subgraph: u64,
    /// The subgraph's own edges it holds (a range of the edge list).
    pub own: Range<u64>,
    /// The concatenated edges it holds (indices into the edge list, ascending).
    pub appended: Vec<u64>,
}

impl Piece {
    /// The edges it holds.
    pub fn len(&self) -> u64 {
        self.own.end - self.own.start + self.appended.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes its senders, receivers and (when `weights` is given) weights to the start of
    /// the slices, own edges first; returns how many.
    pub fn fill(
        &self,
        list: &CarriedEdges,
        senders: &mut [VertexId],
        receivers: &mut [VertexId],
        weights: Option<&mut [f32]>,
    ) -> usize {
        let own = (self.own.start as usize)..(self.own.end as usize);
        let k = own.len();
        let n = k + self.appended.len();
        senders[..k].copy_from_slice(&list.senders()[own.clone()]);
        receivers[..k].copy_from_slice(&list.receivers()[own.clone()]);
        let gather = |out: &mut [VertexId], from: &[VertexId]| {
            out[k..n].par_iter_mut().zip(&self.appended).for_each(|(o, &i)| *o = from[i as usize])
        };
        gather(senders, list.senders());
        gather(receivers, list.receivers());
        if let (Some(out), Some(from)) = (weights, list.weights()) {
            out[..k].copy_from_slice(&from[own]);
            out[k..n].par_iter_mut().zip(&self.appended).for_each(|(o, &i)| *o = from[i as usize]);
        }
        n
    }

    /// Each edge's `(sender, receiver, weight)`, own edges first.
    pub fn edges<'l>(&'l self, list: &'l CarriedEdges) -> impl Iterator<Item = (VertexId, VertexId, f64)> + 'l {
        let own = (self.own.start as usize)..(self.own.end as usize);
        own.chain(self.appended.iter().map(|&i| i as usize))
            .map(|i| (list.senders()[i], list.receivers()[i], list.weight(i)))
    }
}

/// Builds the pieces of the subgraphs of `plan`, in order, with their CEL when `plan.cel`.
pub struct Pieces<'l> {
    list: &'l CarriedEdges,
    plan: SubgraphPlan,
    sent_by: Option<SentBy>,
    /// Per vertex bit: a receiver of the subgraph being built (cleared after each).
    seen: Vec<u64>,
}

impl<'l> Pieces<'l> {
    /// The pieces of `list` under `plan` (with the CEL, the mapping array built here).
    pub fn new(list: &'l CarriedEdges, plan: SubgraphPlan) -> Self {
        let sent_by = plan.cel.then(|| SentBy::of(list));
        let seen = if plan.cel { vec![0u64; list.num_vertices().div_ceil(64)] } else { Vec::new() };
        Pieces { list, plan, sent_by, seen }
    }

    pub fn plan(&self) -> &SubgraphPlan {
        &self.plan
    }

    /// The number of subgraphs.
    pub fn subgraphs(&self) -> u64 {
        self.plan.subgraphs(self.list.len())
    }

    /// The pieces of subgraph `s`: its own edges, then its concatenated ones, cut to the plan's
    /// piece size.
    pub fn of_subgraph(&mut self, s: u64) -> Vec<Piece> {
        let len = self.list.len();
        let own = (s * self.plan.subgraph_edges).min(len)..((s + 1) * self.plan.subgraph_edges).min(len);
        let appended = self.concatenated(own.clone());
        let capacity = self.plan.piece_edges as usize;
        let first_room = capacity - (own.end - own.start) as usize;
        let (first, rest) = appended.split_at(first_room.min(appended.len()));
        let mut pieces = vec![Piece { subgraph: s, own: own.clone(), appended: first.to_vec() }];
        pieces.extend(rest.chunks(capacity).map(|chunk| Piece {
            subgraph: s,
            own: own.end..own.end,
            appended: chunk.to_vec(),
        }));
        pieces
    }

    /// The CEL's edges of the subgraph whose own edges are `own`: every edge before it (in
    /// the subgraphs processed earlier in the outer iteration) sent by one of its receivers,
    /// ascending. Empty without the CEL.
    fn concatenated(&mut self, own: Range<u64>) -> Vec<u64> {
        let Some(sent_by) = &self.sent_by else { return Vec::new() };
        let mut distinct: Vec<VertexId> = Vec::new();
        for &r in &self.list.receivers()[own.start as usize..own.end as usize] {
            let (word, bit) = (r as usize / 64, 1u64 << (r % 64));
            if self.seen[word] & bit == 0 {
                self.seen[word] |= bit;
                distinct.push(r);
            }
        }
        let mut appended: Vec<u64> = distinct
            .par_iter()
            .flat_map_iter(|&r| {
                let sent = sent_by.of_vertex(r);
                sent[..sent.partition_point(|&i| i < own.start)].iter().copied()
            })
            .collect();
        for r in distinct {
            self.seen[r as usize / 64] &= !(1u64 << (r % 64));
        }
        appended.par_sort_unstable();
        appended
    }
}
