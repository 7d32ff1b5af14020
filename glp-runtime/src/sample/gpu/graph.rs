//! The graph on the GPU as sampler views read it, placed as [`super::placement`] describes.

use super::placement::{self, GraphSizes, PartitionPlan, Placement};
use crate::device::{DeviceBuffer, DeviceGraph, Gpu, KernelArgs, Module, PinnedHostBuffer, Shape};
use crate::error::{Error, Result};
use crate::memory::format_bytes;
use crate::sample::edges::SampleGraph;
use crate::sample::sampler::NONE;
use glp_codegen::kinds::sample::layout::SampleViewArgs;
use glp_codegen::loops::default_loop_budget;
use std::cell::RefCell;

/// A graph on the GPU with what sampler views read besides the CSR (the weights' prefix
/// sums and per-vertex maxima on weighted graphs), and the host graph it mirrors, from which
/// engines plan their work and replay a sample for its error.
pub struct DeviceSampleGraph<'a> {
    host: &'a SampleGraph<'a>,
    edges: Edges<'a>,
    max_weights: Option<DeviceBuffer<f32>>,
    max_degree: u64,
    active_vertices: u64,
    rows_distinct: bool,
    /// The walk engine's packed edges (`glp_sample_pack_edges`, `_narrow`) and their
    /// packing, built on first use.
    packed: RefCell<Option<(Packing, DeviceBuffer<u32>)>>,
}

/// How the walk engine's packed edges hold, per edge (CSR order), its target and the target's
/// row, so that a walk step reads its next row's metadata with the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Packing {
    /// 16 bytes: target, degree, offset (two words).
    Wide,
    /// 8 bytes: `target | offset << target_bits | degree << (target_bits + offset_bits)`,
    /// for graphs whose vertex ids, offsets and degrees fit that word.
    Narrow { target_bits: u32, offset_bits: u32 },
}

impl Packing {
    /// The narrow packing of a graph of `vertices`, `edges` and largest degree `max_degree`,
    /// when its three fields fit 64 bits.
    pub(super) fn narrow(vertices: u64, edges: u64, max_degree: u64) -> Option<Packing> {
        let bits = |x: u64| (64 - x.leading_zeros()).max(1);
        let target_bits = bits(vertices.saturating_sub(1));
        let offset_bits = bits(edges);
        (target_bits + offset_bits + bits(max_degree) <= 64).then_some(Packing::Narrow { target_bits, offset_bits })
    }

    /// Bytes per edge.
    pub(super) fn edge_bytes(self) -> u64 {
        match self {
            Packing::Wide => 16,
            Packing::Narrow { .. } => 8,
        }
    }
}

/// Where the edges are.
// One value per placed graph, never in a collection: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Edges<'a> {
    Device { csr: DeviceGraph<'a>, weight_prefix: Option<DeviceBuffer<f64>> },
    Host(HostEdges),
}

/// A graph whose edges stay in pinned host memory, cut into partitions.
pub(super) struct HostEdges {
    placement: Placement,
    plan: PartitionPlan,
    edges: u64,
    offsets: DeviceBuffer<u64>,
    targets: PinnedHostBuffer<u32>,
    weights: Option<PinnedHostBuffer<f32>>,
    weight_prefix: Option<PinnedHostBuffer<f64>>,
    /// The resident partitions' edges (and the longest row after them).
    resident: Option<DeviceBuffer<u32>>,
    /// The partitions' staging buffers (partitions placement).
    staging: Vec<DeviceBuffer<u32>>,
    /// The partition table as kernels read it, and its host copy.
    table: RefCell<DeviceBuffer<u64>>,
    host_table: RefCell<Vec<u64>>,
}

/// The most device memory a placement may take by default: nine tenths of what is free.
pub(super) fn default_budget(gpu: &Gpu) -> Result<u64> {
    Ok(gpu.memory_info()?.0 / 10 * 9)
}

impl<'a> DeviceSampleGraph<'a> {
    /// Uploads `graph` whole to the device (the `auto` placement under the default budget).
    pub fn upload(gpu: &Gpu, graph: &'a SampleGraph<'a>) -> Result<Self> {
        Self::place(gpu, graph, Placement::Auto, None)
    }

