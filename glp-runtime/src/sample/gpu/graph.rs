//! The graph on the GPU as sampler views read it.

use crate::device::{DeviceBuffer, DeviceGraph, Gpu, KernelArgs, Module, Shape};
use crate::error::Result;
use crate::sample::edges::SampleGraph;
use glp_codegen::kinds::sample::layout::SampleViewArgs;
use glp_codegen::loops::default_loop_budget;
use std::cell::OnceCell;

/// A graph on the GPU with what sampler views read besides the CSR (the weights' prefix
/// sums and per-vertex maxima on weighted graphs), and the host graph it mirrors, from which
/// engines plan their work and replay a sample for its error.
pub struct DeviceSampleGraph<'a> {
    host: &'a SampleGraph<'a>,
    graph: DeviceGraph<'a>,
    weight_prefix: Option<DeviceBuffer<f64>>,
    max_weights: Option<DeviceBuffer<f32>>,
    max_degree: u64,
    active_vertices: u64,
    rows_distinct: bool,
    /// The walk engine's packed edges (`glp_sample_pack_edges`): four words per edge, built on
    /// first use.
    packed: OnceCell<DeviceBuffer<u32>>,
}

impl<'a> DeviceSampleGraph<'a> {
    /// Uploads `graph` (its CSR, weights, prefix sums and maxima).
    pub fn upload(gpu: &Gpu, graph: &'a SampleGraph<'a>) -> Result<Self> {
        let weight_prefix = graph.weight_prefixes().map(|p| gpu.upload("weight prefix sums", p)).transpose()?;
        let max_weights = graph.max_weights().map(|m| gpu.upload("maximum weights", m)).transpose()?;
        let csr = graph.csr();
        let max_degree = (0..csr.num_vertices() as u32).map(|v| csr.degree(v) as u64).max().unwrap_or(0);
        let active_vertices = (0..csr.num_vertices() as u32).filter(|&v| csr.degree(v) > 0).count() as u64;
        let rows_distinct = (0..csr.num_vertices() as u32).all(|v| csr.neighbors(v).windows(2).all(|w| w[0] < w[1]));
        Ok(DeviceSampleGraph {
            host: graph,
            graph: DeviceGraph::upload(gpu, csr, true)?,
            weight_prefix,
            max_weights,
            max_degree,
            active_vertices,
            rows_distinct,
            packed: OnceCell::new(),
        })
    }

    /// The host graph this mirrors.
    pub fn host(&self) -> &'a SampleGraph<'a> {
        self.host
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

    /// Bytes the walk engine's packed edges take (16 per edge), or `None` when they cannot be
    /// built (a degree beyond 32 bits).
    pub(super) fn packed_bytes(&self) -> Option<u64> {
        (self.max_degree <= u64::from(u32::MAX)).then(|| self.host.csr().num_edges() * 16)
    }

    /// The device address of the packed edges, built with `module`'s `glp_sample_pack_edges`
    /// the first time (the caller checked [`Self::packed_bytes`]).
    pub(super) fn packed_edges(&self, gpu: &Gpu, module: &Module) -> Result<u64> {
        if let Some(packed) = self.packed.get() {
            return Ok(packed.device_ptr());
        }
        let edges = self.host.csr().num_edges();
        let packed = gpu.alloc_zeros::<u32>("packed edges", (edges * 4) as usize)?;
        let args = KernelArgs::new().value(self.view()).buffer(&packed).value(edges);
        gpu.launch(&module.kernel("glp_sample_pack_edges")?, Shape::covering(edges, 256)?, &args)?;
        Ok(self.packed.get_or_init(|| packed).device_ptr())
    }

    /// Bytes the graph holds on the device.
    pub fn bytes(&self) -> u64 {
        self.graph.bytes()
            + self.weight_prefix.as_ref().map_or(0, DeviceBuffer::bytes)
            + self.max_weights.as_ref().map_or(0, DeviceBuffer::bytes)
    }

    /// Bytes of the column (targets) array: the array a sampling step reads at random.
    pub fn targets_bytes(&self) -> u64 {
        self.host.csr().num_edges() * 4
    }

    /// The view of the graph alone (no sample).
    pub(super) fn view(&self) -> SampleViewArgs {
        let csr = self.host.csr();
        SampleViewArgs {
            offsets: self.graph.offsets_ptr(),
            targets: self.graph.targets_ptr(),
            edge_weights: self.graph.weights_ptr(),
            weight_prefix: self.weight_prefix.as_ref().map_or(0, DeviceBuffer::device_ptr),
            max_weights: self.max_weights.as_ref().map_or(0, DeviceBuffer::device_ptr),
            num_vertices: csr.num_vertices() as u32,
            loop_budget: default_loop_budget(csr.num_vertices() as u64, csr.num_edges()),
            ..SampleViewArgs::default()
        }
    }
}
