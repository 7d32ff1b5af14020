//! Samples as disjoint subgraphs over local vertex ids ([`SubgraphBatch`], the arrays of
//! PyG's `SamplerOutput`), numbered batch by batch ([`SubgraphNumbering`]) so that a streamed
//! run's subgraphs can be written without holding its samples.
//!
//! Local ids are numbered hop by hop over all samples, so a vertex's id depends on how many
//! vertices every sample has at the hops before its own: unknown until the last batch. The
//! numbering therefore gives each local vertex as a [`LocalVertex`] (its hop and its index
//! among that hop's vertices, which is known as soon as its sample is), and the id is the
//! hop's start plus that index once the run is over ([`SubgraphNumbering::hop_starts`]).
//!
//! A batch is numbered in two passes over chunks of its samples, side by side on the pool
//! ([`Layout`]): the first counts each chunk's local vertices per hop and edges per step, the
//! second numbers each chunk from where the chunks before it end, straight into arrays of
//! their final size. Numbered one sample after the other into arrays that grew as they
//! filled, a k-hop run's subgraphs took most of a Python call's time (com-DBLP: 9.4 s for 0.8 s
//! of sampling).

use super::outcome::SampleOutcome;
use crate::error::{Error, Result};
use crate::graph::VertexId;
use rayon::prelude::*;
use std::ops::Range;

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
    /// hold (no engine records one); the numbering is then unchanged.
    pub fn add(&mut self, batch: &SampleOutcome) -> Result<SubgraphPieces> {
        self.add_in_chunks(batch, chunk_vertices(batch))
    }

    /// [`Self::add`] with chunks of at least `chunk_vertices` vertices ([`Layout`]).
    fn add_in_chunks(&mut self, batch: &SampleOutcome, chunk_vertices: u64) -> Result<SubgraphPieces> {
        let layout = Layout::of(batch, chunk_vertices);
        let (nodes, edges) = (layout.nodes_per_hop(), layout.edges_per_step());
        let mut pieces = SubgraphPieces {
            node: nodes.iter().map(|&n| vec![0; n as usize]).collect(),
            batch: nodes.iter().map(|&n| vec![0; n as usize]).collect(),
            row: edges.iter().map(|&n| vec![LocalVertex { hop: 0, index: 0 }; n as usize]).collect(),
            col: edges.iter().map(|&n| vec![LocalVertex { hop: 0, index: 0 }; n as usize]).collect(),
        };
        let SubgraphPieces { node, batch: samples, row, col } = &mut pieces;
        let out = Regions { node: each_mut(node), batch: each_mut(samples), row: each_mut(row), col: each_mut(col) };
        layout.write(batch, &self.nodes_per_hop, |v| v, out)?;
        self.count(&nodes, &edges);
        Ok(pieces)
    }

    /// Adds a batch's local vertices per hop and edges per step to the counts so far.
    fn count(&mut self, nodes: &[u64], edges: &[u64]) {
        add_counts(&mut self.nodes_per_hop, nodes);
        add_counts(&mut self.edges_per_step, edges);
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
        self.subgraphs_in_chunks(chunk_vertices(self))
    }

    /// [`Self::subgraphs`] with chunks of at least `chunk_vertices` vertices ([`Layout`]).
    fn subgraphs_in_chunks(&self, chunk_vertices: u64) -> Result<SubgraphBatch> {
        let layout = Layout::of(self, chunk_vertices);
        let (nodes, edges) = (layout.nodes_per_hop(), layout.edges_per_step());
        let mut numbering = SubgraphNumbering::new();
        numbering.count(&nodes, &edges);
        let starts = numbering.hop_starts();
        let (node_count, edge_count) = (nodes.iter().sum::<u64>() as usize, edges.iter().sum::<u64>() as usize);
        // Zeroed allocations: pages the kernel maps zeroed as they are first written, once.
        let (mut node, mut batch) = (vec![0; node_count], vec![0; node_count]);
        let (mut row, mut col) = (vec![0; edge_count], vec![0; edge_count]);
        let out = Regions {
            node: split_lengths(&mut node, &nodes),
            batch: split_lengths(&mut batch, &nodes),
            row: split_lengths(&mut row, &edges),
            col: split_lengths(&mut col, &edges),
        };
        layout.write(self, &[], |v| starts[v.hop as usize] + v.index, out)?;
        Ok(SubgraphBatch {
            node,
            batch,
            row,
            col,
            num_sampled_nodes: numbering.num_sampled_nodes(),
            num_sampled_edges: edges,
        })
    }
}