    /// Places `graph` on `gpu` as `placement` says, within `device_memory` bytes of device
    /// memory for the graph and the runs' buffers (`None`: nine tenths of what is free).
    ///
    /// Errors: the device placement of a graph beyond the budget, a budget too small for the
    /// per-vertex arrays or the longest row (each naming what is needed and the option that
    /// fits), the host refusing to pin the edges, the GPU's errors.
    pub fn place(
        gpu: &Gpu,
        graph: &'a SampleGraph<'a>,
        placement: Placement,
        device_memory: Option<u64>,
    ) -> Result<Self> {
        let csr = graph.csr();
        let max_degree = (0..csr.num_vertices() as u32).map(|v| csr.degree(v) as u64).max().unwrap_or(0);
        let active_vertices = (0..csr.num_vertices() as u32).filter(|&v| csr.degree(v) > 0).count() as u64;
        let rows_distinct = (0..csr.num_vertices() as u32).all(|v| csr.neighbors(v).windows(2).all(|w| w[0] < w[1]));
        let budget = match device_memory {
            Some(bytes) => bytes,
            None => default_budget(gpu)?,
        };
        let sizes = sizes_of(graph, max_degree);
        let placement = match placement {
            Placement::Auto if placement::fits_device(&sizes, budget) => Placement::Device,
            Placement::Auto => Placement::Partitions,
            chosen => chosen,
        };
        if placement == Placement::Device && sizes.device_bytes > budget {
            return Err(Error::TooLarge(format!(
                "the graph needs {} of device memory, more than the {} allowed (--device-memory): \
                 --placement partitions or zero-copy keeps its edges in host memory",
                format_bytes(sizes.device_bytes),
                format_bytes(budget)
            )));
        }
        let max_weights = graph.max_weights().map(|m| gpu.upload("maximum weights", m)).transpose()?;
        let edges = if placement == Placement::Device {
            let weight_prefix = graph.weight_prefixes().map(|p| gpu.upload("weight prefix sums", p)).transpose()?;
            Edges::Device { csr: DeviceGraph::upload(gpu, csr, true)?, weight_prefix }
        } else {
            let plan = placement::plan_partitions(&sizes, budget, placement == Placement::Partitions)?;
            Edges::Host(HostEdges::place(gpu, graph, placement, plan)?)
        };
        Ok(DeviceSampleGraph {
            host: graph,
            edges,
            max_weights,
            max_degree,
            active_vertices,
            rows_distinct,
            packed: RefCell::new(None),
        })
    }

    /// The host graph this mirrors.
    pub fn host(&self) -> &'a SampleGraph<'a> {
        self.host
    }

    /// Where the edges are: device, zero-copy or partitions.
    pub fn placement(&self) -> Placement {
        match &self.edges {
            Edges::Device { .. } => Placement::Device,
            Edges::Host(host) => host.placement,
        }
    }

    /// For a graph whose edges stay in host memory, its resident partitions and all its
    /// partitions (`None` on the device).
    pub fn resident_partitions(&self) -> Option<(u64, u64)> {
        self.host_edges().map(|host| (host.plan.resident, host.plan.partitions))
    }

    /// The partitions of a graph whose edges stay in host memory (`None` on the device).
    pub(super) fn host_edges(&self) -> Option<&HostEdges> {
        match &self.edges {
            Edges::Device { .. } => None,
            Edges::Host(host) => Some(host),
        }
    }

    /// The largest degree.
    pub fn max_degree(&self) -> u64 {
        self.max_degree
    }

    /// Vertices with at least one edge.
    pub fn active_vertices(&self) -> u64 {
        self.active_vertices
    }

    /// Whether no row repeats a neighbour (then a row's distinct neighbours are its degree).
    pub fn rows_distinct(&self) -> bool {
        self.rows_distinct
    }

    /// The packings the walk engine's packed edges may take on this graph, narrowest first
    /// (none when the edges are in host memory or a degree passes 32 bits).
    pub(super) fn packings(&self) -> Vec<Packing> {
        if !matches!(self.edges, Edges::Device { .. }) || self.max_degree > u64::from(u32::MAX) {
            return Vec::new();
        }
        let csr = self.host.csr();
        let narrow = Packing::narrow(csr.num_vertices() as u64, csr.num_edges(), self.max_degree);
        narrow.into_iter().chain([Packing::Wide]).collect()
    }

    /// Bytes the packed edges take in `packing`.
    pub(super) fn packed_bytes(&self, packing: Packing) -> u64 {
        self.host.csr().num_edges() * packing.edge_bytes()
    }

    /// The device address of the packed edges in `packing` (one of [`Self::packings`]), built
    /// with `module`'s `glp_sample_pack_edges` (`_narrow`) the first time.
    pub(super) fn packed_edges(&self, gpu: &Gpu, module: &Module, packing: Packing) -> Result<u64> {
        let mut packed = self.packed.borrow_mut();
        if let Some((built, buffer)) = packed.as_ref() {
            if *built == packing {
                return Ok(buffer.device_ptr());
            }
        }
        *packed = None; // another packing's memory goes first
        let edges = self.host.csr().num_edges();
        let buffer = gpu.alloc_zeros::<u32>("packed edges", (self.packed_bytes(packing) / 4) as usize)?;
        let args = KernelArgs::new().value(self.view()).buffer(&buffer).value(edges);
        let (kernel, args) = match packing {
            Packing::Wide => ("glp_sample_pack_edges", args),
            Packing::Narrow { target_bits, offset_bits } => {
                ("glp_sample_pack_edges_narrow", args.value(target_bits).value(offset_bits))
            }
        };
        gpu.launch(&module.kernel(kernel)?, Shape::covering(edges, 256)?, &args)?;
        let address = buffer.device_ptr();
        *packed = Some((packing, buffer));
        Ok(address)
    }

