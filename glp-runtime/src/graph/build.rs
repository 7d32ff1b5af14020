//! Edge list -> CSR: symmetrisation, self loops, duplicate edges, sorted rows.
//!
//! The build is parallel and deterministic: entries are partitioned by source bucket, then
//! each row is sorted by (target, weight) with a total order and reduced, so the result does
//! not depend on the thread count or scheduling (see [`build_csr`] for the passes).

use super::csr::{Csr, VertexId};
use crate::error::{Error, Result};
use crate::memory::{close_gaps, try_zeroed};
use rayon::prelude::*;

/// What to do with several edges between the same ordered pair of vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DuplicateEdges {
    /// Keep every copy (a multigraph). LDBC CDLP on directed graphs needs this: a neighbour
    /// linked in both directions counts twice once the graph is symmetrised.
    Keep,
    /// Keep one edge per pair; its weight is the largest of the copies (a deterministic rule
    /// that leaves inputs listing both directions with equal weights unchanged).
    #[default]
    Collapse,
    /// Keep one edge per pair whose weight is the sum of the copies' weights (the count of
    /// copies on an unweighted graph, which then becomes weighted).
    Sum,
}

/// How [`build_csr`] turns an edge list into a CSR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildOptions {
    /// Add the reverse v->u of every edge u->v (community detection works on the
    /// symmetrised graph).
    pub symmetrise: bool,
    /// Drop edges v->v.
    pub drop_self_loops: bool,
    /// Treatment of repeated edges (after symmetrisation).
    pub duplicates: DuplicateEdges,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { symmetrise: true, drop_self_loops: true, duplicates: DuplicateEdges::Collapse }
    }
}

/// Edges with dense endpoints, as parsers and generators produce them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EdgeList {
    /// Number of vertices (every endpoint is below it).
    pub num_vertices: usize,
    /// Source of each edge.
    pub sources: Vec<VertexId>,
    /// Target of each edge.
    pub targets: Vec<VertexId>,
    /// Weight of each edge, when the input has weights.
    pub weights: Option<Vec<f32>>,
}

impl EdgeList {
    /// Number of edges.
    pub fn len(&self) -> usize {
        self.sources.len()
    }

    /// Whether there is no edge.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// The list as borrowed slices.
    pub(crate) fn as_slices(&self) -> EdgeSlices<'_> {
        EdgeSlices {
            num_vertices: self.num_vertices,
            sources: &self.sources,
            targets: &self.targets,
            weights: self.weights.as_deref(),
        }
    }
}

/// A borrowed [`EdgeList`]: what [`build_trusted`] reads, so that callers holding the
/// endpoints in parts of larger buffers (the parsers' relabelled ids) need no copies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EdgeSlices<'a> {
    /// Number of vertices (every endpoint is below it).
    pub num_vertices: usize,
    /// Source of each edge.
    pub sources: &'a [VertexId],
    /// Target of each edge (as many as sources).
    pub targets: &'a [VertexId],
    /// Weight of each edge, when the input has weights (as many as sources, all finite).
    pub weights: Option<&'a [f32]>,
}

impl EdgeSlices<'_> {
    /// Number of edges.
    fn len(&self) -> usize {
        self.sources.len()
    }
}

/// Builds a CSR with sorted rows from `edges` as `options` say.
///
/// Errors when the lists have different lengths, an endpoint is out of range, a weight is not
/// finite, or the result would not fit the CSR's index types.
///
/// The build is cache-conscious and free of atomics, in three parallel passes:
/// 1. **partition**: every stored entry (its source relative to its bucket, and its target,
///    packed with its weight when weighted) is written to the bucket of its source, a bucket
///    being a range of `ROWS_PER_BUCKET` consecutive vertices; each task counts its entries
///    per bucket first, so all writes land at precomputed, contiguous positions;
/// 2. **rows**: each bucket sorts its entries by source (a counting sort whose counters fit
///    in cache), sorts every row, applies the duplicate policy and compacts the bucket;
/// 3. **assemble**: a prefix sum over the row lengths gives the offsets; unweighted, the
///    compacted buckets are moved together in place and become the targets, weighted, each
///    bucket unpacks its rows into the final arrays.
///
/// Peak memory per stored entry (before deduplication) is 6 bytes unweighted, and 10 plus
/// the result weighted.
pub fn build_csr(edges: &EdgeList, options: &BuildOptions) -> Result<Csr> {
    check_edges(edges.as_slices())?;
    build_trusted(edges.as_slices(), options)
}

