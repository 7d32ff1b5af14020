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
    is_idempotent, AGGREGATE, AGGREGATE_FEATURE, APPLY, BOTH, CHANGED, COMBINE, DEFAULT_HOOKS, DIRECTION, EDGE,
    EDGE_KIND, FRONTIER, IN, INIT, ITERATIONS, ITERATION_FEATURE, MAX, MESSAGE, MIN, NO_SOURCE, OUT, RECEIVER_FEATURE,
    SETTLED, SETTLED_FEATURE, SUM, VALUE, WEIGHTED,
};

use crate::diag::Diagnostics;
use crate::frontend::FieldDecl;
use crate::ir::{ExprKind, Program, Role, Type};
use crate::program::source::SourceError;
use std::collections::BTreeSet;

/// An edge program compiled to IR, with the optional facilities of the view its hooks use.
#[derive(Debug, Clone)]
pub struct EdgeIr {
    pub program: Program,
    /// The facilities ([`crate::program::kind::IntrinsicSpec::feature`]) the hooks use:
    /// `aggregate` (engines then sum `aggregate` over the vertices before each iteration),
    /// `source` (a run needs a source vertex), [`RECEIVER_FEATURE`] (`edge` reads its
    /// receiver or the weight) and [`SETTLED_FEATURE`] (the program writes `settled`).
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
        EdgeIr { features: features(&program), program }
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

/// The facilities `program` uses (see [`EdgeIr::features`]).
pub fn features(program: &Program) -> BTreeSet<&'static str> {
    let mut features = crate::program::features::used(&EDGE_KIND, program);
    if edge_reads_receiver(program) {
        features.insert(RECEIVER_FEATURE);
    }
    if crate::program::features::writes_hook(program, SETTLED) {
        features.insert(SETTLED_FEATURE);
    }
    features
}

/// Whether `program`'s `edge` hook reads its `to` or `weight` argument (arguments 2 and 4; a
/// hook it calls gets them only as arguments, which this sees): if not, its message depends
/// on the sender alone.
fn edge_reads_receiver(program: &Program) -> bool {
    let Some(edge) = program.functions.iter().find(|f| f.role == Role::Hook(EDGE)) else { return true };
    let receiver_args: Vec<_> = [2, 4].iter().filter_map(|&i| edge.params.get(i).copied()).collect();
    let mut reads = false;
    crate::visit::walk_block(&edge.body, &mut |e| {
        if let ExprKind::Local(local) = e.kind {
            reads |= receiver_args.contains(&local);
        }
    });
    reads
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
    let mut constants =
        format!("#define GLP_EDGE_THREADS {ENGINE_THREADS}u\n#define GLP_EDGE_BLOCK_EDGES {BLOCK_EDGES}u\n");
    for (name, value) in frontier::CONSTANTS {
        constants.push_str(&format!("#define GLP_FRONTIER_{name} {value}u\n"));
    }
    let state = layout::FrontierArgs::c_definition();
    [&hooks_source(device_functions), constants.as_str(), ENGINE_KERNELS, &state, FRONTIER_KERNELS].join("\n")
}

/// The frontier engine's constants, shared by its kernels (`#define GLP_FRONTIER_<NAME>`,
/// [`frontier::CONSTANTS`]) and the host.
pub mod frontier {
    /// Push rows longer than this are split into chunks, a warp each.
    pub const SMALL_ROW: u64 = 256;
    /// Edges per chunk of a long push or pull row (at most twice `PULL_SMALL`, so that a
    /// run's chunks never outnumber twice its edges over `CHUNK`).
    pub const CHUNK: u64 = 256;
    /// Lanes that pull a receiver's rows together (a power of two, at most 32).
    pub const PULL_GROUP: u64 = 8;
    /// Pull rows longer than this are cut into chunks of `CHUNK` edges, a warp each (a group
    /// of lanes pulls a row up to it).
    pub const PULL_SMALL: u64 = 128;
    /// Edges a lane of a pull loads per round (their senders, then their `sending` bits, all
    /// in flight at once) before the group checks whether they settle its receiver.
    pub const PULL_UNROLL: u64 = 4;
    /// Strides of its threads a block of `glp_frontier_send` and `glp_frontier_pull` takes
    /// over consecutive vertices, appending to its lists once after them (at most 64: a
    /// thread notes its trips' entries in a 64-bit mask).
    pub const TRIPS: u64 = 16;
    const _: () = assert!(TRIPS >= 1 && TRIPS <= 64);

    /// `flags`: the program has a frontier.
    pub const FRONTIER: u32 = 1;
    /// `flags`: `edge` reads its receiver or the weight (else a sender's message is computed
    /// once).
    pub const RECEIVER: u32 = 2;
    /// `flags`: the program writes `settled`.
    pub const SETTLED: u32 = 4;
    /// `flags`: `glp_frontier_send` lists the senders (the first frontier).
    pub const LIST_SENDERS: u32 = 8;

