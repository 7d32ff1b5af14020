//! The kernel arguments the host lays out for the device: the view (`glp_lp_view`), the
//! sweep (`glp_lp_sweep`) and a batch of giants (`glp_lp_giants`), whose Rust structs
//! glp-codegen generates with their C definitions ([`LpViewArgs`], [`LpSweepArgs`],
//! [`LpGiantArgs`]). The variant's parameter block is
//! [`crate::device::param_block`], as for every kind.

use crate::device::KernelArg;
pub(super) use glp_codegen::kinds::lp::layout::LpViewArgs;
pub(super) use glp_codegen::lp_kernels::giants::LpGiantArgs;
pub(super) use glp_codegen::lp_kernels::mfl::LpSweepArgs;

// SAFETY: `LpViewArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernels' `glp_lp_view` from the same table, checking at
// compile time that it has no padding and that every field is as wide as its C type (device
// pointers are `u64` addresses): the layout of `glp_lp_view`, byte for byte.
unsafe impl KernelArg for LpViewArgs {}

// SAFETY: as for the view: `LpSweepArgs` and the kernels' `glp_lp_sweep` come from one
// `c_struct!` table, `#[repr(C)]`, no padding, every field as wide as its C type.
unsafe impl KernelArg for LpSweepArgs {}

// SAFETY: as for the view: `LpGiantArgs` and the kernels' `glp_lp_giants` come from one
// `c_struct!` table, `#[repr(C)]`, no padding, every field as wide as its C type.
unsafe impl KernelArg for LpGiantArgs {}