/// The graph LDBC Graphalytics CDLP reads on a directed input: every stored edge `u -> v` of
/// the directed `csr` in both rows, `v` in `u`'s and `u` in `v`'s, so that a label is counted
/// over in- and out-neighbours and a neighbour linked both ways counts twice. Nothing else is
/// merged: repeated edges of one direction were kept, collapsed or summed when `csr` was built
/// (`BuildOptions::duplicates` with `symmetrise: false`), each copy keeps its edge's weight,
/// and a self loop `v -> v` that `csr` kept is stored once in `v`'s row. The result is
/// symmetric (as a multigraph: a reciprocal pair is two parallel edges each way).
///
/// Memory: the build's working space for twice the stored edges, plus 4 bytes per stored edge
/// for the sources.
pub fn directed_neighbourhoods(csr: &Csr) -> Result<Csr> {
    let sources = edge_sources(csr)?;
    let edges = EdgeSlices {
        num_vertices: csr.num_vertices(),
        sources: &sources,
        targets: csr.targets(),
        weights: csr.weights(),
    };
    let options = BuildOptions { symmetrise: true, drop_self_loops: false, duplicates: DuplicateEdges::Keep };
    build_trusted(edges, &options)
}

/// The reverse of `csr`: row `v` lists the sources of the edges into `v` (ascending), each
/// stored edge once with its weight. Edge programs read a directed graph's in-edges from it.
///
/// Memory: the build's working space for the stored edges, plus 4 bytes per stored edge for
/// the sources.
pub fn transpose(csr: &Csr) -> Result<Csr> {
    let sources = edge_sources(csr)?;
    let edges = EdgeSlices {
        num_vertices: csr.num_vertices(),
        sources: csr.targets(),
        targets: &sources,
        weights: csr.weights(),
    };
    let options = BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Keep };
    build_trusted(edges, &options)
}

/// The source of each stored edge of `csr`, in storage order.
fn edge_sources(csr: &Csr) -> Result<Vec<VertexId>> {
    let offsets = csr.offsets();
    let mut sources: Vec<VertexId> = try_zeroed(csr.num_edges() as usize, "the directed graph's edge sources")?;
    let mut rows: Vec<&mut [VertexId]> = Vec::with_capacity(csr.num_vertices());
    let mut rest = &mut sources[..];
    for v in 0..csr.num_vertices() {
        let (row, tail) = rest.split_at_mut((offsets[v + 1] - offsets[v]) as usize);
        rows.push(row);
        rest = tail;
    }
    rows.into_par_iter().enumerate().for_each(|(v, row)| row.fill(v as VertexId));
    Ok(sources)
}

/// [`build_csr`] for edges whose validity the caller has established: equal lengths, every
/// endpoint below `num_vertices`, finite weights. The text parsers guarantee all three
/// (relabelling yields ids below the vertex count, weights are checked where they are parsed),
/// so re-checking them would only read every edge once more; debug builds still check.
pub(crate) fn build_trusted(edges: EdgeSlices<'_>, options: &BuildOptions) -> Result<Csr> {
    debug_assert!(check_edges(edges).is_ok(), "{:?}", check_edges(edges));
    let weighted = edges.weights.is_some() || options.duplicates == DuplicateEdges::Sum;
    if edges.num_vertices == 0 {
        return Ok(Csr::from_sorted_parts(vec![0], Vec::new(), weighted.then(Vec::new)));
    }
    if weighted {
        build_weighted(edges, options)
    } else {
        build_unweighted(edges, options)
    }
}

