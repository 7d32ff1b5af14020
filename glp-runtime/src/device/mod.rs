//! The GPU device layer: probing for CUDA GPUs without ever panicking, an opened [`Gpu`] with
//! accounted buffers and event timing, NVRTC ([`nvrtc`]) with a content-addressed PTX cache in
//! memory and on disk ([`cache`]), module loading and the one kernel launch site
//! ([`Gpu::launch`]), and the graph on the GPU ([`DeviceGraph`], uploaded once per graph, its
//! vertices in the graph's order or by degree: [`VertexOrder`]).
//!
//! cudarc loads the CUDA driver library lazily and panics when it is missing, so every use
//! of the GPU starts with [`probe`], which checks that the driver library can be loaded
//! (`is_culib_present`) and that the driver reports at least one device before any other
//! call. A machine without CUDA gets an [`Error::GpuUnavailable`] explaining why.

pub mod cache;
pub mod ceiling;
mod copy_stream;
mod gpu;
mod graph;
mod launch;
pub mod nvrtc;
mod order;
mod params;

pub use copy_stream::CopyStream;
pub use gpu::{DeviceBuffer, Gpu, PinnedHostBuffer};
pub use graph::DeviceGraph;
pub use launch::{Kernel, KernelArg, KernelArgs, Module, Shape};
pub(crate) use order::PlacedOrder;
pub use order::VertexOrder;
pub use params::param_block;

use crate::error::{Error, Result};
use cudarc::driver::{result, sys};

/// What the driver reports about one GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor): (9, 0) is `sm_90`.
    pub compute_capability: (u32, u32),
    /// Device memory in bytes.
    pub total_memory: u64,
    /// L2 cache in bytes.
    pub l2_bytes: u64,
}

/// Lists the CUDA GPUs of this machine, or says why there is none usable.
pub fn probe() -> Result<Vec<GpuInfo>> {
    // SAFETY: `is_culib_present` only tries to dlopen the driver library under its known
    // names and drops the handle; it calls no CUDA function.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::GpuUnavailable(
            "the CUDA driver library (libcuda.so) is not installed or not on the library path".into(),
        ));
    }
    let driver = |what: &str, e: result::DriverError| Error::GpuUnavailable(format!("{what}: {e}"));
    result::init().map_err(|e| driver("the CUDA driver failed to initialise", e))?;
    let count = result::device::get_count().map_err(|e| driver("cannot count CUDA devices", e))?;
    if count <= 0 {
        return Err(Error::GpuUnavailable("the CUDA driver reports no device".into()));
    }
    (0..count)
        .map(|ordinal| {
            let dev = result::device::get(ordinal).map_err(|e| driver("cannot open a CUDA device", e))?;
            let name = result::device::get_name(dev).map_err(|e| driver("cannot read the device name", e))?;
            let attribute = |a| {
                // SAFETY: `dev` was returned by `cuDeviceGet` above.
                unsafe { result::device::get_attribute(dev, a) }
                    .map_err(|e| driver("cannot read a device attribute", e))
            };
            let major = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
            let minor = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
            let l2 = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?;
            // SAFETY: `dev` was returned by `cuDeviceGet` above.
            let total =
                unsafe { result::device::total_mem(dev) }.map_err(|e| driver("cannot read device memory", e))?;
            Ok(GpuInfo {
                ordinal: ordinal as usize,
                name,
                compute_capability: (major as u32, minor as u32),
                total_memory: total as u64,
                l2_bytes: l2.max(0) as u64,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On any machine the probe returns instead of panicking. With `GLP_REQUIRE_GPU=1` (set
    /// on GPU machines) it must find a device whose facts are plausible; without a GPU it must
    /// say why.
    #[test]
    fn probe_never_panics_and_reports_devices_or_a_reason() {
        let require_gpu = glp_testkit::switch::Need::Gpu.required();
        match probe() {
            Ok(gpus) => {
                assert!(!gpus.is_empty());
                for (i, g) in gpus.iter().enumerate() {
                    assert_eq!(g.ordinal, i);
                    assert!(!g.name.is_empty());
                    assert!(g.compute_capability.0 >= 5, "{g:?}");
                    assert!(g.total_memory >= 1 << 30, "{g:?}");
                }
            }
            Err(Error::GpuUnavailable(reason)) => {
                assert!(!require_gpu, "GLP_REQUIRE_GPU=1 but no GPU: {reason}");
                assert!(!reason.is_empty());
            }
            Err(other) => panic!("unexpected error kind: {other}"),
        }
    }
}
