//! R-MAT / Kronecker graphs with Graph500 parameters.
//!
//! R-MAT (Chakrabarti, Zhan and Faloutsos, SDM 2004) places each edge in the `2^scale x
//! 2^scale` adjacency matrix by descending `scale` levels: at every level it picks one of the
//! four quadrants with probabilities `a` (top left), `b` (top right), `c` (bottom left) and
//! `d = 1 - a - b - c` (bottom right), which fixes one more bit of the source (set in `c`, `d`)
//! and of the target (set in `b`, `d`), most significant bit first. Graph500 uses `a = 0.57`,
//! `b = c = 0.19`, `d = 0.05` and `edge_factor = 16` generated edges per vertex, then scrambles
//! vertex ids with a pseudo-random permutation so that the heavy vertices are not all at small
//! ids (and stores the graph undirected).
//!
//! Generated edge `e` draws its quadrant choices from Philox stream
//! `stream::id(RMAT_EDGE, e)`, four levels per 32-bit word: word `k` decides levels
//! `4k..4k + 4` (from the most significant bit) by one lookup in an alias table (Walker 1977,
//! Vose 1991) over the 256 outcomes of four levels, whose probabilities are the products of
//! the four quadrant probabilities rounded to multiples of 2^-32 (largest remainders, so they
//! sum to 1 exactly). The top 8 bits of the word pick a bucket, the low 24 bits are compared
//! with its threshold. Drawing four levels per word instead of one makes sampling four times
//! cheaper in random bits with the same 2^-32 resolution. When `scale` is not a multiple of
//! four, the last word's first `scale mod 4` levels are used (the levels are independent, so
//! their marginal is exact). Ids are then scrambled with the [`PowerOfTwoBijection`] of
//! `scale` bits of `stream::id(SCRAMBLE, 0)`.
//!
//! With [`RmatParams::weighted`], undirected edge `{u, v}` (`u < v`) weighs the first word of
//! block `v` of stream `stream::id(RMAT_WEIGHT, u)` as a float in `[0, 1)` (Graph500's SSSP
//! weights), so both stored directions weigh the same.
//!
//! The result is symmetrised, with self loops dropped and duplicate edges collapsed, so
//! [`Graph::num_edges`] (the stored directed edge count, each undirected edge counted twice)
//! is below `2 * edge_factor * 2^scale`: R-MAT repeats many edges between heavy vertices. That
//! stored count is the figure benchmarks report (traversed-edges rates, memory). Its
//! expectation follows exactly from the quadrant probabilities (the `gen_rmat` tests compute
//! it): for scale 24 it is 520.76 million, the literature's "about 520.8 million", and seed 1
//! gives 520,766,942 stored edges out of 2 * 268,435,456 generated.

use super::bijection::PowerOfTwoBijection;
use super::{stream, try_zeroed, Phase};
use crate::error::{Error, Result};
use crate::graph::{build_csr, BuildOptions, Csr, DuplicateEdges, EdgeList, Graph, VertexId, VertexIds};
use crate::random::Stream;
use rayon::prelude::*;

/// Largest scale: vertex ids are u32 and the edge-list builder takes at most `u32::MAX`
/// vertices, so `2^31` vertices.
pub const MAX_SCALE: u32 = 31;

/// Parameters of [`rmat`].
#[derive(Debug, Clone, PartialEq)]
pub struct RmatParams {
    /// log2 of the number of vertices, in `1..=31`.
    pub scale: u32,
    /// Generated (undirected) edges per vertex; Graph500 uses 16.
    pub edge_factor: u32,
    /// Probability of the top-left quadrant (Graph500: 0.57).
    pub a: f64,
    /// Probability of the top-right quadrant (Graph500: 0.19).
    pub b: f64,
    /// Probability of the bottom-left quadrant (Graph500: 0.19); `d = 1 - a - b - c`.
    pub c: f64,
    /// Seed of every random draw.
    pub seed: u64,
    /// Permute vertex ids with a seeded bijection (Graph500 does). Turn off only to study the
    /// raw R-MAT structure, where degree decreases with the id.
    pub scramble_ids: bool,
    /// Give every undirected edge a weight drawn uniformly from `[0, 1)`, the same both ways
    /// (Graph500's SSSP kernel weights its graph so).
    pub weighted: bool,
}

impl Default for RmatParams {
    /// Graph500 parameters at scale 20 (about a million vertices and 33 million generated
    /// edges), seed 1.
    fn default() -> Self {
        RmatParams {
            scale: 20,
            edge_factor: 16,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            seed: 1,
            scramble_ids: true,
            weighted: false,
        }
    }
}