/// The build of an unweighted CSR: entries are bare targets (6 bytes with the bucket-relative
/// source, against 10 for weighted ones), and the buffer they are partitioned into becomes
/// the CSR's targets once each bucket's kept rows are moved left over the dropped entries.
fn build_unweighted(edges: EdgeSlices<'_>, options: &BuildOptions) -> Result<Csr> {
    let Partitioned { sources, mut entries, bucket_starts } = partition_by_source(edges, options, |target, _| target)?;
    let collapse = options.duplicates != DuplicateEdges::Keep;
    let (offsets, kept) = sort_buckets(edges.num_vertices, sources, &mut entries, &bucket_starts, |row| {
        if collapse {
            dedup_sorted(row)
        } else {
            row.len()
        }
    });
    let sizes: Vec<usize> = bucket_starts.windows(2).map(|w| (w[1] - w[0]) as usize).collect();
    close_gaps(&mut entries, &sizes, &kept, 0, 0);
    entries.truncate(kept.iter().sum());
    entries.shrink_to_fit();
    Ok(Csr::from_sorted_parts(offsets, entries, None))
}

/// The build of a weighted CSR (or one that [`DuplicateEdges::Sum`] makes weighted): entries
/// are targets packed with their weights ([`pack`]), unpacked into the CSR's two arrays last.
fn build_weighted(edges: EdgeSlices<'_>, options: &BuildOptions) -> Result<Csr> {
    let n = edges.num_vertices;
    let Partitioned { sources, mut entries, bucket_starts } = partition_by_source(edges, options, pack)?;
    let (offsets, kept) =
        sort_buckets(n, sources, &mut entries, &bucket_starts, |row| reduce_row(row, options.duplicates));
    let m = offsets[n] as usize;
    let buckets = bucket_starts.len() - 1;
    let row_bounds: Vec<usize> = (0..=buckets).map(|b| (b * ROWS_PER_BUCKET).min(n)).collect();
    let mut targets: Vec<VertexId> = try_zeroed(m, "the CSR targets")?;
    let mut weights: Vec<f32> = try_zeroed(m, "the CSR weights")?;
    split_by_bounds(&mut targets, &offsets, &row_bounds)
        .into_par_iter()
        .zip(split_by_bounds(&mut weights, &offsets, &row_bounds))
        .enumerate()
        .for_each(|(b, (targets, weights))| {
            let start = bucket_starts[b] as usize;
            for (k, &e) in entries[start..start + kept[b]].iter().enumerate() {
                targets[k] = (e >> 32) as VertexId;
                weights[k] = weight_of(e);
            }
        });
    Ok(Csr::from_sorted_parts(offsets, targets, Some(weights)))
}

/// Pass 2 of [`build_csr`], shared by both entry types: sorts and reduces every bucket in
/// parallel ([`sort_bucket`]), consuming the sources. Returns the CSR offsets and the number
/// of entries each bucket kept (at the start of its range of `entries`).
fn sort_buckets<E: Entry>(
    n: usize,
    mut sources: Vec<u16>,
    entries: &mut [E],
    bucket_starts: &[u64],
    reduce: impl Fn(&mut [E]) -> usize + Sync,
) -> (Vec<u64>, Vec<usize>) {
    let mut degrees = vec![0u64; n];
    let every_bucket: Vec<usize> = (0..bucket_starts.len()).collect();
    let kept: Vec<usize> = split_by_bounds(entries, bucket_starts, &every_bucket)
        .into_par_iter()
        .zip(split_by_bounds(&mut sources, bucket_starts, &every_bucket))
        .zip(degrees.par_chunks_mut(ROWS_PER_BUCKET))
        .map(|((entries, sources), degrees)| sort_bucket(sources, entries, degrees, &reduce))
        .collect();
    drop(sources);
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut total = 0u64;
    for d in degrees {
        total += d;
        offsets.push(total);
    }
    (offsets, kept)
}

