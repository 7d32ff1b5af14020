//! # glp
//!
//! Graph analytics written as small annotated Rust functions and run as fast GPU kernels,
//! with a multi-threaded CPU backend that computes the same results without a GPU.
//!
//! This crate is the facade: it re-exports the runtime ([`graph`], [`io`], [`gen`],
//! [`metrics`], [`lp`], [`sample`], [`device`], [`random`]), holds the built-in label
//! propagation [`variants`] (classic, weighted, LLP, SLP, seeded) and [`samplers`]
//! (DeepWalk, PPR, node2vec, k-hop, layer, FastGCN, LADIES, MVS, ClusterGCN, multi-root
//! walks) and edge [`programs`] (BFS, SSSP, WCC, SSWP, PageRank), and hosts the `glp`
//! command-line program.
//! The crates behind it:
//!
//! - `glp-codegen`: the compiler from the accepted Rust subset to CUDA C (and its IR
//!   interpreter);
//! - `glp-macros`: the thin attribute macros over `glp-codegen`;
//! - `glp-runtime`: graphs, formats, generators, metrics, engines and the GPU device layer.
//!
//! ```no_run
//! use glp::prelude::*;
//!
//! let graph = glp::io::load_graph("graph.txt".as_ref(), &LoadOptions::default())?;
//! let outcome = glp::lp::run(&graph.csr, &Classic, &LpConfig::asynchronous())?;
//! // Variants with optional facilities run with their features:
//! let llp = glp::lp::run_kernel(&graph.csr, &Llp { gamma: 4.0 }, &LpConfig::synchronous(20),
//!                             &LpInputs::default())?;
//! let quality = QualityReport::new(&graph.csr, &outcome.labels, None)?;
//! println!("modularity {:.3}", quality.modularity);
//! # Ok::<(), glp::Error>(())
//! ```

extern crate self as glp;

pub use glp_macros::{edge_program, lp_variant, sampler};
pub use glp_runtime::{community, device, edge, error, gen, graph, io, lp, metrics, random, sample, Error, Result};

pub mod programs;
pub mod samplers;
pub mod variants;

/// The items most programs need.
pub mod prelude {
    pub use crate::variants::{Capped, Classic, Llp, Seeded, Slp, Weighted};
    pub use glp_runtime::community::{Cover, GroundTruth, UNLABELLED};
    pub use glp_runtime::graph::{BuildOptions, Csr, DuplicateEdges, Graph, VertexId};
    pub use glp_runtime::io::LoadOptions;
    pub use glp_runtime::lp::{
        CompiledVariant, EdgeId, Label, LpConfig, LpFeatures, LpInputs, LpOutcome, LpVariant, Schedule, TieBreak, View,
    };
    pub use glp_runtime::metrics::QualityReport;
}

#[doc(hidden)]
pub mod cli;

/// What generated code names; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use glp_runtime::lp::{ParamDecl, Scalar, ScalarValue};
    pub use glp_runtime::program::LoopSite;
}
