//! The graph on the GPU: a CSR uploaded once and borrowed by every GPU run on it (every
//! engine, strategy and repeat), so that a benchmark of several strategies or repeats pays
//! the upload once and measures the runs alone. Its vertices are in the graph's order or by
//! degree ([`DeviceGraph::upload_by_degree`], see [`super::VertexOrder`]).

use super::{DeviceBuffer, Gpu, PlacedOrder};
use crate::error::Result;
use crate::graph::{Csr, DegreeOrder, VertexId};

/// A [`Csr`] uploaded to a GPU: offsets, targets and (when asked for) edge weights, with the
/// host rows it mirrors (engines plan their work from the host copy).
pub struct DeviceGraph<'g> {
    /// The host graph.
    graph: &'g Csr,
    /// Held by degree: the graph's rows renumbered to device positions, and the order.
    placed: Option<(Csr, PlacedOrder)>,
    offsets: DeviceBuffer<u64>,
    targets: DeviceBuffer<u32>,
    /// Every row of the device's rows strictly increasing (no target twice): an O(m) scan,
    /// done on the first question (only the LP engine's first sweep asks).
    distinct_targets: std::sync::OnceLock<bool>,
    weights: Option<DeviceBuffer<f32>>,
}

impl<'g> DeviceGraph<'g> {
    /// Uploads `csr` to `gpu`, its edge weights too when `with_weights` and the graph has
    /// some (programs that never read weights leave them on the host).
    ///
    /// Errors: the GPU's errors, an allocation beyond its free memory.
    pub fn upload(gpu: &Gpu, csr: &'g Csr, with_weights: bool) -> Result<Self> {
        let (offsets, targets, weights) = Self::rows(gpu, csr, with_weights)?;
        Ok(DeviceGraph { graph: csr, placed: None, offsets, targets, distinct_targets: Default::default(), weights })
    }

    /// Uploads `csr` to `gpu` with its vertices by decreasing degree ([`DegreeOrder`]): the
    /// device's rows are the graph's renumbered to positions, and the engines that run on it
    /// map their results back to the graph's ids. Host memory: a renumbered copy of the rows
    /// ([`DegreeOrder::bytes_to_permute`]), kept for the engines' plans.
    ///
    /// Errors: as [`DeviceGraph::upload`]; host memory for the copy.
    pub fn upload_by_degree(gpu: &Gpu, csr: &'g Csr, with_weights: bool) -> Result<Self> {
        let order = DegreeOrder::by_degree(csr.num_vertices(), |v| csr.degree(v) as u64)?;
        let rows = order.permute(csr)?;
        let (offsets, targets, weights) = Self::rows(gpu, &rows, with_weights)?;
        let placed = Some((rows, PlacedOrder::upload(gpu, order)?));
        Ok(DeviceGraph { graph: csr, placed, offsets, targets, distinct_targets: Default::default(), weights })
    }

    /// `csr`'s offsets, targets and (with `with_weights`, when it has some) weights on `gpu`.
    fn rows(gpu: &Gpu, csr: &Csr, with_weights: bool) -> Result<DeviceRows> {
        let weights = match csr.weights() {
            Some(w) if with_weights => Some(gpu.upload("edge weights", w)?),
            _ => None,
        };
        Ok((gpu.upload("CSR offsets", csr.offsets())?, gpu.upload("CSR targets", csr.targets())?, weights))
    }

    /// The rows as the device holds them: the host graph, or held by degree its copy
    /// renumbered to device positions. Engines plan their work from these.
    pub fn csr(&self) -> &Csr {
        self.placed.as_ref().map_or(self.graph, |(rows, _)| rows)
    }

    /// Whether no row of the device's rows lists a target twice (every row strictly
    /// increasing), checked on the first call: a vertex then meets every neighbour's label
    /// once in a sweep from labels all distinct (the LP engine's first sweep).
    pub fn distinct_targets(&self) -> bool {
        *self.distinct_targets.get_or_init(|| self.csr().rows_are_strictly_increasing())
    }

    /// The host graph this was uploaded from.
    pub fn graph(&self) -> &'g Csr {
        self.graph
    }

    /// The device's vertex order when it is not the graph's (held by degree).
    pub fn order(&self) -> Option<&DegreeOrder> {
        self.placed.as_ref().map(|(_, placed)| &placed.order)
    }

    /// Device addresses of the graph's id of each position and of each graph id's position
    /// (0 and 0 in the graph's order).
    pub fn order_ptrs(&self) -> (u64, u64) {
        self.placed.as_ref().map_or((0, 0), |(_, p)| (p.graph_ids.device_ptr(), p.positions.device_ptr()))
    }

    /// Whether the edge weights were uploaded (false too for an unweighted graph).
    pub fn has_weights(&self) -> bool {
        self.weights.is_some()
    }

    /// Device address of the offsets (`num_vertices + 1` u64).
    pub fn offsets_ptr(&self) -> u64 {
        self.offsets.device_ptr()
    }

    /// Device address of the targets (`num_edges` u32).
    pub fn targets_ptr(&self) -> u64 {
        self.targets.device_ptr()
    }

    /// Device address of the edge weights (`num_edges` f32), 0 when not uploaded.
    pub fn weights_ptr(&self) -> u64 {
        self.weights.as_ref().map_or(0, DeviceBuffer::device_ptr)
    }

    /// Bytes on the device.
    pub fn bytes(&self) -> u64 {
        self.offsets.bytes()
            + self.targets.bytes()
            + self.weights.as_ref().map_or(0, DeviceBuffer::bytes)
            + self.placed.as_ref().map_or(0, |(_, p)| p.bytes())
    }
}

/// A CSR's offsets, targets and optional weights on the device.
type DeviceRows = (DeviceBuffer<u64>, DeviceBuffer<VertexId>, Option<DeviceBuffer<f32>>);

impl std::fmt::Debug for DeviceGraph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceGraph")
            .field("num_vertices", &self.graph.num_vertices())
            .field("num_edges", &self.graph.num_edges())
            .field("by_degree", &self.placed.is_some())
            .field("bytes", &self.bytes())
            .finish()
    }
}
