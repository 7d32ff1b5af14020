//! The subgraphs' pieces: a subgraph's own edges and, with the Concatenated Edge List, the
//! edges of the subgraphs already processed in the outer iteration whose senders are its
//! receivers, cut into pieces an engine's edge buffer holds.

use super::{CarriedEdges, SubgraphPlan};
use crate::error::Result;
use crate::graph::VertexId;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// WolfGraph's mapping array: for each vertex, the indices of the edges it sends along,
/// ascending (a counting sort of the senders).
#[derive(Debug)]
pub struct SentBy {
    offsets: Vec<u64>,
    edges: Vec<u64>,
}

impl SentBy {
    /// The mapping array of `list`: a counting sort of the senders on every thread (each
    /// vertex's edges placed with an atomic cursor, then sorted).
    ///
    /// Errors: [`crate::Error::TooLarge`] when the host's memory cannot hold it (about 16
    /// bytes an edge and 16 a vertex while it is built).
    pub fn of(list: &CarriedEdges) -> Result<Self> {
        let n = list.num_vertices();
        crate::memory::ensure_available(16 * list.len() + 16 * n as u64, || {
            "cannot build the CEL's mapping array".into()
        })?;
        let counts: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        list.senders().par_iter().for_each(|&s| {
            counts[s as usize].fetch_add(1, Relaxed);
        });
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        for count in &counts {
            offsets.push(offsets[offsets.len() - 1] + count.load(Relaxed));
        }
        let cursors: Vec<AtomicU64> = offsets[..n].par_iter().map(|&o| AtomicU64::new(o)).collect();
        let placed: Vec<AtomicU64> = (0..list.len()).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        list.senders().par_iter().enumerate().for_each(|(i, &s)| {
            placed[cursors[s as usize].fetch_add(1, Relaxed) as usize].store(i as u64, Relaxed);
        });
        let mut edges: Vec<u64> = placed.into_par_iter().map(AtomicU64::into_inner).collect();
        let mut rows: Vec<&mut [u64]> = Vec::with_capacity(n);
        let mut rest = &mut edges[..];
        for v in 0..n {
            let (row, tail) = rest.split_at_mut((offsets[v + 1] - offsets[v]) as usize);
            rows.push(row);
            rest = tail;
        }
        rows.into_par_iter().for_each(|row| row.sort_unstable());
        Ok(SentBy { offsets, edges })
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
    /// The concatenated edges it holds (a range of its subgraph's CEL).
    pub cel: Range<usize>,
}

impl Piece {
    /// The edges it holds.
    pub fn len(&self) -> u64 {
        self.own.end - self.own.start + self.cel.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each edge's `(sender, receiver, weight)`, own edges (of `list`) first, then those of
    /// `cel` (its subgraph's).
    pub fn edges<'l>(
        &'l self,
        list: &'l CarriedEdges,
        cel: &'l CarriedEdges,
    ) -> impl Iterator<Item = (VertexId, VertexId, f64)> + 'l {
        let edge = |edges: &CarriedEdges, i: usize| (edges.senders()[i], edges.receivers()[i], edges.weight(i));
        let own = (self.own.start as usize)..(self.own.end as usize);
        own.map(move |i| edge(list, i)).chain(self.cel.clone().map(move |i| edge(cel, i)))
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
    /// The pieces of `list` under `plan` (the CEL's mapping array is built when first needed).
    pub fn new(list: &'l CarriedEdges, plan: SubgraphPlan) -> Self {
        Pieces { list, plan, sent_by: None, seen: Vec::new() }
    }

    /// The number of subgraphs.
    pub fn subgraphs(&self) -> u64 {
        self.plan.subgraphs(self.list.len())
    }

    /// Subgraph `s`'s own edges: a range of the edge list.
    pub fn own(&self, s: u64) -> Range<u64> {
        self.plan.own(s, self.list.len())
    }

    /// Subgraph `s`'s CEL and its pieces: its own edges, then its concatenated ones, cut to
    /// the plan's piece size ([`SubgraphPlan::cut`]).
    ///
    /// Errors: the mapping array's ([`SentBy::of`]).
    pub fn of_subgraph(&mut self, s: u64) -> Result<(CarriedEdges, Vec<Piece>)> {
        let own = self.own(s);
        let cel = self.concatenated(s)?;
        let pieces = self
            .plan
            .cut(own, cel.len() as usize)
            .into_iter()
            .map(|(own, cel)| Piece { subgraph: s, own, cel })
            .collect();
        Ok((cel, pieces))
    }

    /// Subgraph `s`'s concatenated edges (none without the CEL): edges of the subgraphs before
    /// it (processed earlier in the outer iteration) whose senders are its receivers. On an
    /// edge list that holds each edge's reverse in receiver order ([`CarriedEdges::reversible`]:
    /// a symmetric graph's), the reverses of its own edges whose senders come before its
    /// first receiver: a scan of its own edges, every one of them such an edge (those of a
    /// receiver whose row the subgraph boundary cuts may be missing). Otherwise every such
    /// edge, found with the mapping array ([`Pieces::concatenated_indices`]).
    ///
    /// Errors: the mapping array's ([`SentBy::of`]).
    pub fn concatenated(&mut self, s: u64) -> Result<CarriedEdges> {
        let own = self.own(s);
        if !self.plan.cel || own.is_empty() {
            return Ok(self.list.subset(&[]));
        }
        Ok(match self.list.reversible() {
            true => self.list.reversed_before(own),
            false => {
                let indices = self.concatenated_of(own)?;
                self.list.subset(&indices)
            }
        })
    }

    /// The number of edges of each subgraph's CEL, when counting them costs a scan of the
    /// edges (a reversible list), else `None`; an engine sizes its CEL buffers with it.
    pub fn cel_sizes(&self) -> Option<Vec<usize>> {
        match (self.plan.cel, self.list.reversible()) {
            (true, true) => Some((0..self.subgraphs()).map(|s| self.list.count_reversed_before(self.own(s))).collect()),
            _ => None,
        }
    }

    /// Writes subgraph `s`'s CEL ([`Pieces::concatenated`]) to the slices, which hold as many
    /// edges as [`Pieces::cel_sizes`] counts for it: on a reversible list, with no buffer of
    /// its own. Returns false (writing nothing) on other lists.
    pub fn concatenated_into(
        &self,
        s: u64,
        senders: &mut [VertexId],
        receivers: &mut [VertexId],
        weights: Option<&mut [f32]>,
    ) -> bool {
        if !(self.plan.cel && self.list.reversible()) {
            return false;
        }
        self.list.reversed_before_into(self.own(s), senders, receivers, weights);
        true
    }

    /// The indices of every edge before subgraph `s` sent by one of its receivers, ascending
    /// (WolfGraph's CEL, found with the mapping array). Empty without the CEL.
    ///
    /// Errors: the mapping array's ([`SentBy::of`]).
    pub fn concatenated_indices(&mut self, s: u64) -> Result<Vec<u64>> {
        self.concatenated_of(self.own(s))
    }

    /// The CEL's edges of the subgraph whose own edges are `own`.
    fn concatenated_of(&mut self, own: Range<u64>) -> Result<Vec<u64>> {
        if !self.plan.cel {
            return Ok(Vec::new());
        }
        if self.sent_by.is_none() {
            self.sent_by = Some(SentBy::of(self.list)?);
            self.seen = vec![0u64; self.list.num_vertices().div_ceil(64)];
        }
        let Some(sent_by) = &self.sent_by else { return Ok(Vec::new()) };
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
        Ok(appended)
    }
}
