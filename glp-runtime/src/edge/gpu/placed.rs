//! A graph's edges on the device, as the engines of a run read them.
//!
//! Rows are CSR rows: the in-edge rows list each vertex's senders along the edges, the
//! out-edge rows its receivers (a symmetric graph's two are one). The engines read:
//!
//! | engine | pulling along the edges (`OUT`) | against them (`IN`) | `BOTH` |
//! |---|---|---|---|
//! | edge-centric | in-rows + their receivers expanded | out-rows + receivers | both |
//! | frontier, pull | in-rows | out-rows | both |
//! | frontier, push | out-rows | in-rows | both |
//!
//! The edge-centric engine's receivers expand a CSR's rows (`receivers[e]` is the row of entry
//! `e`), so that an edge block reads its edges' senders and receivers coalesced.
//!
//! The device may hold the vertices in another order than the graph's ([`VertexOrder`]): by
//! degree, highest first ([`DegreeOrder`]), so that the values the engines gather most share
//! cache lines and stay in the L2 cache. The engines then index their arrays by position, the
//! view gives hooks the graph's ids (`glp_edge_graph_id`) and takes them back in its methods,
//! and the run puts the values back in graph order: a program sees the same ids and gives the
//! same values (min and max exactly, sums to rounding) in either order.

use super::Engine;
pub use crate::device::VertexOrder;
use crate::device::{DeviceBuffer, Gpu, PlacedOrder};
use crate::edge::{is_idempotent, EdgeGraph, BOTH, IN, OUT};
use crate::error::{Error, Result};
use crate::graph::{Csr, DegreeOrder, VertexId};
use rayon::prelude::*;

/// The bytes per vertex by which [`VertexOrder::Auto`] sizes the state the engines gather
/// against the L2 cache: a vertex's value, its combined message, its change and message stamps
/// and its sender's message (the frontier engine's; 8, 8, 4, 4 and 8 bytes for SSSP's f64
/// distances, the edge-centric engine's about as many). Measured on an H200 (`glp bench run`,
/// medians of 3, weighted Graph500 R-MAT, graph order -> degree order, the better engine of
/// each): R-MAT 21 (2.1M vertices, 67 MB at 32 bytes) BFS 0.54 -> 0.44 ms, SSSP 17.3 ->
/// 14.6, WCC 4.45 -> 3.32, SSWP 30.2 -> 25.1, PageRank 10.3 -> 9.0; R-MAT 22 (4.2M) BFS 0.72
/// -> 0.55, SSSP 37.0 -> 28.0, WCC 9.3 -> 7.2, SSWP 54.4 -> 36.3, PageRank 21.0 -> 17.4; at
/// 8 bytes a vertex both had kept the graph's order. R-MAT 20 (1.05M, 34 MB) keeps it, where
/// [`super::Engine::Auto`]'s engines are within 6% of the better one; held by degree, its
/// SSSP, WCC and SSWP would gain 14-19% more on the edge-centric engine (SSSP 8.07 -> 6.95
/// ms), which `auto` does not take for a graph held by degree.
/// Earlier (8 bytes): R-MAT 24 BFS 2.47 -> 1.84 ms, WCC 50.7 -> 36.4, PageRank 122 -> 86;
/// graph500-26 BFS 5.2 -> 3.9, WCC 221 -> 161, PageRank 434 -> 315.
pub const ORDER_BYTES_PER_VERTEX: u64 = 32;

impl VertexOrder {
    /// Whether [`DeviceEdgeGraph::upload`] places `graph` on `gpu` by degree in this order
    /// ([`VertexOrder::by_degree`] with the graph's size, the device's L2 cache and the host's
    /// available memory), which [`Engine::Auto`] needs to know before the graph is placed.
    ///
    /// Errors: reading the host's available memory.
    pub fn places_by_degree(self, gpu: &Gpu, graph: &EdgeGraph<'_>) -> Result<bool> {
        let copy_bytes = match graph.is_symmetric() {
            true => DegreeOrder::bytes_to_permute(graph.out_edges()),
            false => DegreeOrder::bytes_to_permute(graph.out_edges()) + DegreeOrder::bytes_to_permute(graph.in_edges()),
        };
        let available = crate::memory::available_memory()?;
        let state_bytes = graph.num_vertices() as u64 * ORDER_BYTES_PER_VERTEX;
        Ok(self.by_degree(state_bytes, copy_bytes, gpu.info().l2_bytes, available))
    }
}