    /// Counters (`glp_frontier_state::counters`): the vertices the iteration changed (the
    /// next frontier); 1 and 2 hold a hook's loop fault, as the view's `fault` points there.
    pub const CHANGED: usize = 0;
    /// The edges the next frontier pushes along.
    pub const NEXT_EDGES: usize = 3;
    /// The receivers of a push.
    pub const TOUCHED: usize = 4;
    /// The chunks of long rows of the first push CSR (or of the pull rows), and of the second
    /// push CSR.
    pub const CHUNKS_A: usize = 5;
    pub const CHUNKS_B: usize = 6;
    /// The receivers whose pull rows are long.
    pub const BIG: usize = 7;
    /// The vertices that send a message (before a pull), and the edges they push along.
    pub const SENDERS: usize = 8;
    pub const SENDER_EDGES: usize = 9;
    /// The number of counters.
    pub const COUNTERS: usize = 10;

    /// What the kernels see, by name.
    pub const CONSTANTS: [(&str, u64); 19] = [
        ("SMALL_ROW", SMALL_ROW),
        ("CHUNK", CHUNK),
        ("PULL_GROUP", PULL_GROUP),
        ("PULL_SMALL", PULL_SMALL),
        ("PULL_UNROLL", PULL_UNROLL),
        ("TRIPS", TRIPS),
        ("FRONTIER", FRONTIER as u64),
        ("RECEIVER", RECEIVER as u64),
        ("SETTLED", SETTLED as u64),
        ("LIST_SENDERS", LIST_SENDERS as u64),
        ("CHANGED", CHANGED as u64),
        ("NEXT_EDGES", NEXT_EDGES as u64),
        ("TOUCHED", TOUCHED as u64),
        ("CHUNKS_A", CHUNKS_A as u64),
        ("CHUNKS_B", CHUNKS_B as u64),
        ("BIG", BIG as u64),
        ("SENDERS", SENDERS as u64),
        ("SENDER_EDGES", SENDER_EDGES as u64),
        ("COUNTERS", COUNTERS as u64),
    ];
}

/// Threads per block of every engine kernel (a multiple of 32).
pub const ENGINE_THREADS: u32 = 256;

/// Edges per edge block (`glp_edge_edges`): four per thread, and as many shared-memory slots
/// for the block's receivers (8 KiB for 8-byte messages).
pub const BLOCK_EDGES: u32 = 4 * ENGINE_THREADS;

/// The edge-centric engine's kernels (no slots: they call the hooks and types by their fixed
/// names).
const ENGINE_KERNELS: &str = include_str!("engine_kernels.cu");

/// The frontier engine's kernels (after [`layout::FrontierArgs`]'s C definition).
const FRONTIER_KERNELS: &str = include_str!("frontier_kernels.cu");

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
    /// Frontier engine: a push over the frontier's rows (long rows listed in chunks).
    pub const PUSH: &str = "glp_frontier_push";
    /// Frontier engine: a warp per chunk of a long push row.
    pub const PUSH_CHUNKS: &str = "glp_frontier_push_chunks";
    /// Frontier engine: `apply` on the vertices a push reached.
    pub const APPLY_TOUCHED: &str = "glp_frontier_apply_touched";
    /// Frontier engine: each active sender's message, once, before a pull.
    pub const SEND: &str = "glp_frontier_send";
    /// Frontier engine: the messages of a sparse frontier's senders, a thread per listed
    /// vertex, before a pull.
    pub const SEND_LISTED: &str = "glp_frontier_send_listed";
    /// Frontier engine: a pull, a thread per receiver (long rows listed).
    pub const PULL: &str = "glp_frontier_pull";
    /// Frontier engine: a warp per chunk of a long pull row, combined with atomics.
    pub const PULL_CHUNKS: &str = "glp_frontier_pull_chunks";
    /// Frontier engine: the long-row receivers' combined messages applied.
    pub const PULL_FINISH: &str = "glp_frontier_pull_finish";
    /// Frontier engine: a pull's staged values written (programs whose `edge` reads its
    /// receiver).
    pub const COMMIT: &str = "glp_frontier_commit";
    pub const ALL: [&str; 13] = [
        INIT_VALUES,
        AGGREGATE_VALUES,
        EDGES,
        APPLY_VALUES,
        PUSH,
        PUSH_CHUNKS,
        APPLY_TOUCHED,
        SEND,
        SEND_LISTED,
        PULL,
        PULL_CHUNKS,
        PULL_FINISH,
        COMMIT,
    ];
}