/// Vertices per bucket of [`build_csr`]: the counting sort's two arrays of 8-byte counters
/// (64 KiB) stay in L2, and the partition pass writes to few enough buckets at once
/// (measured: 2^12 loads a 298 MB edge list at 193 MB/s on 2 cores, 2^11 at 155, 2^13 at 162).
const ROWS_PER_BUCKET: usize = 1 << 12;

/// What a row holds per edge: its target (`u32`), or its target and weight ([`pack`]).
/// Ordering entries orders a row by target (then weight).
trait Entry: Copy + Ord + Send + Sync + bytemuck::Zeroable {}

impl<E: Copy + Ord + Send + Sync + bytemuck::Zeroable> Entry for E {}

/// Entries grouped by the bucket of their source.
struct Partitioned<E> {
    /// Source of each entry, relative to the first vertex of its bucket.
    sources: Vec<u16>,
    /// The entries.
    entries: Vec<E>,
    /// Bucket `b` holds entries `bucket_starts[b]..bucket_starts[b + 1]`.
    bucket_starts: Vec<u64>,
}

/// Pass 1 of [`build_csr`]: every stored entry, made by `entry` from its target and weight
/// (1 when unweighted), written to the bucket of its source.
fn partition_by_source<E: Entry>(
    edges: EdgeSlices<'_>,
    options: &BuildOptions,
    entry: impl Fn(VertexId, f32) -> E + Sync,
) -> Result<Partitioned<E>> {
    let n = edges.num_vertices;
    let buckets = n.div_ceil(ROWS_PER_BUCKET).max(1);
    let tasks = (rayon::current_num_threads() * 4).clamp(1, edges.len().max(1));
    let slice = edges.len().div_ceil(tasks).max(1);
    let keep = |s: VertexId, t: VertexId| !(options.drop_self_loops && s == t);
    // A symmetrised self loop is stored once: its reverse is itself.
    let add_reverse = |s: VertexId, t: VertexId| options.symmetrise && s != t;
    let bucket = |v: VertexId| v as usize / ROWS_PER_BUCKET;
    let task_range = |task: usize| (task * slice).min(edges.len())..((task + 1) * slice).min(edges.len());

    // Entries each task sends to each bucket.
    let counts: Vec<Vec<u64>> = (0..tasks)
        .into_par_iter()
        .map(|task| {
            let mut counts = vec![0u64; buckets];
            for i in task_range(task) {
                let (s, t) = (edges.sources[i], edges.targets[i]);
                if keep(s, t) {
                    counts[bucket(s)] += 1;
                    if add_reverse(s, t) {
                        counts[bucket(t)] += 1;
                    }
                }
            }
            counts
        })
        .collect();
    // Bucket-major, task-minor positions.
    let mut cursors = vec![vec![0u64; buckets]; tasks];
    let mut bucket_starts = Vec::with_capacity(buckets + 1);
    let mut total = 0u64;
    for b in 0..buckets {
        bucket_starts.push(total);
        for task in 0..tasks {
            cursors[task][b] = total;
            total += counts[task][b];
        }
    }
    bucket_starts.push(total);
    let m = usize::try_from(total).map_err(|_| Error::TooLarge(format!("{total} edges do not fit in memory")))?;
    let mut sources: Vec<u16> = try_zeroed(m, "the edge sources")?;
    let mut entries: Vec<E> = try_zeroed(m, "the edge entries")?;
    {
        let source_slots = SharedSlice::new(&mut sources);
        let entry_slots = SharedSlice::new(&mut entries);
        cursors.into_par_iter().enumerate().for_each(|(task, mut cursor)| {
            let mut put = |row: VertexId, target: VertexId, weight: f32| {
                let at = &mut cursor[bucket(row)];
                // SAFETY: the positions of (task, bucket) are the disjoint range
                // cursors[task][bucket] .. + counts[task][bucket], which this task alone
                // writes, each exactly once (the same loop counted them).
                unsafe {
                    source_slots.write(*at as usize, (row as usize % ROWS_PER_BUCKET) as u16);
                    entry_slots.write(*at as usize, entry(target, weight));
                }
                *at += 1;
            };
            for i in task_range(task) {
                let (s, t) = (edges.sources[i], edges.targets[i]);
                if keep(s, t) {
                    let w = edges.weights.map_or(1.0, |w| w[i]);
                    put(s, t, w);
                    if add_reverse(s, t) {
                        put(t, s, w);
                    }
                }
            }
        });
    }
    Ok(Partitioned { sources, entries, bucket_starts })
}

