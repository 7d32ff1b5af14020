//! # glp-codegen: the glp compiler
//!
//! An ordinary library (no procedural-macro machinery) that lowers the accepted Rust subset
//! to a typed IR, validates it, and emits deterministic CUDA C device functions that kernel
//! templates fuse into kernels. It also hosts the IR interpreter the CPU backend uses for
//! programs loaded at run time.
//!
//! Pipeline (see `DESIGN.md` section 2):
//!
//! ```text
//! syn item -> IR (typed, spans kept) -> validate -> emit CUDA -> fuse into a .cu template
//! ```
//!
//! This crate depends on no other glp crate; `glp-macros` and `glp-runtime` depend on it.
//! The front end, IR, emitter and interpreter arrive with the DSL work (issue 3); until then
//! the crate only reserves its place in the dependency graph.

pub mod lp;
