//! Per-thread collision-free label tables for the most-frequent-label search.
//!
//! One `f64` accumulator per possible label and the list of labels touched (GVE-LPA's
//! "collision-free per-thread hashtable"): accumulation is a single indexed add, and the
//! table is cleared by walking the touched list, so the cost per vertex is O(degree).
//! Low-degree vertices (most of them in real graphs) use a short list instead, which avoids
//! the table's cache misses. A run with a sketch MFL strategy ([`Sketch`]) uses the sketch
//! instead, and no table.

use super::sketch::{self, Sketch};
use super::variant::{is_labelled, EdgeId, Label, LpVariant, View};
use super::TieBreak;
use crate::graph::{Csr, VertexId};
use std::sync::atomic::{AtomicU64, Ordering};

/// The best label found for a vertex and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Best {
    pub label: Label,
    pub score: f64,
}

/// Vertices of at most this degree gather their labels in a short list searched linearly,
/// which stays in L1; larger ones use the dense table, whose random accesses miss the cache
/// on large graphs but cost O(1) each.
const SHORT_LIST_DEGREE: usize = 16;

/// A per-thread label table sized for labels `0..n`.
pub(super) struct Tally {
    sums: Vec<f64>,
    touched: Vec<Label>,
    /// Distinct labels of the current vertex with their summed weight, in the order they
    /// are first met along the adjacency.
    candidates: Vec<(Label, f64)>,
    /// The sketch that replaces the exact search, if any.
    sketch: Option<Sketch>,
}

impl Tally {
    /// A table for labels `0..num_labels`, or none when `sketch` replaces it.
    pub fn new(num_labels: usize, sketch: Option<Sketch>) -> Self {
        let sums = if sketch.is_some() { Vec::new() } else { vec![0.0; num_labels] };
        Tally { sums, touched: Vec::new(), candidates: Vec::new(), sketch }
    }

    /// Gathers `v`'s neighbours through the variant's hooks and returns the label with the
    /// highest score, equal scores resolved by `ties`; `None` when no neighbour contributes a
    /// label. Candidates are scored in the order their labels are first met along the
    /// (sorted) adjacency, which is what [`TieBreak::FirstSeen`] means. With a sketch, its
    /// pick and rules instead (`ties` does not apply).
    #[inline]
    pub fn best_label<V: LpVariant>(
        &mut self,
        csr: &Csr,
        variant: &V,
        view: &View<'_>,
        v: VertexId,
        ties: TieBreak,
    ) -> Option<Best> {
        if let Some(s) = self.sketch {
            return sketch::best_label(s, csr, variant, view, v).map(|(label, score)| Best { label, score });
        }
        self.candidates.clear();
        if csr.degree(v) <= SHORT_LIST_DEGREE {
            self.gather_short(csr, variant, view, v);
        } else {
            self.gather_dense(csr, variant, view, v);
        }
        let mut best: Option<Best> = None;
        for &(label, freq) in &self.candidates {
            let score = variant.label_score(view, v, label, freq);
            let better = match best {
                None => true,
                Some(b) => {
                    score > b.score
                        || (score == b.score
                            && match ties {
                                TieBreak::SmallestLabel => label < b.label,
                                TieBreak::FirstSeen => false,
                                TieBreak::Hashed => tie_hash(label, v) < tie_hash(b.label, v),
                            })
                }
            };
            if better {
                best = Some(Best { label, score });
            }
        }
        best
    }

    /// Accumulates into the candidate list directly (linear search: degree is small).
    #[inline]
    fn gather_short<V: LpVariant>(&mut self, csr: &Csr, variant: &V, view: &View<'_>, v: VertexId) {
        for (label, weight) in contributions(csr, variant, view, v) {
            match self.candidates.iter_mut().find(|(l, _)| *l == label) {
                Some((_, sum)) => *sum += weight,
                None => self.candidates.push((label, weight)),
            }
        }
    }