/// Roots and added vertices each chunk of samples holds at least (the last chunk may hold
/// fewer): enough that a chunk's counts and parts of the arrays cost little beside its
/// vertices, few enough that the chunks share a batch out evenly among the threads.
const CHUNK_VERTICES: u64 = 1 << 14;

/// The vertices of `batch`'s chunks: [`CHUNK_VERTICES`], and at least 32 per hop its samples
/// reach, since a chunk keeps a count and a part of each array per hop and step (walks of
/// 10,000 steps in chunks of 16K vertices would keep more of them than vertices).
fn chunk_vertices(batch: &SampleOutcome) -> u64 {
    CHUNK_VERTICES.max(32 * (u64::from(batch.steps_taken()) + 1))
}

/// A batch cut into chunks of consecutive samples, and what each chunk adds to every hop and
/// step: the first of the numbering's two passes over the samples. The second
/// ([`Layout::write`]) numbers each chunk from where the chunks before it end, all chunks side
/// by side, into arrays of their final size: no array grows, and none but the outputs is as
/// large as the batch.
struct Layout {
    chunks: Vec<Range<usize>>,
    /// Per chunk: its local vertices at each hop ...
    nodes: Vec<Vec<u64>>,
    /// ... and its edges at each step.
    edges: Vec<Vec<u64>>,
}

/// A batch's part of each array, per hop (`node`, `batch`) and per step (`row`, `col`).
struct Regions<'a, T> {
    node: Vec<&'a mut [VertexId]>,
    batch: Vec<&'a mut [u64]>,
    row: Vec<&'a mut [T]>,
    col: Vec<&'a mut [T]>,
}

impl Layout {
    /// The chunks of `batch` (of at least `chunk_vertices` vertices) and their counts.
    fn of(batch: &SampleOutcome, chunk_vertices: u64) -> Layout {
        let chunks = chunks(batch, chunk_vertices);
        let (nodes, edges) = chunks
            .par_iter()
            .map_init(LocalTable::default, |table, chunk| {
                let (mut nodes, mut edges) = (Vec::new(), Vec::new());
                for k in chunk.clone() {
                    table.number(batch, k, |_, hop| {
                        bump(&mut nodes, hop as usize);
                        LocalVertex { hop, index: 0 }
                    });
                    batch.for_each_added(k, |_, _, step| bump(&mut edges, step as usize));
                }
                (nodes, edges)
            })
            .unzip();
        Layout { chunks, nodes, edges }
    }

    /// The batch's local vertices at each hop (up to the last hop that has one).
    fn nodes_per_hop(&self) -> Vec<u64> {
        column_sums(&self.nodes)
    }

    /// The batch's edges at each step (up to the last step that has one).
    fn edges_per_step(&self) -> Vec<u64> {
        column_sums(&self.edges)
    }

