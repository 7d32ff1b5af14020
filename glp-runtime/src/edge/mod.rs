//! Edge programs: WolfGraph's edge-centric programming model and a CPU reference engine.
//!
//! # The model
//!
//! A program declares a **value** per vertex (`type Value`: a scalar or a tuple of scalars:
//! a distance, a rank and a residual, a component id) and a **message** type (`type
//! Message`: a scalar). A run gives every vertex its [`EdgeProgram::init`] value and
//! iterates; in an iteration
//!
//! 1. every edge `u -> w` carries [`EdgeProgram::edge`]`(view, u, w, value of u, weight)`
//!    to `w`, a message or none (for [`IN`] the edge carries `w`'s value to `u`; for
//!    [`BOTH`] each way);
//! 2. the messages a vertex receives are combined by [`EdgeProgram::combine`]: [`MIN`],
//!    [`MAX`] (idempotent: [`is_idempotent`]) or [`SUM`], what a GPU maps to its atomics;
//! 3. [`EdgeProgram::apply`]`(view, v, old, combined)` gives each vertex its new value
//!    (`combined` is the combine's identity when no message came), and
//!    [`EdgeProgram::changed`] says whether it changed.
//!
//! With [`EdgeProgram::frontier`], an iteration processes only the edges out of the vertices
//! that changed in the previous one, and a vertex that receives no message keeps its value
//! (`apply` runs only where messages arrived, as a halted vertex in Pregel). A run stops after an iteration that changed no vertex,
//! or after [`EdgeProgram::iterations`] (or the run's own limit, [`EdgeConfig::iterations`]).
//! Before each iteration the engine sums [`EdgeProgram::aggregate`] over the vertices, which
//! `apply` reads as [`EdgeView::aggregated`] (PageRank's rank of the vertices without
//! out-edges).
//!
//! The declared types are the compiler's general per-vertex state
//! ([`glp_codegen::program::kind::KindSpec::declared_types`]): the hooks receive and return
//! them as the scalars or tuples they are, natively, on the interpreter and in CUDA.
//!
//! # Engines
//!
//! [`run`] is the CPU engine ([`engine`]): synchronous, deterministic on every thread count.
//! It runs natively compiled programs (`#[glp::edge_program]`, [`CompiledEdgeProgram`]) and
//! programs loaded from a file ([`InterpretedEdgeProgram`]) alike. [`gpu::run`] is the
//! edge-centric GPU engine (WolfGraph's edge blocks with shared-memory slots), the same
//! iterations as the CPU's: equal values for min and max combines, sums to rounding; beside it
//! the frontier engine. [`subgraphs`] cuts a graph beyond the device's memory into subgraphs
//! (WolfGraph's out-of-memory method and its Concatenated Edge List), which
//! [`gpu::run_on_subgraphs`] streams through the device.

mod compiled;
pub mod engine;
pub mod gpu;
mod graph;
mod interpreted;
mod program;
pub mod subgraphs;
mod view;

pub use compiled::CompiledEdgeProgram;
pub use engine::{run, EdgeConfig, EdgeOutcome, IterationReport};
pub use graph::EdgeGraph;
pub use interpreted::InterpretedEdgeProgram;
pub use program::{
    identity, is_idempotent, Combinable, EdgeProgram, Identity, VertexValue, BOTH, IN, MAX, MIN, NO_SOURCE, OUT, SUM,
};
pub use view::EdgeView;