impl RmatParams {
    /// Probability of the bottom-right quadrant, `1 - a - b - c`.
    pub fn d(&self) -> f64 {
        1.0 - self.a - self.b - self.c
    }
}

/// The edge sampler behind [`rmat`]: edge `e` computed on its own, in O(scale).
///
/// Exposed for streaming use (writing edges without building a graph) and for tests of the
/// quadrant frequencies.
#[derive(Debug, Clone)]
pub struct RmatSampler {
    scale: u32,
    num_edges: u64,
    seed: u64,
    /// Four levels per random word.
    table: QuadrantTable,
    scramble: Option<PowerOfTwoBijection>,
}

impl RmatSampler {
    /// Validates `params` and prepares the sampler.
    pub fn new(params: &RmatParams) -> Result<Self> {
        validate(params)?;
        let table = QuadrantTable::new([params.a, params.b, params.c, params.d().max(0.0)]);
        let scramble = params
            .scramble_ids
            .then(|| PowerOfTwoBijection::new(params.scale, params.seed, stream::id(stream::SCRAMBLE, 0)));
        Ok(RmatSampler {
            scale: params.scale,
            num_edges: (params.edge_factor as u64) << params.scale,
            seed: params.seed,
            table,
            scramble,
        })
    }

    /// Number of vertices, `2^scale`.
    pub fn num_vertices(&self) -> u64 {
        1u64 << self.scale
    }

    /// Number of generated edges, `edge_factor * 2^scale` (before symmetrisation and
    /// deduplication).
    pub fn num_edges(&self) -> u64 {
        self.num_edges
    }

    /// Edge `index` (`< num_edges`) before id scrambling: `(source, target)`.
    #[inline]
    pub fn unscrambled_edge(&self, index: u64) -> (VertexId, VertexId) {
        let mut draws = Stream::new(self.seed, stream::id(stream::RMAT_EDGE, index));
        let (mut source, mut target) = (0u32, 0u32);
        let mut levels = self.scale;
        while levels > 0 {
            let outcome = self.table.sample(draws.next_u32());
            let (s, t) = (SOURCE_BITS[outcome], TARGET_BITS[outcome]);
            let used = levels.min(LEVELS_PER_WORD);
            let drop = LEVELS_PER_WORD - used;
            source = (source << used) | (s >> drop) as u32;
            target = (target << used) | (t >> drop) as u32;
            levels -= used;
        }
        (source, target)
    }

    /// The scrambled id of raw vertex `v` (identity when scrambling is off).
    #[inline]
    pub fn scramble(&self, v: VertexId) -> VertexId {
        match &self.scramble {
            Some(bijection) => bijection.apply(v as u64) as VertexId,
            None => v,
        }
    }

    /// Edge `index` (`< num_edges`) as [`rmat`] stores it: `(source, target)` after scrambling.
    #[inline]
    pub fn edge(&self, index: u64) -> (VertexId, VertexId) {
        let (s, t) = self.unscrambled_edge(index);
        (self.scramble(s), self.scramble(t))
    }
}

/// Levels decided by one 32-bit word.
const LEVELS_PER_WORD: u32 = 4;
/// Outcomes of four levels: quadrant of level `k` (0 = a, 1 = b, 2 = c, 3 = d) in bits
/// `6 - 2k..8 - 2k`, the first level most significant.
const OUTCOMES: usize = 1 << (2 * LEVELS_PER_WORD);
/// Bucket capacity in the 24 low bits of a word: outcome masses sum to `OUTCOMES * CAPACITY`
/// = 2^32.
const CAPACITY: u64 = 1 << 24;

/// Source bits (first level most significant) of each four-level outcome.
const SOURCE_BITS: [u8; OUTCOMES] = outcome_bits(1);
/// Target bits of each four-level outcome.
const TARGET_BITS: [u8; OUTCOMES] = outcome_bits(0);

/// For every outcome, bit `which` (1: source, set by quadrants c and d; 0: target, set by b
/// and d) of each level's quadrant, packed first level first.
const fn outcome_bits(which: u32) -> [u8; OUTCOMES] {
    let mut bits = [0u8; OUTCOMES];
    let mut o = 0;
    while o < OUTCOMES {
        let mut k = 0;
        while k < LEVELS_PER_WORD {
            let quadrant = (o >> (2 * (LEVELS_PER_WORD - 1 - k))) & 3;
            bits[o] |= (((quadrant >> which) & 1) as u8) << (LEVELS_PER_WORD - 1 - k);
            k += 1;
        }
        o += 1;
    }
    bits
}