    /// Numbers `batch`'s samples into `out` (sized by [`Self::nodes_per_hop`] and
    /// [`Self::edges_per_step`]), the chunks side by side: a vertex's index in its hop starts
    /// after the `before[hop]` local vertices numbered before the batch, and an edge's ends are
    /// written as `id(local vertex)`. Errors on an edge from a vertex its sample does not hold.
    fn write<T: Copy + Send>(
        &self,
        batch: &SampleOutcome,
        before: &[u64],
        id: impl Fn(LocalVertex) -> T + Sync,
        out: Regions<'_, T>,
    ) -> Result<()> {
        // Where each chunk's part of every hop starts.
        let mut next: Vec<u64> = (0..out.node.len()).map(|h| before.get(h).copied().unwrap_or(0)).collect();
        let bases: Vec<Vec<u64>> = self
            .nodes
            .iter()
            .map(|nodes| {
                let base = next.clone();
                add_counts(&mut next, nodes);
                base
            })
            .collect();
        let Regions { node, batch: samples, row, col } = out;
        let parts = per_chunk(node, &self.nodes)
            .into_iter()
            .zip(per_chunk(samples, &self.nodes))
            .zip(per_chunk(row, &self.edges).into_iter().zip(per_chunk(col, &self.edges)))
            .zip(self.chunks.iter().zip(&bases))
            .collect::<Vec<_>>();
        // Each chunk's result, in order: the error reported is the first bad sample's.
        let numbered: Vec<Result<()>> = parts
            .into_par_iter()
            .map_init(LocalTable::default, |table, (((mut node, mut samples), (mut row, mut col)), (chunk, base))| {
                let mut node_cursor = vec![0usize; node.len()];
                let mut edge_cursor = vec![0usize; row.len()];
                for k in chunk.clone() {
                    let sample = batch.first + k as u64;
                    table.number(batch, k, |v, hop| {
                        let h = hop as usize;
                        let at = node_cursor[h];
                        node_cursor[h] += 1;
                        (node[h][at], samples[h][at]) = (v, sample);
                        LocalVertex { hop, index: base[h] + at as u64 }
                    });
                    let mut missing = None;
                    batch.for_each_added(k, |v, source, step| match (table.get(v), table.get(source)) {
                        (Some(drawn), Some(transit)) => {
                            let s = step as usize;
                            let at = edge_cursor[s];
                            edge_cursor[s] += 1;
                            (row[s][at], col[s][at]) = (id(drawn), id(transit));
                        }
                        _ => missing = missing.or(Some((source, v))),
                    });
                    if let Some((source, v)) = missing {
                        return Err(Error::invalid(format!(
                            "internal: sample {sample} has an edge {source} -> {v} from a vertex it does not hold"
                        )));
                    }
                }
                Ok(())
            })
            .collect();
        numbered.into_iter().collect()
    }
}

/// A worker's table of one sample's local vertices, kept from sample to sample: open
/// addressing (linear probing, Fibonacci hashing) over at least twice as many slots as the
/// sample has vertices, a slot empty unless its stamp is the sample's, so that starting the
/// next sample clears nothing. (A `HashMap` cleared and filled a sample at a time numbered
/// k-hop 25,10 on com-DBLP in 373-407 ms where this table takes 319-336 ms, 2 threads, medians
/// of 7.)
#[derive(Default)]
struct LocalTable {
    vertices: Vec<VertexId>,
    locals: Vec<LocalVertex>,
    stamps: Vec<u32>,
    /// The stamp of the sample being numbered (never 0, the stamp of a slot never used).
    stamp: u32,
    /// `64 - log2(slots)`: a vertex's first slot is the top bits of its Fibonacci hash.
    shift: u32,
}

impl LocalTable {
    /// Numbers sample `k` of `batch`: its distinct vertices in the order they first appear,
    /// roots at hop 0 and an added vertex at its step + 1, each given its local vertex by
    /// `new(vertex, hop)`.
    fn number(&mut self, batch: &SampleOutcome, k: usize, mut new: impl FnMut(VertexId, u32) -> LocalVertex) {
        let roots = batch.roots_of(k);
        self.start(roots.len() + batch.added(k).len());
        let mut first = |v: VertexId, hop: u32| {
            let slot = self.slot(v);
            if self.stamps[slot] != self.stamp {
                (self.stamps[slot], self.vertices[slot], self.locals[slot]) = (self.stamp, v, new(v, hop));
            }
        };
        roots.iter().for_each(|&r| first(r, 0));
        batch.for_each_added(k, |v, _, step| first(v, step.saturating_add(1)));
    }