/// Pass 2 of [`build_csr`] for one bucket (`sources` relative to its first vertex): orders
/// its entries by source, sorts each row and shortens it with `reduce`, leaves the kept rows
/// at the start of `entries`, writes each row's kept length to `degrees`, and returns the
/// bucket's kept total.
fn sort_bucket<E: Entry>(
    sources: &[u16],
    entries: &mut [E],
    degrees: &mut [u64],
    reduce: impl Fn(&mut [E]) -> usize,
) -> usize {
    let rows = degrees.len();
    let mut starts = vec![0usize; rows + 1];
    for &s in sources.iter() {
        starts[s as usize + 1] += 1;
    }
    for r in 0..rows {
        starts[r + 1] += starts[r];
    }
    let mut ordered = vec![E::zeroed(); entries.len()];
    let mut cursor = starts.clone();
    for (&s, &e) in sources.iter().zip(entries.iter()) {
        let at = &mut cursor[s as usize];
        ordered[*at] = e;
        *at += 1;
    }
    let mut kept_total = 0usize;
    for r in 0..rows {
        let row = &mut ordered[starts[r]..starts[r + 1]];
        row.sort_unstable();
        let kept = reduce(row);
        entries[kept_total..kept_total + kept].copy_from_slice(&row[..kept]);
        kept_total += kept;
        degrees[r] = kept as u64;
    }
    kept_total
}

/// A slice several threads write at disjoint positions.
struct SharedSlice<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: writers promise disjoint positions (see `write`); T: Send makes moving values
// into the slice from other threads sound.
unsafe impl<T: Send> Sync for SharedSlice<T> {}

impl<T> SharedSlice<T> {
    fn new(slice: &mut [T]) -> Self {
        SharedSlice { ptr: slice.as_mut_ptr(), len: slice.len() }
    }

    /// Writes `value` at `index`.
    ///
    /// # Safety
    /// No other thread may read or write `index` while the slice is shared, and the borrow
    /// the slice was made from must outlive every call.
    unsafe fn write(&self, index: usize, value: T) {
        assert!(index < self.len, "write at {index} outside a slice of {}", self.len);
        // SAFETY: in bounds (checked above); exclusive per the caller's contract.
        unsafe { self.ptr.add(index).write(value) }
    }
}

fn check_edges(edges: EdgeSlices<'_>) -> Result<()> {
    let n = edges.num_vertices;
    if n > u32::MAX as usize {
        return Err(Error::TooLarge(format!("{n} vertices exceed the u32 vertex id range")));
    }
    if edges.targets.len() != edges.sources.len() {
        return Err(Error::invalid(format!(
            "edge list has {} sources but {} targets",
            edges.sources.len(),
            edges.targets.len()
        )));
    }
    if let Some(w) = edges.weights {
        if w.len() != edges.sources.len() {
            return Err(Error::invalid(format!("edge list has {} weights for {} edges", w.len(), edges.len())));
        }
        if let Some(i) = w.par_iter().position_any(|x| !x.is_finite()) {
            return Err(Error::invalid(format!("edge {i} has a non-finite weight {}", w[i])));
        }
    }
    let out_of_range = edges.sources.par_iter().chain(edges.targets.par_iter()).find_any(|&&v| v as usize >= n);
    if let Some(v) = out_of_range {
        return Err(Error::invalid(format!("edge endpoint {v} is outside 0..{n}")));
    }
    Ok(())
}