/// Alias table over the four-level outcomes, with integer masses (exact probabilities).
#[derive(Debug, Clone)]
struct QuadrantTable {
    /// A word whose low 24 bits are below `threshold[bucket]` keeps its bucket's outcome.
    threshold: [u32; OUTCOMES],
    /// The outcome taken otherwise.
    alias: [u8; OUTCOMES],
}

impl QuadrantTable {
    fn new(quadrant: [f64; 4]) -> Self {
        let sum: f64 = quadrant.iter().sum();
        let quadrant = quadrant.map(|q| q / sum);
        // Masses: products rounded down to multiples of 2^-32, then the missing units given
        // to the largest remainders (ties to the smaller outcome), so they sum to 2^32.
        let total = OUTCOMES as u64 * CAPACITY;
        let exact: Vec<f64> = (0..OUTCOMES)
            .map(|o| {
                (0..LEVELS_PER_WORD).map(|k| quadrant[(o >> (2 * (LEVELS_PER_WORD - 1 - k))) & 3]).product::<f64>()
                    * total as f64
            })
            .collect();
        let mut mass: Vec<u64> = exact.iter().map(|&x| x.floor() as u64).collect();
        let assigned: u64 = mass.iter().sum();
        let mut by_remainder: Vec<usize> = (0..OUTCOMES).collect();
        by_remainder
            .sort_by(|&x, &y| (exact[y] - exact[y].floor()).total_cmp(&(exact[x] - exact[x].floor())).then(x.cmp(&y)));
        for &o in by_remainder.iter().take(total.saturating_sub(assigned) as usize) {
            mass[o] += 1;
        }
        // Vose's alias construction, exact in integers.
        let mut threshold = [CAPACITY as u32; OUTCOMES];
        let mut alias = [0u8; OUTCOMES];
        for (o, a) in alias.iter_mut().enumerate() {
            *a = o as u8;
        }
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..OUTCOMES).partition(|&o| mass[o] < CAPACITY);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            large.pop();
            threshold[s] = mass[s] as u32;
            alias[s] = l as u8;
            mass[l] -= CAPACITY - mass[s];
            if mass[l] < CAPACITY {
                small.push(l);
            } else {
                large.push(l);
            }
        }
        // Masses always sum to CAPACITY per remaining entry, so once one list is empty the
        // other holds entries of exactly CAPACITY: they keep their own outcome.
        QuadrantTable { threshold, alias }
    }

    #[inline]
    fn sample(&self, word: u32) -> usize {
        let bucket = (word >> 24) as usize;
        if word & 0x00ff_ffff < self.threshold[bucket] {
            bucket
        } else {
            self.alias[bucket] as usize
        }
    }
}

fn validate(p: &RmatParams) -> Result<()> {
    if !(1..=MAX_SCALE).contains(&p.scale) {
        return Err(Error::invalid(format!(
            "R-MAT scale {} is out of range: expected 1..={MAX_SCALE} (2^scale vertices with u32 ids)",
            p.scale
        )));
    }
    if p.edge_factor == 0 {
        return Err(Error::invalid("R-MAT edge factor must be at least 1"));
    }
    for (name, value) in [("a", p.a), ("b", p.b), ("c", p.c)] {
        if !value.is_finite() || !(0.0..=1.0).contains(&value) {
            return Err(Error::invalid(format!("R-MAT probability {name} = {value} is not in [0, 1]")));
        }
    }
    if p.d() < -1e-12 {
        return Err(Error::invalid(format!(
            "R-MAT probabilities a + b + c = {} exceed 1 (d = 1 - a - b - c must be >= 0)",
            p.a + p.b + p.c
        )));
    }
    let edges = (p.edge_factor as u64) << p.scale;
    if usize::try_from(edges).is_err() || edges >= 1 << 56 {
        return Err(Error::TooLarge(format!("R-MAT with {edges} edges is too large for this machine")));
    }
    Ok(())
}

/// Edges generated per parallel task.
const EDGES_PER_TASK: usize = 1 << 14;

/// An R-MAT graph: `2^scale` vertices (ids `0..2^scale`, [`VertexIds::Range`]), the generated
/// edges symmetrised with self loops dropped and duplicates collapsed.
///
/// Deterministic for a seed, whatever the number of threads. Errors on invalid parameters
/// ([`Error::InvalidArgument`]) and when the edge list does not fit in memory
/// ([`Error::TooLarge`]). Peak memory is about 32 bytes per generated edge (see the
/// [`gen` docs](crate::gen)).
pub fn rmat(params: &RmatParams) -> Result<Graph> {
    rmat_with_phases(params, &|_| {})
}

