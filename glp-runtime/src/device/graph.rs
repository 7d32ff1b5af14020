//! The graph on the GPU: a CSR uploaded once and borrowed by every GPU run on it (every
//! engine, strategy and repeat), so that a benchmark of several strategies or repeats pays
//! the upload once and measures the runs alone.

use super::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::graph::Csr;

/// A [`Csr`] uploaded to a GPU: offsets, targets and (when asked for) edge weights, with the
/// host CSR it mirrors (engines plan their work from the host copy).
pub struct DeviceGraph<'g> {
    csr: &'g Csr,
    offsets: DeviceBuffer<u64>,
    targets: DeviceBuffer<u32>,
    weights: Option<DeviceBuffer<f32>>,
}

impl<'g> DeviceGraph<'g> {
    /// Uploads `csr` to `gpu`, its edge weights too when `with_weights` and the graph has
    /// some (programs that never read weights leave them on the host).
    ///
    /// Errors: the GPU's errors, an allocation beyond its free memory.
    pub fn upload(gpu: &Gpu, csr: &'g Csr, with_weights: bool) -> Result<Self> {
        let weights = match csr.weights() {
            Some(w) if with_weights => Some(gpu.upload("edge weights", w)?),
            _ => None,
        };
        Ok(DeviceGraph {
            csr,
            offsets: gpu.upload("CSR offsets", csr.offsets())?,
            targets: gpu.upload("CSR targets", csr.targets())?,
            weights,
        })
    }

    /// The host graph this mirrors.
    pub fn csr(&self) -> &'g Csr {
        self.csr
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
        self.offsets.bytes() + self.targets.bytes() + self.weights.as_ref().map_or(0, DeviceBuffer::bytes)
    }
}

impl std::fmt::Debug for DeviceGraph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceGraph")
            .field("num_vertices", &self.csr.num_vertices())
            .field("num_edges", &self.csr.num_edges())
            .field("bytes", &self.bytes())
            .finish()
    }
}
