//! The graph as samplers see it: the CSR plus the per-edge and per-vertex data weighted
//! samplers need, derived once per graph and cached.
//!
//! - **Prefix sums of edge weights** (one `f64` per stored edge, the running sum inside each
//!   row, inclusive): weighted draws by inverse transform, a binary search in the row,
//!   O(log degree) per draw ([`SampleGraph::weighted_edge`]). Alias tables would make a draw
//!   O(1), but need two arrays per edge and two random numbers per draw, and their output
//!   for a given random number is not the natural "the edge whose weight interval holds `x`"
//!   that a CUDA kernel reproduces trivially; the prefix sums serve node2vec's and the
//!   combined neighbourhoods' needs too.
//! - **Maximum edge weight per vertex** (one `f32` per vertex): node2vec's rejection bound.
//!
//! Both are built on first use (sequentially, inside a [`OnceLock`], so that a hook running
//! on a rayon worker can trigger the build without reentering the pool), and not at all on
//! unweighted graphs, where every weight is 1 and the sums are the edge counts.

use crate::error::{Error, Result};
use crate::graph::{Csr, VertexId};
use std::sync::OnceLock;

/// A CSR with the cached data of weighted sampling.
#[derive(Debug)]
pub struct SampleGraph<'a> {
    csr: &'a Csr,
    prefix: OnceLock<Vec<f64>>,
    max_weight: OnceLock<Vec<f32>>,
}

impl<'a> SampleGraph<'a> {
    /// The sampling view of `csr`. Errors when an edge weight is negative (weighted draws
    /// need non-negative weights).
    pub fn new(csr: &'a Csr) -> Result<Self> {
        if let Some(weights) = csr.weights() {
            if let Some(e) = weights.iter().position(|&w| w < 0.0) {
                return Err(Error::invalid(format!(
                    "edge {e} has the negative weight {}: sampling needs non-negative edge weights",
                    weights[e]
                )));
            }
        }
        Ok(SampleGraph { csr, prefix: OnceLock::new(), max_weight: OnceLock::new() })
    }

    /// The CSR.
    #[inline]
    pub fn csr(&self) -> &'a Csr {
        self.csr
    }

    /// The inclusive in-row prefix sums of the weights (weighted graphs only).
    fn prefix(&self, weights: &[f32]) -> &[f64] {
        self.prefix.get_or_init(|| {
            let mut prefix = vec![0.0; weights.len()];
            for v in 0..self.csr.num_vertices() as VertexId {
                let mut sum = 0.0;
                for e in self.csr.edge_range(v) {
                    sum += weights[e] as f64;
                    prefix[e] = sum;
                }
            }
            prefix
        })
    }

    /// Weight of edge `i` of `v` (1 on unweighted graphs).
    #[inline]
    pub fn edge_weight(&self, v: VertexId, i: u64) -> f64 {
        match self.csr.weights() {
            Some(w) => w[self.csr.edge_range(v).start + i as usize] as f64,
            None => 1.0,
        }
    }

    /// Sum of the weights of edges `0..=i` of `v`.
    #[inline]
    pub fn weight_prefix(&self, v: VertexId, i: u64) -> f64 {
        match self.csr.weights() {
            Some(w) => self.prefix(w)[self.csr.edge_range(v).start + i as usize],
            None => (i + 1) as f64,
        }
    }

    /// Sum of the weights of `v`'s edges (0 without edges).
    #[inline]
    pub fn total_weight(&self, v: VertexId) -> f64 {
        let d = self.csr.degree(v) as u64;
        if d == 0 {
            0.0
        } else {
            self.weight_prefix(v, d - 1)
        }
    }

    /// The largest weight of `v`'s edges (0 without edges).
    #[inline]
    pub fn max_weight(&self, v: VertexId) -> f64 {
        match self.csr.weights() {
            Some(weights) => self.max_weight_table(weights)[v as usize] as f64,
            None if self.csr.degree(v) == 0 => 0.0,
            None => 1.0,
        }
    }

    /// The largest weight of each vertex's edges (0 without edges), built on first use.
    fn max_weight_table(&self, weights: &[f32]) -> &[f32] {
        self.max_weight.get_or_init(|| {
            (0..self.csr.num_vertices() as VertexId)
                .map(|u| self.csr.edge_range(u).map(|e| weights[e]).fold(0.0, f32::max))
                .collect()
        })
    }

    /// The inclusive prefix sums of every row's weights, edge by edge (`None` on an
    /// unweighted graph): what a GPU engine uploads for `weight_prefix` and `weighted_edge`.
    pub fn weight_prefixes(&self) -> Option<&[f64]> {
        self.csr.weights().map(|w| self.prefix(w))
    }

    /// The largest weight of each vertex's edges (`None` on an unweighted graph).
    pub fn max_weights(&self) -> Option<&[f32]> {
        self.csr.weights().map(|w| self.max_weight_table(w))
    }

    #[inline]
    pub fn weighted_edge(&self, v: VertexId, x: f64) -> u64 {
        match self.csr.weights() {
            Some(w) => {
                let range = self.csr.edge_range(v);
                self.prefix(w)[range].partition_point(|&p| p <= x) as u64
            }
            None => {
                let d = self.csr.degree(v) as u64;
                if x < 0.0 {
                    0
                } else {
                    (x.floor() as u64).min(d)
                }
            }
        }
    }

    /// Whether `u` is a neighbour of `v`: binary search in the sorted row, O(log degree).
    #[inline]
    pub fn contains(&self, v: VertexId, u: VertexId) -> bool {
        self.csr.neighbors(v).binary_search(&u).is_ok()
    }
}