/// A graph's edges placed for the runs of one direction and engine ([`DeviceEdgeGraph::upload`]).
pub struct DeviceEdgeGraph {
    num_vertices: usize,
    /// The vertices' order on the device, when not the graph's.
    order: Option<PlacedOrder>,
    out_offsets: DeviceBuffer<u64>,
    /// `None` on a symmetric graph (the out-edges' offsets serve).
    in_offsets: Option<DeviceBuffer<u64>>,
    /// Each vertex's senders along the edges (a symmetric graph's only rows).
    in_rows: Option<DeviceRows>,
    /// Each vertex's receivers along the edges, on a directed graph.
    out_rows: Option<DeviceRows>,
}

/// One CSR's rows on the device, and for the edge-centric engine their receivers expanded.
pub(super) struct DeviceRows {
    pub entries: DeviceBuffer<VertexId>,
    pub weights: Option<DeviceBuffer<f32>>,
    pub receivers: Option<DeviceBuffer<VertexId>>,
    pub count: u64,
}

/// The rows one pass of an engine reads, with their offsets.
pub(super) struct Rows<'d> {
    pub offsets: &'d DeviceBuffer<u64>,
    pub rows: &'d DeviceRows,
}

impl DeviceEdgeGraph {
    /// `graph`'s edges for runs pulling in `direction` ([`OUT`], [`IN`] or [`BOTH`]) with
    /// `engine` ([`Engine::Auto`]: the arrays of every engine), its vertices in `order`.
    pub fn upload(
        gpu: &Gpu,
        graph: &EdgeGraph<'_>,
        direction: u32,
        engine: Engine,
        order: VertexOrder,
    ) -> Result<Self> {
        let symmetric = graph.is_symmetric();
        if !order.places_by_degree(gpu, graph)? {
            return Self::place(gpu, graph.out_edges(), graph.in_edges(), symmetric, direction, engine);
        }
        let order = DegreeOrder::by_degree(graph.num_vertices(), |v| match symmetric {
            true => graph.out_degree(v),
            false => graph.out_degree(v) + graph.in_degree(v),
        })?;
        let out = order.permute(graph.out_edges())?;
        let into = match symmetric {
            true => None,
            false => Some(order.permute(graph.in_edges())?),
        };
        let placed = Self::place(gpu, &out, into.as_ref().unwrap_or(&out), symmetric, direction, engine)?;
        Ok(DeviceEdgeGraph { order: Some(PlacedOrder::upload(gpu, order)?), ..placed })
    }

    /// The rows of `out` (out-edges) and `into` (in-edges, `out` itself when `symmetric`) a
    /// run pulling in `direction` with `engine` reads, placed.
    fn place(gpu: &Gpu, out: &Csr, into: &Csr, symmetric: bool, direction: u32, engine: Engine) -> Result<Self> {
        let receivers = engine.edge_centric();
        // Pulls along the edges read the in-rows, pushes the out-rows (and the reverse).
        let want_in = symmetric || direction != IN || (engine.frontier() && direction != OUT);
        let want_out = !symmetric && (direction != OUT || (engine.frontier() && direction != IN));
        let in_rows = match want_in {
            true => Some(DeviceRows::upload(gpu, into, "in-edges", receivers && (symmetric || direction != IN))?),
            false => None,
        };
        let out_rows = match want_out {
            true => Some(DeviceRows::upload(gpu, out, "out-edges", receivers && direction != OUT)?),
            false => None,
        };
        Ok(DeviceEdgeGraph { in_rows, out_rows, ..Self::offsets_of(gpu, out, into, symmetric)? })
    }

    /// `graph`'s row offsets alone (the degrees the view reads), for a run whose edges come
    /// in pieces ([`super::run_on_subgraphs`]), its vertices in the graph's order.
    pub fn offsets_only(gpu: &Gpu, graph: &EdgeGraph<'_>) -> Result<Self> {
        Self::offsets_of(gpu, graph.out_edges(), graph.in_edges(), graph.is_symmetric())
    }

    fn offsets_of(gpu: &Gpu, out: &Csr, into: &Csr, symmetric: bool) -> Result<Self> {
        Ok(DeviceEdgeGraph {
            num_vertices: out.num_vertices(),
            order: None,
            out_offsets: gpu.upload("out-edge offsets", out.offsets())?,
            in_offsets: match symmetric {
                true => None,
                false => Some(gpu.upload("in-edge offsets", into.offsets())?),
            },
            in_rows: None,
            out_rows: None,
        })
    }

    /// The graph's vertices.
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// The vertices from the first position on that hold every vertex with an edge: those
    /// with edges in degree order, which numbers them first; all of them in the graph's.
    pub(super) fn vertices_with_edges(&self) -> usize {
        self.order.as_ref().map_or(self.num_vertices, |o| o.order.with_edges())
    }

