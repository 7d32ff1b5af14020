//! nu-LPA's per-vertex global hash tables (`--mfl hash`), the memory baseline of the sketch
//! strategies: vertex `v`'s table is at `2 * offsets[v]` of one key array and one value array
//! (2 slots per edge: 24 bytes per edge with u32 keys and f64 sums), of capacity
//! `nextPow2(degree) - 1` ([`glp_codegen::lp_kernels::sketch::nu_hash_capacity`]), keys stored as
//! label + 1 with 0 for empty, hybrid quadratic-double probing. A warp per vertex; exact, like
//! the other table strategies (the kernel's notes are in glp-codegen's `lp_kernels/sketch_kernels.cuh`).

use super::SweepLaunch;
use crate::device::{DeviceBuffer, Gpu, Kernel, Module, Shape};
use crate::error::Result;
use glp_codegen::lp_kernels::sketch::{NU_HASH_KERNEL, NU_HASH_THREADS};

/// The tables (zeroed: every slot empty; the kernel empties the slots it reads).
pub(super) struct NuHashState {
    keys: DeviceBuffer<u32>,
    sums: DeviceBuffer<f64>,
    num_vertices: u64,
}

impl NuHashState {
    pub(super) fn upload(gpu: &Gpu, num_vertices: usize, num_edges: u64) -> Result<NuHashState> {
        let slots = (2 * num_edges) as usize;
        Ok(NuHashState {
            keys: gpu.alloc_zeros("nu-LPA's hash tables", slots)?,
            sums: gpu.alloc_zeros("nu-LPA's hash tables", slots)?,
            num_vertices: num_vertices as u64,
        })
    }

    /// Bytes of the tables.
    pub(super) fn table_bytes(&self) -> u64 {
        self.keys.bytes() + self.sums.bytes()
    }
}

/// The baseline's kernel (in the MFL module).
pub(super) struct NuHashKernel {
    kernel: Kernel,
}

impl NuHashKernel {
    pub(super) fn load(module: &Module) -> Result<NuHashKernel> {
        Ok(NuHashKernel { kernel: module.kernel(NU_HASH_KERNEL)? })
    }

    /// One sweep over every vertex: `glp_lp_nu_hash(params, view, keys, sums, sweep)`.
    pub(super) fn propagate(&self, launch: &SweepLaunch<'_>, state: &NuHashState) -> Result<()> {
        if state.num_vertices == 0 {
            return Ok(());
        }
        let args = launch.hook_args().buffer(&state.keys).buffer(&state.sums).value(launch.sweep);
        launch.gpu.launch(&self.kernel, Shape::covering(state.num_vertices * 32, NU_HASH_THREADS)?, &args)
    }
}
