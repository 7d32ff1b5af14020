//! The CSR adjacency structure.

use crate::error::{Error, Result};
use rayon::prelude::*;

/// Dense vertex id. Graphs have fewer than 2^32 vertices.
pub type VertexId = u32;

/// Compressed sparse row adjacency: `targets[offsets[v]..offsets[v + 1]]` are the
/// out-neighbours of `v`, sorted ascending, with `weights` (when present) in the same order.
///
/// Invariants, checked by [`Csr::new`]: `offsets` has `n + 1` entries, starts at 0, never
/// decreases and ends at `targets.len()`; every target is `< n`; every row is sorted
/// ascending; `weights`, when present, has one finite entry per target.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    weights: Option<Vec<f32>>,
}

impl Csr {
    /// Builds a CSR from its arrays, checking every invariant (in parallel, O(n + m)).
    pub fn new(offsets: Vec<u64>, targets: Vec<VertexId>, weights: Option<Vec<f32>>) -> Result<Self> {
        let csr = Csr { offsets, targets, weights };
        csr.validate()?;
        Ok(csr)
    }

    /// Builds a CSR whose invariants the caller has established (the builder and the
    /// generators, which construct rows sorted). Checked in debug builds.
    pub(crate) fn from_sorted_parts(offsets: Vec<u64>, targets: Vec<VertexId>, weights: Option<Vec<f32>>) -> Self {
        let csr = Csr { offsets, targets, weights };
        debug_assert!(csr.validate().is_ok(), "{:?}", csr.validate());
        csr
    }

    /// A graph with `n` vertices and no edge.
    pub fn empty(n: usize) -> Self {
        Csr { offsets: vec![0; n + 1], targets: Vec::new(), weights: None }
    }

    fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::invalid(format!("invalid CSR: {m}")));
        if self.offsets.is_empty() {
            return bad("offsets must have n + 1 entries (found none)".into());
        }
        let n = self.offsets.len() - 1;
        if n > u32::MAX as usize {
            return bad(format!("{n} vertices exceed the u32 vertex id range"));
        }
        if self.offsets[0] != 0 {
            return bad(format!("offsets[0] is {} (expected 0)", self.offsets[0]));
        }
        let m = self.targets.len() as u64;
        if self.offsets[n] != m {
            return bad(format!("offsets[n] is {} but there are {m} targets", self.offsets[n]));
        }
        if let Some(w) = &self.weights {
            if w.len() != self.targets.len() {
                return bad(format!("{} weights for {m} edges", w.len()));
            }
            if let Some(i) = w.par_iter().position_any(|x| !x.is_finite()) {
                return bad(format!("edge {i} has a non-finite weight {}", w[i]));
            }
        }
        let row_error = (0..n).into_par_iter().find_map_any(|v| {
            let (start, end) = (self.offsets[v], self.offsets[v + 1]);
            if start > end || end > m {
                return Some(format!("offsets of vertex {v} are not increasing ({start} > {end}) or exceed {m}"));
            }
            let row = &self.targets[start as usize..end as usize];
            if let Some(&t) = row.iter().find(|&&t| t as usize >= n) {
                return Some(format!("vertex {v} has neighbour {t}, outside 0..{n}"));
            }
            if row.windows(2).any(|p| p[0] > p[1]) {
                return Some(format!("adjacency of vertex {v} is not sorted"));
            }
            None
        });
        match row_error {
            Some(m) => bad(m),
            None => Ok(()),
        }
    }

    /// Number of vertices.
    #[inline]
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of stored (directed) edges.
    #[inline]
    pub fn num_edges(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Out-degree of `v`.
    #[inline]
    pub fn degree(&self, v: VertexId) -> usize {
        let v = v as usize;
        (self.offsets[v + 1] - self.offsets[v]) as usize
    }

    /// Index range of `v`'s edges in [`Csr::targets`] and [`Csr::weights`].
    #[inline]
    pub fn edge_range(&self, v: VertexId) -> std::ops::Range<usize> {
        let v = v as usize;
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    /// Out-neighbours of `v`, ascending.
    #[inline]
    pub fn neighbors(&self, v: VertexId) -> &[VertexId] {
        &self.targets[self.edge_range(v)]
    }

    /// Weights of `v`'s out-edges, in the order of [`Csr::neighbors`], when the graph is weighted.
    #[inline]
    pub fn neighbor_weights(&self, v: VertexId) -> Option<&[f32]> {
        let range = self.edge_range(v);
        self.weights.as_deref().map(|w| &w[range])
    }

    /// Whether edges carry weights.
    #[inline]
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// The `n + 1` row offsets.
    #[inline]
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// All targets, row after row.
    #[inline]
    pub fn targets(&self) -> &[VertexId] {
        &self.targets
    }

    /// All weights, row after row, when the graph is weighted.
    #[inline]
    pub fn weights(&self) -> Option<&[f32]> {
        self.weights.as_deref()
    }

    /// Sum of the weights of `v`'s out-edges (its degree when unweighted).
    pub fn weighted_degree(&self, v: VertexId) -> f64 {
        match self.neighbor_weights(v) {
            Some(w) => w.iter().map(|&x| x as f64).sum(),
            None => self.degree(v) as f64,
        }
    }

    /// Whether every row lists its targets in strictly increasing order: sorted, and no
    /// target twice (a multigraph's repeated edges are not). O(m), in parallel.
    pub fn rows_are_strictly_increasing(&self) -> bool {
        (0..self.num_vertices() as VertexId).into_par_iter().all(|v| self.neighbors(v).windows(2).all(|w| w[0] < w[1]))
    }

    /// Whether every edge `u -> v` has its reverse `v -> u`, as often as it appears itself
    /// (self loops are their own reverse). O(m) and streaming: the sum over the edges of a keyed
    /// hash of `(u, v)` equals that of `(v, u)` exactly when the edge multiset equals its
    /// reverse, up to a collision of probability about 2^-64 under a key drawn per call (so
    /// an input cannot be crafted to collide). Used to check a file's claim of symmetry, which
    /// samplers' membership tests rely on (`SampleGraph::contains` searches the shorter row).
    pub fn is_symmetric(&self) -> bool {
        use std::hash::BuildHasher;
        let key = std::collections::hash_map::RandomState::new().hash_one(0x676c_7073_796d_6d65_u64);
        let hash = |s: VertexId, t: VertexId| mix64(key ^ ((u64::from(s) << 32) | u64::from(t)));
        let (forward, backward) = (0..self.num_vertices() as VertexId)
            .into_par_iter()
            .map(|v| {
                self.neighbors(v)
                    .iter()
                    .fold((0u64, 0u64), |(f, b), &u| (f.wrapping_add(hash(v, u)), b.wrapping_add(hash(u, v))))
            })
            .reduce(|| (0, 0), |(f1, b1), (f2, b2)| (f1.wrapping_add(f2), b1.wrapping_add(b2)));
        forward == backward
    }

    /// The arrays, for serialisation.
    pub fn into_parts(self) -> (Vec<u64>, Vec<VertexId>, Option<Vec<f32>>) {
        (self.offsets, self.targets, self.weights)
    }
}

/// A bijective 64-bit mixer (the finaliser of SplitMix64): every input bit flips each output
/// bit with probability about 1/2.
fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CSR from edge pairs (rows sorted here).
    fn csr_of(n: usize, edges: &[(VertexId, VertexId)]) -> Csr {
        let mut sorted = edges.to_vec();
        sorted.sort_unstable();
        let mut offsets = vec![0u64; n + 1];
        for &(s, _) in &sorted {
            offsets[s as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        Csr::new(offsets, sorted.iter().map(|&(_, t)| t).collect(), None).unwrap()
    }

    /// Symmetry by definition: the edge multiset equals its reverse.
    fn symmetric_by_counting(edges: &[(VertexId, VertexId)]) -> bool {
        let mut forward = edges.to_vec();
        let mut backward: Vec<_> = edges.iter().map(|&(s, t)| (t, s)).collect();
        forward.sort_unstable();
        backward.sort_unstable();
        forward == backward
    }

    #[test]
    fn symmetry_is_the_edge_multiset_equal_to_its_reverse() {
        let cases: Vec<(usize, Vec<(VertexId, VertexId)>)> = vec![
            (4, vec![(0, 1), (1, 0), (1, 2), (2, 1), (3, 3)]),
            (3, vec![(0, 1), (1, 2), (2, 0)]),
            (3, vec![(0, 1), (0, 1), (1, 0)]),
            (3, vec![(0, 1), (0, 1), (1, 0), (1, 0), (2, 2), (2, 2)]),
            (2, vec![]),
            (5, vec![(0, 4), (4, 0), (1, 3)]),
        ];
        for (n, edges) in cases {
            let csr = csr_of(n, &edges);
            assert_eq!(csr.is_symmetric(), symmetric_by_counting(&edges), "{edges:?}");
        }
    }
}