/// Packs an edge into one `u64` that sorts by target, then by weight in `f32::total_cmp`
/// order: the weight's bits are mapped to an unsigned key with the same order (flip all bits
/// of negatives, the sign bit of the others), so rows sort as plain integers.
#[inline]
fn pack(target: VertexId, weight: f32) -> u64 {
    let bits = weight.to_bits();
    let key = if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 };
    ((target as u64) << 32) | key as u64
}

/// The weight of a packed edge (inverse of the key mapping of [`pack`]).
#[inline]
fn weight_of(e: u64) -> f32 {
    let key = e as u32;
    f32::from_bits(if key >> 31 == 1 { key & 0x7FFF_FFFF } else { !key })
}

/// Removes the repeats of a sorted row in place; returns the kept length.
fn dedup_sorted<T: PartialEq + Copy>(row: &mut [T]) -> usize {
    let mut kept = 0;
    for i in 0..row.len() {
        if kept == 0 || row[i] != row[kept - 1] {
            row[kept] = row[i];
            kept += 1;
        }
    }
    kept
}

/// Reduces a sorted row of packed entries in place according to `policy`; returns the kept
/// length.
fn reduce_row(row: &mut [u64], policy: DuplicateEdges) -> usize {
    if policy == DuplicateEdges::Keep || row.is_empty() {
        return row.len();
    }
    let mut kept = 0;
    let mut i = 0;
    while i < row.len() {
        let target = row[i] >> 32;
        let mut j = i + 1;
        while j < row.len() && row[j] >> 32 == target {
            j += 1;
        }
        let weight = match policy {
            // Sorted by weight within a target: the last copy has the largest weight.
            DuplicateEdges::Collapse => weight_of(row[j - 1]),
            DuplicateEdges::Sum => row[i..j].iter().map(|&e| weight_of(e) as f64).sum::<f64>() as f32,
            DuplicateEdges::Keep => unreachable!("handled above"),
        };
        row[kept] = pack(target as VertexId, weight);
        kept += 1;
        i = j;
    }
    kept
}