    /// Bytes the graph holds on the device.
    pub fn bytes(&self) -> u64 {
        let edges = match &self.edges {
            Edges::Device { csr, weight_prefix } => csr.bytes() + weight_prefix.as_ref().map_or(0, DeviceBuffer::bytes),
            Edges::Host(host) => host.device_bytes(),
        };
        edges + self.max_weights.as_ref().map_or(0, DeviceBuffer::bytes)
    }

    /// Bytes of the column (targets) array: the array a sampling step reads at random.
    pub fn targets_bytes(&self) -> u64 {
        self.host.csr().num_edges() * 4
    }

    /// The view of the graph alone (no sample).
    pub(super) fn view(&self) -> SampleViewArgs {
        let csr = self.host.csr();
        let base = SampleViewArgs {
            max_weights: self.max_weights.as_ref().map_or(0, DeviceBuffer::device_ptr),
            num_vertices: csr.num_vertices() as u32,
            symmetric: u32::from(self.host.symmetric()),
            loop_budget: default_loop_budget(csr.num_vertices() as u64, csr.num_edges()),
            // No row known in registers: the packed walk kernels set their own.
            known_vertex: NONE,
            prior_vertex: NONE,
            ..SampleViewArgs::default()
        };
        match &self.edges {
            Edges::Device { csr, weight_prefix } => SampleViewArgs {
                offsets: csr.offsets_ptr(),
                targets: csr.targets_ptr(),
                edge_weights: csr.weights_ptr(),
                weight_prefix: weight_prefix.as_ref().map_or(0, DeviceBuffer::device_ptr),
                ..base
            },
            Edges::Host(host) => SampleViewArgs {
                offsets: host.offsets.device_ptr(),
                targets: host.targets.device_ptr(),
                edge_weights: host.weights.as_ref().map_or(0, PinnedHostBuffer::device_ptr),
                weight_prefix: host.weight_prefix.as_ref().map_or(0, PinnedHostBuffer::device_ptr),
                partitions: host.table.borrow().device_ptr(),
                partition_shift: u64::from(host.plan.shift),
                ..base
            },
        }
    }
}

/// What `graph`'s arrays take.
fn sizes_of(graph: &SampleGraph<'_>, max_degree: u64) -> GraphSizes {
    let csr = graph.csr();
    let (n, m) = (csr.num_vertices() as u64, csr.num_edges());
    let weighted = csr.weights().is_some();
    let per_vertex_bytes = (n + 1) * 8 + if graph.max_weights().is_some() { n * 4 } else { 0 };
    let per_edge = 4 + if weighted { 4 } else { 0 } + if graph.weight_prefixes().is_some() { 8 } else { 0 };
    GraphSizes { edges: m, max_degree, per_vertex_bytes, device_bytes: per_vertex_bytes + m * per_edge }
}

impl HostEdges {
    /// Pins `graph`'s edge arrays, uploads its offsets and resident partitions, and makes the
    /// staging buffers and the partition table.
    fn place(gpu: &Gpu, graph: &SampleGraph<'_>, placement: Placement, plan: PartitionPlan) -> Result<Self> {
        let csr = graph.csr();
        let targets = pin(gpu, "the graph's targets", csr.targets())?;
        let weights = csr.weights().map(|w| pin(gpu, "the graph's edge weights", w)).transpose()?;
        let weight_prefix =
            graph.weight_prefixes().map(|p| pin(gpu, "the graph's weight prefix sums", p)).transpose()?;
        let resident = (plan.resident_edges > 0)
            .then(|| gpu.upload("resident partitions", &csr.targets()[..plan.resident_edges as usize]))
            .transpose()?;
        let staging = (0..plan.staging)
            .map(|_| gpu.alloc_zeros::<u32>("a partition's staging buffer", plan.staging_edges as usize))
            .collect::<Result<Vec<_>>>()?;
        let host_table: Vec<u64> = (0..plan.partitions)
            .map(|p| match &resident {
                Some(buffer) if p < plan.resident => buffer.device_ptr() + ((p << plan.shift) * 4),
                _ => (targets.device_ptr() + ((p << plan.shift) * 4)) | BUS,
            })
            .collect();
        let table = gpu.upload("the partition table", &host_table)?;
        Ok(HostEdges {
            placement,
            plan,
            edges: csr.num_edges(),
            offsets: gpu.upload("CSR offsets", csr.offsets())?,
            targets,
            weights,
            weight_prefix,
            resident,
            staging,
            table: RefCell::new(table),
            host_table: RefCell::new(host_table),
        })
    }