    /// Accumulates into the dense table, then moves the touched entries to the candidate
    /// list and clears them. A label is recorded as touched when its accumulator reads 0
    /// before the add; a label whose sum returns to exactly 0 (zero or cancelling weights)
    /// may be recorded twice, and its second record is skipped when the table is read back.
    #[inline]
    fn gather_dense<V: LpVariant>(&mut self, csr: &Csr, variant: &V, view: &View<'_>, v: VertexId) {
        for (label, weight) in contributions(csr, variant, view, v) {
            let sum = &mut self.sums[label as usize];
            if *sum == 0.0 {
                self.touched.push(label);
            }
            *sum += weight;
        }
        for &label in &self.touched {
            let sum = &mut self.sums[label as usize];
            if sum.is_nan() {
                continue; // already read back: a duplicate record
            }
            self.candidates.push((label, *sum));
            *sum = f64::NAN;
        }
        for &label in &self.touched {
            self.sums[label as usize] = 0.0;
        }
        self.touched.clear();
    }
}

/// The label and weight each labelled neighbour of `v` contributes, along the adjacency.
#[inline]
fn contributions<'a, 'b, V: LpVariant>(
    csr: &'a Csr,
    variant: &'a V,
    view: &'a View<'b>,
    v: VertexId,
) -> impl Iterator<Item = (Label, f64)> + use<'a, 'b, V> {
    let range = csr.edge_range(v);
    let neighbours = &csr.targets()[range.clone()];
    range
        .zip(neighbours)
        .map(move |(edge, &u)| variant.load_neighbor(view, v, u, edge as EdgeId))
        .filter(|&(l, _)| is_labelled(l))
}

/// Vertices per parallel task (GVE-LPA's dynamic schedule uses chunks of 2048).
const CHUNK: u32 = 2048;

/// Counters a pass over the vertices returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct PassCounts {
    pub changed: u64,
    pub processed: u64,
}

impl std::ops::Add for PassCounts {
    type Output = PassCounts;
    fn add(self, o: PassCounts) -> PassCounts {
        PassCounts { changed: self.changed + o.changed, processed: self.processed + o.processed }
    }
}

/// One [`Tally`] per thread of the current rayon pool, reused across iterations.
pub(super) struct TallyPool {
    tallies: Vec<std::sync::Mutex<Tally>>,
}

impl TallyPool {
    /// Tables for labels `0..num_labels` (none with a sketch), one per thread of the current
    /// pool.
    pub fn new(num_labels: usize, sketch: Option<Sketch>) -> Self {
        // One table per thread of the pool `for_each_chunk` will broadcast to; a table is
        // locked once per pass, so a pool larger than this (never the case when the caller
        // stays in one pool) only serialises, it stays correct.
        let threads = rayon::current_num_threads().max(1);
        TallyPool { tallies: (0..threads).map(|_| std::sync::Mutex::new(Tally::new(num_labels, sketch))).collect() }
    }

    /// Runs `work` over chunks of `0..n` on every thread of the current pool and adds up the
    /// counts. Threads take chunks in increasing order from a shared counter (OpenMP's
    /// `schedule(dynamic, 2048)`, as GVE-LPA runs): the asynchronous schedule then sweeps the
    /// vertices nearly in id order, which its quality depends on (halving the range, as
    /// rayon's splitting does, starts a second sweep mid-graph and costs modularity).
    pub fn for_each_chunk<F>(&self, n: usize, work: F) -> PassCounts
    where
        F: Fn(&mut Tally, std::ops::Range<VertexId>) -> PassCounts + Sync,
    {
        let chunks = (n as u64).div_ceil(CHUNK as u64);
        let next = AtomicU64::new(0);
        let per_thread = rayon::broadcast(|context| {
            let slot = context.index() % self.tallies.len();
            let mut tally = self.tallies[slot].lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let mut counts = PassCounts::default();
            loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= chunks {
                    break counts;
                }
                let start = c * CHUNK as u64;
                let end = (start + CHUNK as u64).min(n as u64);
                counts = counts + work(&mut tally, start as VertexId..end as VertexId);
            }
        });
        per_thread.into_iter().fold(PassCounts::default(), |a, b| a + b)
    }
}

/// The order [`TieBreak::Hashed`] uses: a bijection of the label for each vertex (xor with a
/// multiple of the vertex id, then the murmur3 finaliser's multiply-xorshift steps), so
/// distinct labels never compare equal and different vertices order labels differently.
#[inline]
fn tie_hash(label: Label, v: VertexId) -> u32 {
    let x = (label ^ v.wrapping_mul(0x9E37_79B9)).wrapping_mul(0x85EB_CA6B);
    (x ^ (x >> 13)).wrapping_mul(0xC2B2_AE35)
}
