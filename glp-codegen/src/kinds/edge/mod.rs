//! The edge program kind (WolfGraph's edge-centric model): a value per vertex the program
//! declares, an edge function from a vertex's value to a message, a combine the engines map
//! to their atomics and reductions, and an apply from a vertex's old value and its combined
//! messages to its new one ([`EDGE_KIND`]).
//!
//! A program is written as `impl EdgeProgram for T` (glp-runtime's `edge::EdgeProgram`), the
//! struct's fields its parameters, and declares two types: `type Value` (a scalar or a
//! tuple of scalars: a distance, a rank and a residual, a component id) and `type Message`
//! (a scalar). Its hooks split in two:
//! - the schedule (`combine`, `direction`, `frontier`, `iterations`, `weighted`) takes no
//!   view: engines evaluate it once a run on the host;
//! - the vertex and edge hooks (`init`, `edge`, `apply`, `changed`, `aggregate`) run
//!   wherever the engine runs, on the CPU natively or on the interpreter.
//!
//! On the GPU ([`layout`], `view.cuh`) the view is `glp_edge_view`, the declared types are
//! `glp_edge_value` and `glp_edge_message`, and `glp_edge_atomic_combine` maps each combine to
//! the message type's atomic ([`hooks_source`]); [`engine_source`] adds the edge-centric
//! engine's kernels ([`kernels`]).
//!
//! The trait's host methods (`name`, `identity`) are not hooks: ordinary Rust the compiler
//! leaves out ([`crate::program::kind::KindSpec::host_methods`]); the attribute writes
//! `identity` from `combine`.

mod expand;
pub mod layout;
mod spec;
#[cfg(test)]
mod tests;

pub use expand::expand_attribute;
pub use spec::{
    is_idempotent, AGGREGATE, APPLY, BOTH, CHANGED, COMBINE, DEFAULT_HOOKS, DIRECTION, EDGE, EDGE_KIND, FRONTIER, IN,
    INIT, ITERATIONS, MAX, MESSAGE, MIN, NO_SOURCE, OUT, SUM, VALUE, WEIGHTED,
};

use crate::diag::Diagnostics;
use crate::frontend::FieldDecl;
use crate::ir::{Program, Type};
use crate::program::source::SourceError;
use std::collections::BTreeSet;

/// An edge program compiled to IR, with the optional facilities of the view its hooks use.
#[derive(Debug, Clone)]
pub struct EdgeIr {
    pub program: Program,
    /// The facilities ([`crate::program::kind::IntrinsicSpec::feature`]) the hooks use:
    /// `aggregate` (engines then sum `aggregate` over the vertices before each iteration) and
    /// `source` (a run needs a source vertex).
    pub features: BTreeSet<&'static str>,
}

/// Compiles an `impl EdgeProgram for T` block.
pub fn compile_impl(item: &syn::ItemImpl, fields: Option<&[FieldDecl]>) -> Result<EdgeIr, Diagnostics> {
    let compiled = crate::program::compile_impl(&EDGE_KIND, item, fields)?;
    Ok(EdgeIr::new(compiled.program))
}

/// Compiles the edge program defined in `source` (see [`crate::program::source`]).
pub fn compile_source(source: &str) -> Result<EdgeIr, SourceError> {
    Ok(EdgeIr::new(crate::program::source::compile_source(&EDGE_KIND, source)?.program))
}

impl EdgeIr {
    pub fn new(program: Program) -> Self {
        let features = crate::program::features::used(&EDGE_KIND, &program);
        EdgeIr { program, features }
    }

    /// The program's vertex value type (`type Value`).
    pub fn value_type(&self) -> &Type {
        &self.program.declared_types[VALUE]
    }

    /// The program's message type (`type Message`): a scalar.
    pub fn message_type(&self) -> &Type {
        &self.program.declared_types[MESSAGE]
    }

    /// The program's hooks as CUDA device functions (deterministic), with its declared
    /// types as `glp_edge_value` and `glp_edge_message`.
    pub fn device_functions(&self) -> String {
        crate::cuda::emit_program(&EDGE_KIND, &self.program)
    }
}

/// A complete translation unit of `device_functions` (an edge program's emitted hooks): the
/// prelude, the view with the combine's atomics, and the hooks.
pub fn hooks_source(device_functions: &str) -> String {
    [crate::cuda::PRELUDE, &layout::view_cuda(), device_functions].join("\n")
}

/// The edge-centric engine's module for `device_functions`: [`hooks_source`] and the engine's
/// kernels (`engine_kernels.cu`: initial values, the `aggregate` sum, edge blocks combining
/// in shared memory and flushing with the program's combine, apply).
pub fn engine_source(device_functions: &str) -> String {
    let constants =
        format!("#define GLP_EDGE_THREADS {ENGINE_THREADS}u\n#define GLP_EDGE_BLOCK_EDGES {BLOCK_EDGES}u\n");
    [&hooks_source(device_functions), constants.as_str(), ENGINE_KERNELS].join("\n")
}

/// Threads per block of every engine kernel (a multiple of 32).
pub const ENGINE_THREADS: u32 = 256;

/// Edges per edge block (`glp_edge_edges`): four per thread, and as many shared-memory slots
/// for the block's receivers (8 KiB for 8-byte messages).
pub const BLOCK_EDGES: u32 = 4 * ENGINE_THREADS;

/// The edge-centric engine's kernels (no slots: they call the hooks and types by their fixed
/// names).
const ENGINE_KERNELS: &str = include_str!("engine_kernels.cu");

/// The names of the engine's kernels, as `engine_kernels.cu` defines them.
pub mod kernels {
    /// Every vertex's `init` value; combined messages at the identity; every vertex active.
    pub const INIT_VALUES: &str = "glp_edge_init_values";
    /// The sum of `aggregate` over the vertices.
    pub const AGGREGATE_VALUES: &str = "glp_edge_aggregate_values";
    /// Edge blocks: messages combined per receiver in shared memory, flushed in the kernel.
    pub const EDGES: &str = "glp_edge_edges";
    /// Every vertex's `apply`, `changed` counted.
    pub const APPLY_VALUES: &str = "glp_edge_apply_values";
    pub const ALL: [&str; 4] = [INIT_VALUES, AGGREGATE_VALUES, EDGES, APPLY_VALUES];
}