/// [`rmat`], calling `on_phase` as each step begins (from the calling thread): sampling the
/// edges, building the CSR.
pub fn rmat_with_phases(params: &RmatParams, on_phase: &dyn Fn(Phase)) -> Result<Graph> {
    let sampler = RmatSampler::new(params)?;
    on_phase(Phase::SamplingEdges);
    let n = sampler.num_vertices() as usize;
    let m = sampler.num_edges() as usize;
    let mut sources: Vec<VertexId> = try_zeroed(m, "the R-MAT edge sources")?;
    let mut targets: Vec<VertexId> = try_zeroed(m, "the R-MAT edge targets")?;
    sources.par_chunks_mut(EDGES_PER_TASK).zip(targets.par_chunks_mut(EDGES_PER_TASK)).enumerate().for_each(
        |(task, (sources, targets))| {
            let first = (task * EDGES_PER_TASK) as u64;
            for (k, (s, t)) in sources.iter_mut().zip(targets.iter_mut()).enumerate() {
                (*s, *t) = sampler.edge(first + k as u64);
            }
        },
    );
    let edges = EdgeList { num_vertices: n, sources, targets, weights: None };
    let options = BuildOptions { symmetrise: true, drop_self_loops: true, duplicates: DuplicateEdges::Collapse };
    on_phase(Phase::BuildingCsr);
    let mut csr = build_csr(&edges, &options)?;
    drop(edges);
    if params.weighted {
        on_phase(Phase::Weights);
        let (offsets, targets, _) = csr.into_parts();
        let weights = edge_weights(params.seed, &offsets, &targets)?;
        csr = Csr::from_sorted_parts(offsets, targets, Some(weights));
    }
    Ok(Graph { csr, ids: VertexIds::Range { first: 0, len: n }, symmetric: true })
}

/// Vertices per task of [`edge_weights`].
const ROWS_PER_TASK: usize = 1 << 14;

/// The weight of every stored edge of a symmetric CSR: edge `{u, v}` (`u < v`) takes the
/// first word of block `v` of stream `stream::id(RMAT_WEIGHT, u)` as a float in `[0, 1)`, so
/// both of its stored directions get the same weight, whatever the thread count.
fn edge_weights(seed: u64, offsets: &[u64], targets: &[VertexId]) -> Result<Vec<f32>> {
    let mut weights: Vec<f32> = try_zeroed(targets.len(), "the R-MAT edge weights")?;
    let n = offsets.len() - 1;
    // Each task's rows and the slice of the weights they own.
    let mut tasks = Vec::with_capacity(n.div_ceil(ROWS_PER_TASK));
    let mut rest = weights.as_mut_slice();
    for first in (0..n).step_by(ROWS_PER_TASK) {
        let end = (first + ROWS_PER_TASK).min(n);
        let (own, after) = rest.split_at_mut((offsets[end] - offsets[first]) as usize);
        tasks.push((first, end, own));
        rest = after;
    }
    tasks.into_par_iter().for_each(|(first, end, own)| {
        let base = offsets[first] as usize;
        for u in first..end {
            for e in offsets[u] as usize..offsets[u + 1] as usize {
                let (u, v) = (u as u64, targets[e] as u64);
                let (low, high) = if u < v { (u, v) } else { (v, u) };
                let word = crate::random::block(seed, stream::id(stream::RMAT_WEIGHT, low), high)[0];
                own[e - base] = crate::random::unit_f32(word);
            }
        }
    });
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_bits_decode_quadrants() {
        // Levels (b, c, d, a) = quadrants (1, 2, 3, 0): source bits 0110, target bits 1010.
        let o = 1 << 6 | 2 << 4 | 3 << 2;
        assert_eq!((SOURCE_BITS[o], TARGET_BITS[o]), (0b0110, 0b1010));
    }

    #[test]
    fn alias_table_masses_are_the_rounded_products() {
        for q in [[0.57, 0.19, 0.19, 0.05], [0.25; 4], [1.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]] {
            let table = QuadrantTable::new(q);
            // Probability of each outcome, in units of 2^-32, read back from the table.
            let mut mass = [0u64; OUTCOMES];
            for b in 0..OUTCOMES {
                mass[b] += table.threshold[b] as u64;
                mass[table.alias[b] as usize] += CAPACITY - table.threshold[b] as u64;
            }
            assert_eq!(mass.iter().sum::<u64>(), 1 << 32);
            for (o, &m) in mass.iter().enumerate() {
                let p: f64 = (0..4).map(|k| q[(o >> (6 - 2 * k)) & 3]).product();
                assert!((m as f64 - p * 4_294_967_296.0).abs() <= 1.0, "{q:?} outcome {o}: {m}");
            }
        }
    }
}