    /// Whether the device holds the vertices by degree rather than in the graph's order.
    pub fn by_degree(&self) -> bool {
        self.order.is_some()
    }

    pub(super) fn order(&self) -> Option<&PlacedOrder> {
        self.order.as_ref()
    }

    /// Device bytes the graph takes.
    pub fn bytes(&self) -> u64 {
        let order = self.order.as_ref().map_or(0, |o| o.graph_ids.bytes() + o.positions.bytes());
        let offsets = order + self.out_offsets.bytes() + self.in_offsets.as_ref().map_or(0, DeviceBuffer::bytes);
        offsets + [&self.in_rows, &self.out_rows].iter().filter_map(|r| r.as_ref()).map(DeviceRows::bytes).sum::<u64>()
    }

    /// Edges an iteration that reads every edge pulling in `direction` with combine
    /// `combine` reads.
    pub fn edges_read(&self, direction: u32, combine: u32) -> Result<u64> {
        Ok(self.pull_rows(direction, combine)?.iter().map(|r| r.rows.count).sum())
    }

    pub(super) fn out_offsets(&self) -> &DeviceBuffer<u64> {
        &self.out_offsets
    }

    pub(super) fn in_offsets(&self) -> &DeviceBuffer<u64> {
        self.in_offsets.as_ref().unwrap_or(&self.out_offsets)
    }

    /// The in-rows (`along`: the senders of each vertex along the edges) or the out-rows.
    fn rows(&self, along: bool) -> Result<Rows<'_>> {
        let missing = || Error::invalid("internal: the device graph was placed without the rows this run reads");
        match (along, &self.out_rows) {
            (true, _) | (false, None) => {
                Ok(Rows { offsets: self.in_offsets(), rows: self.in_rows.as_ref().ok_or_else(missing)? })
            }
            (false, Some(out)) => Ok(Rows { offsets: &self.out_offsets, rows: out }),
        }
    }

    /// The rows a receiver pulls from in `direction` with combine `combine`, in the CPU
    /// engine's order (in-edges, then out-edges).
    pub(super) fn pull_rows(&self, direction: u32, combine: u32) -> Result<Vec<Rows<'_>>> {
        self.passes(direction, combine, true)
    }

    /// The rows a sender pushes along in `direction` with combine `combine`: its receivers.
    pub(super) fn push_rows(&self, direction: u32, combine: u32) -> Result<Vec<Rows<'_>>> {
        self.passes(direction, combine, false)
    }

    /// The rows of each way values travel in `direction` (`pull`: each receiver's senders,
    /// else each sender's receivers). On a symmetric graph both ways are one CSR: `BOTH`
    /// reads it twice, as the CPU engine, except for an idempotent combine (min, max), whose
    /// messages combined twice give what they give once.
    fn passes(&self, direction: u32, combine: u32, pull: bool) -> Result<Vec<Rows<'_>>> {
        if direction > BOTH {
            return Err(Error::invalid(format!("internal: direction {direction}")));
        }
        let symmetric = self.in_offsets.is_none();
        let mut rows = Vec::new();
        if direction != IN {
            rows.push(self.rows(pull)?);
        }
        if direction != OUT && !(symmetric && direction == BOTH && is_idempotent(combine)) {
            rows.push(self.rows(!pull)?);
        }
        Ok(rows)
    }
}

impl DeviceRows {
    /// `csr`'s rows, with their receivers expanded when `receivers`.
    fn upload(gpu: &Gpu, csr: &Csr, what: &str, receivers: bool) -> Result<Self> {
        let expanded = match receivers {
            true => {
                let rows: Vec<VertexId> = (0..csr.num_vertices() as VertexId)
                    .into_par_iter()
                    .flat_map_iter(|v| std::iter::repeat_n(v, csr.degree(v)))
                    .collect();
                Some(gpu.upload(&format!("{what}: receivers"), &rows)?)
            }
            false => None,
        };
        Ok(DeviceRows {
            entries: gpu.upload(&format!("{what}: senders"), csr.targets())?,
            weights: csr.weights().map(|w| gpu.upload(&format!("{what}: weights"), w)).transpose()?,
            receivers: expanded,
            count: csr.num_edges(),
        })
    }

    fn bytes(&self) -> u64 {
        self.entries.bytes()
            + self.weights.as_ref().map_or(0, DeviceBuffer::bytes)
            + self.receivers.as_ref().map_or(0, DeviceBuffer::bytes)
    }

    /// The weights' device address, 0 without.
    pub fn weights_ptr(&self) -> u64 {
        self.weights.as_ref().map_or(0, DeviceBuffer::device_ptr)
    }
}