    /// Empties the table for a sample of at most `vertices` distinct vertices: a new stamp,
    /// and new slots when there are too few (or, after a large sample, far too many: a small
    /// sample's probes would spread over them).
    fn start(&mut self, vertices: usize) {
        let slots = vertices.saturating_mul(2).next_power_of_two().max(64);
        if self.stamps.len() < slots || self.stamps.len() > 16 * slots || self.stamp == u32::MAX {
            self.vertices = vec![0; slots];
            self.locals = vec![LocalVertex { hop: 0, index: 0 }; slots];
            self.stamps = vec![0; slots];
            self.stamp = 0;
            self.shift = 64 - slots.trailing_zeros();
        }
        self.stamp += 1;
    }

    /// The slot of `v`: where it is, or the empty slot where it goes.
    #[inline(always)]
    fn slot(&self, v: VertexId) -> usize {
        let mask = self.stamps.len() - 1;
        let mut slot = (u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        while self.stamps[slot] == self.stamp && self.vertices[slot] != v {
            slot = (slot + 1) & mask;
        }
        slot
    }

    /// The local vertex of `v` in the sample last numbered.
    fn get(&self, v: VertexId) -> Option<LocalVertex> {
        let slot = self.slot(v);
        (self.stamps[slot] == self.stamp).then(|| self.locals[slot])
    }
}

/// `batch` cut into ranges of consecutive samples holding at least `vertices` roots and added
/// vertices each (the last one possibly fewer).
fn chunks(batch: &SampleOutcome, vertices: u64) -> Vec<Range<usize>> {
    let size =
        |k: usize| (batch.root_offsets[k + 1] - batch.root_offsets[k]) + (batch.offsets[k + 1] - batch.offsets[k]);
    let (mut chunks, mut start, mut held) = (Vec::new(), 0, 0u64);
    for k in 0..batch.num_samples() {
        held += size(k);
        if held >= vertices {
            chunks.push(start..k + 1);
            (start, held) = (k + 1, 0);
        }
    }
    if start < batch.num_samples() {
        chunks.push(start..batch.num_samples());
    }
    chunks
}

/// Adds one to `counts[at]`, growing `counts` to hold it.
fn bump(counts: &mut Vec<u64>, at: usize) {
    if counts.len() <= at {
        counts.resize(at + 1, 0);
    }
    counts[at] += 1;
}

/// Adds `added` to `counts` entry by entry, growing `counts` to hold them (missing entries
/// count 0).
fn add_counts(counts: &mut Vec<u64>, added: &[u64]) {
    if counts.len() < added.len() {
        counts.resize(added.len(), 0);
    }
    counts.iter_mut().zip(added).for_each(|(count, &n)| *count += n);
}

/// The sums of `rows`' columns (rows of any length).
fn column_sums(rows: &[Vec<u64>]) -> Vec<u64> {
    let mut sums = Vec::new();
    rows.iter().for_each(|row| add_counts(&mut sums, row));
    sums
}

/// `array` cut into consecutive regions of `lengths` (which add up to its length).
fn split_lengths<'a, T>(mut array: &'a mut [T], lengths: &[u64]) -> Vec<&'a mut [T]> {
    lengths
        .iter()
        .map(|&n| {
            let (region, rest) = std::mem::take(&mut array).split_at_mut(n as usize);
            array = rest;
            region
        })
        .collect()
}

/// Each of `arrays` as a region.
fn each_mut<T>(arrays: &mut [Vec<T>]) -> Vec<&mut [T]> {
    arrays.iter_mut().map(|array| &mut array[..]).collect()
}

