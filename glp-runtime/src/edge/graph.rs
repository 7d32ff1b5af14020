//! The graph an edge program runs on: the out-edges a loaded graph stores and, for a
//! directed graph, its in-edges, so that an engine reads the edges into a vertex (or out of
//! it, for [`super::IN`] and [`super::BOTH`]) row by row.

use crate::error::Result;
use crate::graph::{transpose, Csr, VertexId};
use std::borrow::Cow;

/// A graph's out- and in-edges.
#[derive(Debug, Clone)]
pub struct EdgeGraph<'a> {
    out: &'a Csr,
    /// The in-edges: the out-edges themselves on a symmetric graph.
    into: Cow<'a, Csr>,
}

impl<'a> EdgeGraph<'a> {
    /// The graph of `csr`; `symmetric` when every edge has its reverse (an undirected graph),
    /// whose in-edges are then its out-edges (no copy). Otherwise the in-edges are built
    /// ([`transpose`]: the build's working space and a second copy of the edges).
    pub fn new(csr: &'a Csr, symmetric: bool) -> Result<Self> {
        let into = if symmetric { Cow::Borrowed(csr) } else { Cow::Owned(transpose(csr)?) };
        Ok(EdgeGraph { out: csr, into })
    }

    /// The out-edges.
    pub fn out_edges(&self) -> &Csr {
        self.out
    }

    /// The in-edges: row `v` lists the sources of the edges into `v`, ascending.
    pub fn in_edges(&self) -> &Csr {
        &self.into
    }

    /// Whether the graph is symmetric: its in-edges are its out-edges.
    pub fn is_symmetric(&self) -> bool {
        std::ptr::eq(self.in_edges(), self.out_edges())
    }

    pub fn num_vertices(&self) -> usize {
        self.out.num_vertices()
    }

    /// The out-degree of `v` (0 for an id that is not a vertex).
    pub fn out_degree(&self, v: VertexId) -> u64 {
        degree(self.out, v)
    }

    /// The in-degree of `v` (0 for an id that is not a vertex).
    pub fn in_degree(&self, v: VertexId) -> u64 {
        degree(&self.into, v)
    }
}

fn degree(csr: &Csr, v: VertexId) -> u64 {
    if (v as usize) < csr.num_vertices() {
        csr.degree(v) as u64
    } else {
        0
    }
}
