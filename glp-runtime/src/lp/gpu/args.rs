//! The kernel arguments the host lays out for the device: the variant's parameter block
//! ([`param_block`]), the view (`glp_lp_view`) and the sweep (`glp_lp_sweep`).

use crate::device::KernelArg;
use glp_codegen::ir::ScalarValue;

/// The C layout of the variant's parameter struct (`glp_lp_params`): fields in order, each
/// aligned to its size, the whole padded to the largest alignment; an empty struct is one
/// byte, as in C++.
pub fn param_block(values: &[ScalarValue]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut align = 1;
    for value in values {
        let size = value.scalar().size();
        align = align.max(size);
        while bytes.len() % size != 0 {
            bytes.push(0);
        }
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    while bytes.len() % align != 0 || bytes.is_empty() {
        bytes.push(0);
    }
    bytes
}

/// The kernel argument mirroring `glp_lp_view` (glp-codegen's `view.cuh`) field for field.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct ViewArg {
    pub(super) offsets: u64,
    pub(super) targets: u64,
    pub(super) edge_weights: u64,
    pub(super) vertex_weights: u64,
    pub(super) labels: u64,
    pub(super) next_labels: u64,
    pub(super) histogram: u64,
    pub(super) memory_labels: u64,
    pub(super) memory_weights: u64,
    pub(super) seeds: u64,
    pub(super) fault: u64,
    pub(super) num_edges: u64,
    pub(super) random_seed: u64,
    pub(super) loop_budget: u64,
    pub(super) num_vertices: u32,
    pub(super) iteration: u32,
}

// SAFETY: `#[repr(C)]`, fourteen 8-byte fields then two 4-byte ones: the layout of
// `glp_lp_view` (pointers are 8 bytes on every CUDA target), no padding.
unsafe impl KernelArg for ViewArg {}

/// The kernel argument mirroring `glp_lp_sweep` (`mfl_kernels.cu`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct SweepArg {
    pub(super) out: u64,
    pub(super) affected: u64,
    pub(super) counters: u64,
    pub(super) pick_less: u32,
    pub(super) wave_size: u32,
    pub(super) wave: u32,
    pub(super) padding: u32,
}

// SAFETY: `#[repr(C)]`, three 8-byte fields then four 4-byte ones: the layout of
// `glp_lp_sweep`, no padding.
unsafe impl KernelArg for SweepArg {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_blocks_follow_the_c_layout() {
        assert_eq!(param_block(&[]), vec![0]);
        assert_eq!(param_block(&[ScalarValue::F64(1.0)]), 1.0f64.to_le_bytes().to_vec());
        // u32 then f64: 4 bytes of padding before the double; bool then u32: 3 bytes.
        let block = param_block(&[ScalarValue::U32(7), ScalarValue::F64(2.0)]);
        assert_eq!(block.len(), 16);
        assert_eq!(&block[0..4], &7u32.to_le_bytes());
        assert_eq!(&block[8..16], &2.0f64.to_le_bytes());
        let block = param_block(&[ScalarValue::Bool(true), ScalarValue::U32(9), ScalarValue::Bool(false)]);
        assert_eq!(block, vec![1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
    }
}