    /// How the edges are cut.
    pub(super) fn plan(&self) -> &PartitionPlan {
        &self.plan
    }

    /// The pinned targets (the partitions' source).
    pub(super) fn targets(&self) -> &PinnedHostBuffer<u32> {
        &self.targets
    }

    /// The staging buffers.
    pub(super) fn staging(&self) -> &[DeviceBuffer<u32>] {
        &self.staging
    }

    /// The edges partition `p` copies to a staging buffer: its own and the longest row's
    /// worth after them, up to the last edge.
    pub(super) fn copied_range(&self, p: u64) -> std::ops::Range<usize> {
        let start = (p << self.plan.shift).min(self.edges);
        let end = (start + self.plan.staging_edges).min(self.edges);
        start as usize..end as usize
    }

    /// Points partition `p` at staging buffer `slot` (`None`: back to host memory, over the
    /// bus) in the host copy of the table; [`HostEdges::publish`] writes it for kernels.
    pub(super) fn point(&self, p: u64, slot: Option<usize>) {
        let address = match slot {
            Some(slot) => self.staging[slot].device_ptr(),
            None => (self.targets.device_ptr() + ((p << self.plan.shift) * 4)) | BUS,
        };
        self.host_table.borrow_mut()[p as usize] = address;
    }

    /// Queues the table's write on the main stream, after the kernels queued so far.
    pub(super) fn publish(&self, gpu: &Gpu) -> Result<()> {
        gpu.write(&mut *self.table.borrow_mut(), &self.host_table.borrow())
    }

    /// Whether partition `p` is in device memory for good.
    pub(super) fn is_resident(&self, p: u64) -> bool {
        p < self.plan.resident
    }

    /// Bytes on the device: offsets, resident partitions, staging buffers, table.
    fn device_bytes(&self) -> u64 {
        self.offsets.bytes()
            + self.resident.as_ref().map_or(0, DeviceBuffer::bytes)
            + self.staging.iter().map(DeviceBuffer::bytes).sum::<u64>()
            + self.table.borrow().bytes()
    }
}

/// Bit 0 of a partition table entry: the partition is read over the bus (its address is the
/// host memory's mapping).
pub(super) const BUS: u64 = 1;

/// `data` in pinned host memory mapped into the device's address space.
fn pin<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Copy>(
    gpu: &Gpu,
    what: &str,
    data: &[T],
) -> Result<PinnedHostBuffer<T>> {
    let mut pinned = gpu.alloc_pinned::<T>(what, data.len())?;
    pinned.as_mut_slice()?[..data.len()].copy_from_slice(data);
    Ok(pinned)
}

#[cfg(test)]
mod tests {
    use super::Packing;

    #[test]
    fn the_narrow_packing_holds_an_id_an_offset_and_a_degree_in_64_bits() {
        // com-DBLP: 317,080 vertices (19 bits), 2,099,732 stored edges (22), degree 343 (9).
        assert_eq!(
            Packing::narrow(317_080, 2_099_732, 343),
            Some(Packing::Narrow { target_bits: 19, offset_bits: 22 })
        );
        // R-MAT 22: 22 + 27 bits leave 15 for a degree: its hubs of ~10^5 do not fit.
        assert_eq!(
            Packing::narrow(1 << 22, 128_311_778, 32_767),
            Some(Packing::Narrow { target_bits: 22, offset_bits: 27 })
        );
        assert_eq!(Packing::narrow(1 << 22, 128_311_778, 32_768), None);
        // The smallest graphs take one bit a field.
        assert_eq!(Packing::narrow(1, 0, 0), Some(Packing::Narrow { target_bits: 1, offset_bits: 1 }));
        // Exactly 64 bits fit; one more does not.
        assert_eq!(
            Packing::narrow(1 << 32, (1 << 16) - 1, u64::from(u16::MAX)),
            Some(Packing::Narrow { target_bits: 32, offset_bits: 16 })
        );
        assert_eq!(Packing::narrow(1 << 32, 1 << 16, u64::from(u16::MAX)), None);
        assert_eq!(
            (Packing::Wide.edge_bytes(), Packing::Narrow { target_bits: 1, offset_bits: 1 }.edge_bytes()),
            (16, 8)
        );
    }
}