/// Splits `data`, whose rows `offsets` delimits, into the chunks of rows `bounds` delimits.
pub(crate) fn split_by_bounds<'a, T>(mut data: &'a mut [T], offsets: &[u64], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut chunks = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (chunk, rest) = data.split_at_mut((offsets[w[1]] - offsets[w[0]]) as usize);
        chunks.push(chunk);
        data = rest;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(n: usize, pairs: &[(u32, u32)], weights: Option<&[f32]>) -> EdgeList {
        EdgeList {
            num_vertices: n,
            sources: pairs.iter().map(|p| p.0).collect(),
            targets: pairs.iter().map(|p| p.1).collect(),
            weights: weights.map(|w| w.to_vec()),
        }
    }

    fn rows(csr: &Csr) -> Vec<Vec<u32>> {
        (0..csr.num_vertices() as u32).map(|v| csr.neighbors(v).to_vec()).collect()
    }

    #[test]
    fn symmetrises_sorts_and_collapses() {
        let e = edges(4, &[(0, 2), (0, 1), (2, 0), (3, 3), (1, 0)], None);
        let csr = build_csr(&e, &BuildOptions::default()).unwrap();
        assert_eq!(rows(&csr), vec![vec![1, 2], vec![0], vec![0], vec![]]);
        assert!(!csr.is_weighted());
    }

    #[test]
    fn keep_duplicates_counts_reciprocal_edges_twice() {
        let e = edges(3, &[(0, 1), (1, 0), (1, 2)], None);
        let opts = BuildOptions { duplicates: DuplicateEdges::Keep, ..Default::default() };
        let csr = build_csr(&e, &opts).unwrap();
        assert_eq!(rows(&csr), vec![vec![1, 1], vec![0, 0, 2], vec![1]]);
    }

    #[test]
    fn sum_and_collapse_weights() {
        let e = edges(2, &[(0, 1), (1, 0), (0, 1)], Some(&[1.5, 2.0, 0.25]));
        let sum = build_csr(&e, &BuildOptions { duplicates: DuplicateEdges::Sum, ..Default::default() }).unwrap();
        assert_eq!(sum.neighbor_weights(0).unwrap(), &[3.75]);
        assert_eq!(sum.neighbor_weights(1).unwrap(), &[3.75]);
        let max = build_csr(&e, &BuildOptions::default()).unwrap();
        assert_eq!(max.neighbor_weights(0).unwrap(), &[2.0]);
    }

    #[test]
    fn directed_without_symmetrisation_keeps_self_loop_when_asked() {
        let e = edges(3, &[(0, 1), (2, 2), (1, 2)], None);
        let opts = BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Keep };
        let csr = build_csr(&e, &opts).unwrap();
        assert_eq!(rows(&csr), vec![vec![1], vec![2], vec![2]]);
        let sym = build_csr(&e, &BuildOptions { drop_self_loops: false, ..Default::default() }).unwrap();
        assert_eq!(rows(&sym), vec![vec![1], vec![0, 2], vec![1, 2]]);
    }

    #[test]
    fn directed_neighbourhoods_count_reciprocal_pairs_twice() {
        // 0 -> 1 twice, 1 -> 0, 1 -> 2, 2 -> 2 (a kept self loop), 3 -> 1. Built directed with
        // collapsed duplicates: rows [1], [0, 2], [2], [1].
        let e = edges(4, &[(0, 1), (0, 1), (1, 0), (1, 2), (2, 2), (3, 1)], None);
        let directed = BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Collapse };
        let csr = directed_neighbourhoods(&build_csr(&e, &directed).unwrap()).unwrap();
        // 0 and 1 are linked both ways: each appears twice in the other's row; 1 -> 2 and
        // 3 -> 1 appear once in each row; the self loop once.
        assert_eq!(rows(&csr), vec![vec![1, 1], vec![0, 0, 2, 3], vec![1, 2], vec![1]]);
        // Weights stay with their edges; summed same-direction copies stay one edge.
        let e = edges(2, &[(0, 1), (0, 1), (1, 0)], Some(&[1.0, 2.0, 5.0]));
        let sum = BuildOptions { symmetrise: false, drop_self_loops: true, duplicates: DuplicateEdges::Sum };
        let csr = directed_neighbourhoods(&build_csr(&e, &sum).unwrap()).unwrap();
        assert_eq!(rows(&csr), vec![vec![1, 1], vec![0, 0]]);
        assert_eq!(csr.neighbor_weights(0).unwrap(), &[3.0, 5.0]);
        assert_eq!(csr.neighbor_weights(1).unwrap(), &[3.0, 5.0]);
        let empty = directed_neighbourhoods(&Csr::empty(3)).unwrap();
        assert_eq!((empty.num_vertices(), empty.num_edges()), (3, 0));
    }

    #[test]
    fn the_transpose_lists_each_vertexs_in_edges_with_their_weights() {
        // 0 -> 1 (w 1), 0 -> 2 (2), 2 -> 1 (3), 2 -> 2 (4, a kept self loop), 3 -> 1 (5).
        let e = edges(4, &[(0, 1), (0, 2), (2, 1), (2, 2), (3, 1)], Some(&[1.0, 2.0, 3.0, 4.0, 5.0]));
        let directed = BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Keep };
        let reverse = transpose(&build_csr(&e, &directed).unwrap()).unwrap();
        assert_eq!(rows(&reverse), vec![vec![], vec![0, 2, 3], vec![0, 2], vec![]]);
        assert_eq!(reverse.neighbor_weights(1).unwrap(), &[1.0, 3.0, 5.0]);
        assert_eq!(reverse.neighbor_weights(2).unwrap(), &[2.0, 4.0]);
        let empty = transpose(&Csr::empty(2)).unwrap();
        assert_eq!((empty.num_vertices(), empty.num_edges()), (2, 0));
    }

    /// Many row chunks, every policy, compared with an ordered-map construction.
    #[test]
    fn large_random_graph_matches_a_naive_build() {
        use std::collections::BTreeMap;
        let n = 9000u32;
        let mut x = 12345u64;
        let mut next = |m: u32| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % m as u64) as u32
        };
        let pairs: Vec<(u32, u32)> = (0..60000).map(|_| (next(n), next(n))).collect();
        let weights: Vec<f32> = (0..pairs.len()).map(|_| 0.5 * (1 + next(4)) as f32).collect();
        let e = edges(n as usize, &pairs, Some(&weights));
        for duplicates in [DuplicateEdges::Keep, DuplicateEdges::Collapse, DuplicateEdges::Sum] {
            let opts = BuildOptions { duplicates, ..Default::default() };
            let csr = build_csr(&e, &opts).unwrap();
            let mut naive: Vec<BTreeMap<u32, Vec<f32>>> = vec![BTreeMap::new(); n as usize];
            for (&(s, t), &w) in pairs.iter().zip(&weights) {
                if s != t {
                    naive[s as usize].entry(t).or_default().push(w);
                    naive[t as usize].entry(s).or_default().push(w);
                }
            }
            for v in 0..n {
                let mut expected_targets = Vec::new();
                let mut expected_weights = Vec::new();
                for (&t, ws) in &naive[v as usize] {
                    let mut ws = ws.clone();
                    ws.sort_by(f32::total_cmp);
                    match duplicates {
                        DuplicateEdges::Keep => {
                            expected_targets.extend(std::iter::repeat_n(t, ws.len()));
                            expected_weights.extend(ws);
                        }
                        DuplicateEdges::Collapse => {
                            expected_targets.push(t);
                            expected_weights.push(*ws.last().unwrap());
                        }
                        DuplicateEdges::Sum => {
                            expected_targets.push(t);
                            expected_weights.push(ws.iter().sum());
                        }
                    }
                }
                assert_eq!(csr.neighbors(v), &expected_targets[..], "{duplicates:?} row {v}");
                assert_eq!(csr.neighbor_weights(v).unwrap(), &expected_weights[..], "{duplicates:?} row {v}");
            }
            // The unweighted build (its own entry type) keeps the same targets.
            if duplicates != DuplicateEdges::Sum {
                let unweighted = EdgeList { weights: None, ..e.clone() };
                let plain = build_csr(&unweighted, &opts).unwrap();
                assert!(!plain.is_weighted());
                assert_eq!(plain.offsets(), csr.offsets(), "{duplicates:?}");
                assert_eq!(plain.targets(), csr.targets(), "{duplicates:?}");
            }
        }
    }

    #[test]
    fn packed_edges_sort_by_target_then_weight_total_order() {
        let weights = [-3.5f32, -0.0, 0.0, 1e-30, 2.0, -1e30, 7.25];
        let mut packed: Vec<u64> = weights.iter().map(|&w| pack(5, w)).collect();
        packed.push(pack(4, 100.0));
        packed.sort_unstable();
        let mut expected = weights.to_vec();
        expected.sort_by(f32::total_cmp);
        assert_eq!(packed[0] >> 32, 4);
        let unpacked: Vec<f32> = packed[1..].iter().map(|&e| weight_of(e)).collect();
        assert_eq!(
            unpacked.iter().map(|w| w.to_bits()).collect::<Vec<_>>(),
            expected.iter().map(|w| w.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn rejects_out_of_range_and_non_finite() {
        assert!(build_csr(&edges(2, &[(0, 2)], None), &BuildOptions::default()).is_err());
        assert!(build_csr(&edges(2, &[(0, 1)], Some(&[f32::NAN])), &BuildOptions::default()).is_err());
    }
}
