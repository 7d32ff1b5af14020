//! The giant class on the device: vertices of degree above
//! [`GIANT_DEGREE`](glp_codegen::lp_kernels::giants::GIANT_DEGREE), counted by many blocks
//! each (glp-codegen's [`giants`](glp_codegen::lp_kernels::giants) module gives the kernels and
//! why). The plan's batches are uploaded once; one pool of regions, the per-giant flags and
//! counters and the slices' candidates are sized by the largest batch and reused by each.

use super::args::LpGiantArgs;
use super::{ClassPlan, SweepLaunch};
use crate::community::UNLABELLED;
use crate::device::{DeviceBuffer, Gpu, Kernel, Module, Shape};
use crate::error::Result;
use glp_codegen::lp_kernels::giants::{largest_batch, GIANT_KERNEL_NAMES, GIANT_MAX_BLOCKS, PARTIAL_WORDS};
use glp_codegen::lp_kernels::mfl::{HIGH_THREADS, TABLE_SLOT_BYTES};

/// One batch on the device.
struct DeviceBatch {
    vertices: DeviceBuffer<u32>,
    region_offsets: DeviceBuffer<u64>,
    chunk_offsets: DeviceBuffer<u64>,
    count: u32,
    chunks: u64,
    slices: u64,
}

/// The batches and the buffers they share (none without giants).
pub(super) struct GiantState {
    batches: Vec<DeviceBatch>,
    active: DeviceBuffer<u32>,
    done: DeviceBuffer<u32>,
    partials: DeviceBuffer<u64>,
    keys: DeviceBuffer<u32>,
    sums: DeviceBuffer<f64>,
}

impl GiantState {
    /// The plan's batches uploaded, the pool's keys emptied by `fill` (the kernels empty the
    /// slots they read, so the pool stays empty between sweeps).
    pub(super) fn upload(
        gpu: &Gpu,
        plan: &ClassPlan,
        fill: impl Fn(&DeviceBuffer<u32>, u32) -> Result<()>,
    ) -> Result<GiantState> {
        let (slots, slices, count) = largest_batch(&plan.giants);
        let batches = plan
            .giants
            .iter()
            .map(|b| {
                Ok(DeviceBatch {
                    vertices: gpu.upload("the giant vertices", &b.vertices)?,
                    region_offsets: gpu.upload("the giant vertices", &b.region_offsets)?,
                    chunk_offsets: gpu.upload("the giant vertices", &b.chunk_offsets)?,
                    count: b.vertices.len() as u32,
                    chunks: b.chunks(),
                    slices: b.slices(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let keys = gpu.alloc_zeros("the giant vertices' tables", slots as usize)?;
        fill(&keys, UNLABELLED)?;
        Ok(GiantState {
            batches,
            active: gpu.alloc_zeros("the giant vertices", count as usize)?,
            done: gpu.alloc_zeros("the giant vertices", count as usize)?,
            partials: gpu.alloc_zeros("the giant vertices", (slices * PARTIAL_WORDS) as usize)?,
            keys,
            sums: gpu.alloc_zeros("the giant vertices' tables", slots as usize)?,
        })
    }

    /// Bytes of the pool.
    pub(super) fn table_bytes(&self) -> u64 {
        if self.batches.is_empty() {
            0
        } else {
            self.keys.len() as u64 * TABLE_SLOT_BYTES
        }
    }

    fn args(&self, batch: &DeviceBatch) -> LpGiantArgs {
        LpGiantArgs {
            vertices: batch.vertices.device_ptr(),
            region_offsets: batch.region_offsets.device_ptr(),
            chunk_offsets: batch.chunk_offsets.device_ptr(),
            active: self.active.device_ptr(),
            done: self.done.device_ptr(),
            partials: self.partials.device_ptr(),
            keys: self.keys.device_ptr(),
            sums: self.sums.device_ptr(),
            count: batch.count,
            padding: 0,
        }
    }
}

/// The giant kernels (in the MFL module).
pub(super) struct GiantKernels {
    claim: Kernel,
    count: Kernel,
    best: Kernel,
}

impl GiantKernels {
    pub(super) fn load(module: &Module) -> Result<GiantKernels> {
        let [claim, count, best] = GIANT_KERNEL_NAMES;
        Ok(GiantKernels { claim: module.kernel(claim)?, count: module.kernel(count)?, best: module.kernel(best)? })
    }

    /// Every batch of one sweep: claim, count, best.
    pub(super) fn propagate(&self, launch: &SweepLaunch<'_>, state: &GiantState) -> Result<()> {
        let gpu = launch.gpu;
        for batch in &state.batches {
            let args = state.args(batch);
            let claim = crate::device::KernelArgs::new().value(args).value(launch.sweep);
            gpu.launch(&self.claim, Shape::covering(u64::from(batch.count), 256)?, &claim)?;
            let blocks = |work: u64| Shape { blocks: work.clamp(1, GIANT_MAX_BLOCKS) as u32, threads: HIGH_THREADS };
            gpu.launch(&self.count, blocks(batch.chunks), &launch.hook_args().value(args))?;
            gpu.launch(&self.best, blocks(batch.slices), &launch.hook_args().value(args).value(launch.sweep))?;
        }
        Ok(())
    }
}