/// The regions of a batch (one per hop or step) cut among its chunks: each chunk's parts, one
/// per region, of `counts[chunk][region]` entries.
fn per_chunk<'a, T>(regions: Vec<&'a mut [T]>, counts: &[Vec<u64>]) -> Vec<Vec<&'a mut [T]>> {
    let mut parts: Vec<Vec<&'a mut [T]>> = counts.iter().map(|_| Vec::with_capacity(regions.len())).collect();
    for (r, region) in regions.into_iter().enumerate() {
        let lengths: Vec<u64> = counts.iter().map(|chunk| chunk.get(r).copied().unwrap_or(0)).collect();
        for (part, piece) in parts.iter_mut().zip(split_lengths(region, &lengths)) {
            part.push(piece);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::roots::InitialSamples;
    use rustc_hash::FxHashMap;

    /// The numbering as its definition reads, one sample after the other through
    /// [`SampleOutcome::sample`] (the code the two-pass numbering replaced): the reference.
    fn reference(outcome: &SampleOutcome) -> SubgraphBatch {
        let (mut node, mut batch): (Vec<Vec<VertexId>>, Vec<Vec<u64>>) = (Vec::new(), Vec::new());
        let mut edges: Vec<Vec<(LocalVertex, LocalVertex)>> = Vec::new();
        let mut local: FxHashMap<VertexId, LocalVertex> = FxHashMap::default();
        for k in 0..outcome.num_samples() {
            let s = outcome.sample(k);
            local.clear();
            let hops =
                s.roots.iter().map(|&r| (r, 0)).chain(s.vertices.iter().zip(s.steps.iter()).map(|(&v, &t)| (v, t + 1)));
            for (v, hop) in hops {
                if let std::collections::hash_map::Entry::Vacant(slot) = local.entry(v) {
                    let h = hop as usize;
                    if node.len() <= h {
                        node.resize(h + 1, Vec::new());
                        batch.resize(h + 1, Vec::new());
                    }
                    slot.insert(LocalVertex { hop, index: node[h].len() as u64 });
                    node[h].push(v);
                    batch[h].push(outcome.first + k as u64);
                }
            }
            for ((&v, &source), &step) in s.vertices.iter().zip(s.sources.iter()).zip(s.steps.iter()) {
                if edges.len() <= step as usize {
                    edges.resize(step as usize + 1, Vec::new());
                }
                edges[step as usize].push((local[&v], local[&source]));
            }
        }
        let mut num_sampled_nodes: Vec<u64> = node.iter().map(|n| n.len() as u64).collect();
        num_sampled_nodes.resize(edges.len() + 1, 0);
        let starts: Vec<u64> =
            num_sampled_nodes.iter().scan(0, |next, &n| Some(std::mem::replace(next, *next + n))).collect();
        let id = |v: &LocalVertex| starts[v.hop as usize] + v.index;
        SubgraphBatch {
            node: node.concat(),
            batch: batch.concat(),
            row: edges.iter().flatten().map(|(v, _)| id(v)).collect(),
            col: edges.iter().flatten().map(|(_, t)| id(t)).collect(),
            num_sampled_nodes,
            num_sampled_edges: edges.iter().map(|e| e.len() as u64).collect(),
        }
    }

    /// Random numbers for the test outcomes (splitmix64).
    struct Draws(u64);
    impl Draws {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        }
    }

    /// Kinds of test outcome: records held, steps implied by their ends, walks.
    #[derive(Debug, Clone, Copy)]
    enum Kind {
        Held,
        Stepped,
        Walks,
    }

    /// `samples` random samples over 30 vertices (so that vertices repeat within a sample and
    /// across samples) of up to 3 steps, in batches of `batch` samples: 1 to 3 roots (walks:
    /// 1; a sample has at least one, `InitialSamples` refuses others), each step drawing up to 5
    /// vertices (walks: 1) from the vertices the step before added (the roots for the first),
    /// some samples stopping early.
    fn batches(kind: Kind, samples: usize, batch: usize, seed: u64) -> Vec<SampleOutcome> {
        const STEPS: u32 = 3;
        let mut draws = Draws(seed);
        let walks = matches!(kind, Kind::Walks);
        let (mut offsets, mut roots) = (vec![0u64], Vec::new());
        for _ in 0..samples {
            let count = if walks { 1 } else { 1 + draws.below(3) };
            roots.extend((0..count).map(|_| draws.below(30) as VertexId));
            offsets.push(roots.len() as u64);
        }
        let initial = InitialSamples::groups(offsets, roots, 30).unwrap();
        let mut batches = Vec::new();
        for first in (0..samples).step_by(batch) {
            let range = first..(first + batch).min(samples);
            let mut outcome = SampleOutcome::with_roots_of(&initial, range.clone());
            let (mut all_sources, mut ends) = (Vec::new(), Vec::new());
            for k in 0..range.len() {
                let mut transits = outcome.roots_of(k).to_vec();
                let (mut vertices, mut sources, mut steps) = (Vec::new(), Vec::new(), Vec::new());
                for step in 0..STEPS {
                    let added = if transits.is_empty() {
                        0
                    } else if walks {
                        1
                    } else {
                        draws.below(6) as usize
                    };
                    let mut next = Vec::new();
                    for _ in 0..added {
                        let source = transits[draws.below(transits.len() as u64) as usize];
                        let v = draws.below(30) as VertexId;
                        vertices.push(v);
                        sources.push(source);
                        steps.push(step);
                        next.push(v);
                    }
                    ends.push(vertices.len() as u64);
                    transits = next;
                }
                match kind {
                    // Every other held sample lists its vertices backwards: held steps need not
                    // be in order within a sample (a vertex's hop is its first appearance's).
                    Kind::Held if k % 2 == 1 => {
                        let backwards = |values: &[u32]| values.iter().rev().copied().collect::<Vec<_>>();
                        outcome.push(&backwards(&vertices), &backwards(&sources), &backwards(&steps));
                    }
                    Kind::Held => outcome.push(&vertices, &sources, &steps),
                    Kind::Stepped | Kind::Walks => {
                        outcome.push_vertices(&vertices);
                        all_sources.extend(sources);
                    }
                }
            }
            match kind {
                Kind::Held => {}
                Kind::Stepped => outcome.set_step_ends(all_sources, STEPS, ends).unwrap(),
                Kind::Walks => outcome.set_walks().unwrap(),
            }
            batches.push(outcome);
        }
        batches
    }

    /// [`batches`] as one outcome.
    fn outcome(kind: Kind, samples: usize, seed: u64) -> SampleOutcome {
        let mut whole = SampleOutcome::empty(0);
        for batch in batches(kind, samples, 64, seed) {
            whole.append(batch).unwrap();
        }
        whole
    }

    #[test]
    fn chunks_cover_the_samples_in_order_with_at_least_their_vertices() {
        let o = outcome(Kind::Held, 200, 1);
        for vertices in [1, 5, 64, 1 << 20] {
            let chunks = chunks(&o, vertices);
            assert_eq!(chunks.first().map(|c| c.start), Some(0));
            assert_eq!(chunks.last().map(|c| c.end), Some(200));
            assert!(chunks.windows(2).all(|w| w[0].end == w[1].start && !w[0].is_empty()));
            let held = |c: &Range<usize>| {
                c.clone().map(|k| o.roots_of(k).len() as u64 + o.offsets[k + 1] - o.offsets[k]).sum::<u64>()
            };
            assert!(chunks[..chunks.len() - 1].iter().all(|c| held(c) >= vertices), "{vertices}");
        }
        assert!(chunks(&SampleOutcome::empty(0), 5).is_empty());
    }

    #[test]
    fn subgraphs_in_any_chunks_are_the_reference_numbering() {
        for (kind, seed) in [(Kind::Held, 2), (Kind::Stepped, 3), (Kind::Walks, 4), (Kind::Held, 5)] {
            let o = outcome(kind, 300, seed);
            let expected = reference(&o);
            assert!(expected.row.len() > 300, "{kind:?}: a test with edges");
            for chunk_vertices in [1, 3, 40, CHUNK_VERTICES] {
                assert_eq!(
                    o.subgraphs_in_chunks(chunk_vertices).unwrap(),
                    expected,
                    "{kind:?}, chunks of {chunk_vertices}"
                );
            }
        }
        let empty = SampleOutcome::empty(0);
        assert_eq!(empty.subgraphs().unwrap(), reference(&empty));
    }

    #[test]
    fn batches_numbered_in_any_chunks_continue_the_numbering() {
        let expected = reference(&outcome(Kind::Stepped, 240, 6));
        for chunk_vertices in [1, 7, CHUNK_VERTICES] {
            let mut numbering = SubgraphNumbering::new();
            let pieces: Vec<SubgraphPieces> = batches(Kind::Stepped, 240, 50, 6)
                .iter()
                .map(|batch| numbering.add_in_chunks(batch, chunk_vertices).unwrap())
                .collect();
            let starts = numbering.hop_starts();
            let id = |v: &LocalVertex| starts[v.hop as usize] + v.index;
            let hops = numbering.num_sampled_nodes().len();
            let gather = |part: fn(&SubgraphPieces) -> &Vec<Vec<u64>>| {
                (0..hops)
                    .flat_map(|h| pieces.iter().flat_map(move |p| part(p).get(h).into_iter().flatten().copied()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(gather(|p| &p.batch), expected.batch);
            let node: Vec<VertexId> = (0..hops)
                .flat_map(|h| pieces.iter().flat_map(move |p| p.node.get(h).into_iter().flatten().copied()))
                .collect();
            assert_eq!(node, expected.node);
            let steps = numbering.num_sampled_edges().len();
            let ends = |part: fn(&SubgraphPieces) -> &Vec<Vec<LocalVertex>>| {
                (0..steps)
                    .flat_map(|s| pieces.iter().flat_map(move |p| part(p).get(s).into_iter().flatten().map(id)))
                    .collect::<Vec<_>>()
            };
            assert_eq!(ends(|p| &p.row), expected.row);
            assert_eq!(ends(|p| &p.col), expected.col);
            assert_eq!(numbering.num_sampled_nodes(), expected.num_sampled_nodes);
            assert_eq!(numbering.num_sampled_edges(), expected.num_sampled_edges);
        }
    }

    #[test]
    fn chunks_hold_at_least_32_vertices_per_hop_their_samples_reach() {
        for kind in [Kind::Held, Kind::Stepped, Kind::Walks] {
            let o = outcome(kind, 100, 7);
            let last_step = (0..o.num_samples()).flat_map(|k| o.sample(k).steps.into_owned()).max().unwrap();
            assert_eq!(o.steps_taken(), 3, "{kind:?}");
            assert_eq!(last_step + 1, 3, "{kind:?}: the test's samples reach their third step");
            assert_eq!(chunk_vertices(&o), CHUNK_VERTICES);
        }
        // A walk of 1,000 steps: chunks of at least 32 * 1,001 vertices.
        let initial = InitialSamples::given(vec![0], 2).unwrap();
        let mut walk = SampleOutcome::with_roots_of(&initial, 0..1);
        walk.push_vertices(&[1, 0].repeat(500));
        walk.set_walks().unwrap();
        assert_eq!((walk.steps_taken(), chunk_vertices(&walk)), (1000, 32 * 1001));
        assert_eq!(SampleOutcome::empty(0).steps_taken(), 0);
    }

    #[test]
    fn an_edge_from_a_vertex_its_sample_does_not_hold_is_refused_and_numbers_nothing() {
        let initial = InitialSamples::given(vec![1, 2, 5, 6], 10).unwrap();
        let mut batch = SampleOutcome::with_roots_of(&initial, 0..4);
        batch.push(&[3], &[1], &[0]);
        batch.push(&[4], &[9], &[0]); // 9 is not in sample 1 ...
        batch.push(&[7], &[5], &[0]);
        batch.push(&[8], &[9], &[0]); // ... nor in sample 3: sample 1 is named, whichever chunk ends first
        let mut numbering = SubgraphNumbering::new();
        let error = numbering.add_in_chunks(&batch, 1).unwrap_err().to_string();
        assert!(error.contains("sample 1 has an edge 9 -> 4 from a vertex it does not hold"), "{error}");
        assert_eq!(numbering, SubgraphNumbering::new());
        assert!(batch.subgraphs().is_err());
    }
}
