//! # glp-runtime
//!
//! Everything glp runs on, below the command line:
//!
//! - [`graph`]: the CSR every engine reads, the edge-list builder and the id mapping;
//! - [`io`]: readers for Matrix Market, SNAP edge lists, CSV, LDBC Graphalytics and gzip,
//!   zstd, xz or bzip2 versions of all of them (standard input too), the binary `.glpg`
//!   format, and ground-truth and seed files;
//! - [`memory`]: allocations checked against the memory budget before they are made;
//! - [`gen`]: R-MAT / Kronecker and community-structured (planted partition) generators;
//! - [`metrics`]: modularity, NMI, ARI, overlapping NMI, conductance, community sizes;
//! - [`lp`]: label propagation on the CPU (synchronous and asynchronous schedules) behind
//!   the hook trait user variants implement;
//! - [`program`]: programs of any kind loaded from a source file at run time (parameters,
//!   failure latch);
//! - [`device`]: probing for a CUDA GPU without ever panicking, NVRTC, launches, the graph on
//!   the GPU;
//! - [`sample`]: graph sampling (NextDoor's model: samplers' hook trait, its view, the CPU
//!   engine, walks and subgraphs as NumPy files);
//! - [`edge`]: edge programs (WolfGraph's model: a value per vertex the program declares,
//!   messages along edges combined by min, max or sum; the hook trait, its view, the CPU
//!   reference engine, programs from a file on the interpreter);
//! - [`random`]: the counter-based Philox4x32-10 generator shared by CPU and GPU code.
//!
//! Data flow of `glp lp`: a file is read by [`io::load_graph`] (format detected, parsed in
//! parallel, ids relabelled, edges built into a [`graph::Csr`]), an engine of [`lp`] computes
//! labels, [`metrics`] scores them, and the caller maps labels back with
//! [`graph::VertexIds`]. `glp run` is the same with [`edge::run`] in place of the LP engine
//! and the values written back in input ids.

pub mod community;
pub mod device;
pub mod edge;
pub mod error;
pub mod gen;
pub mod graph;
pub mod host_ceiling;
pub mod io;
pub mod lp;
pub mod memory;
pub mod metrics;
pub mod program;
pub mod random;
pub mod sample;
#[cfg(test)]
mod test_rng;

pub use error::{Error, Result};
