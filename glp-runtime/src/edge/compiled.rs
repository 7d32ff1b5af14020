//! What the `#[glp::edge_program]` attribute adds to an edge program: its hooks compiled to
//! CUDA and the metadata engines need (the view's facilities it uses, its parameters, where
//! its loops are), next to the native Rust impl.

use super::EdgeProgram;
use crate::program::LoopSite;
use glp_codegen::ir::{ParamDecl, ScalarValue};

/// An edge program compiled by glp: the native hooks ([`EdgeProgram`]) plus their CUDA
/// translation and metadata. Implemented by `#[glp::edge_program]`, and by programs compiled
/// from a source file at run time ([`super::InterpretedEdgeProgram`]).
pub trait CompiledEdgeProgram: EdgeProgram {
    /// The hooks as CUDA device functions (the parameter struct, then one function per hook).
    fn device_functions(&self) -> &str;
    /// The impl's source tokens (or the file's text), from which the compiler can rebuild
    /// the program (for the interpreter).
    fn program_source(&self) -> &str;
    /// The optional facilities of the view the hooks use (`aggregate`, `source`: a run then
    /// needs a source vertex;
    /// [`glp_codegen::kinds::edge::EdgeIr::features`]), in name order.
    fn features(&self) -> &[&'static str];
    /// The parameters the hooks read, in kernel-argument order.
    fn param_decls(&self) -> Vec<ParamDecl>;
    /// The parameters' values, in the same order.
    fn param_values(&self) -> Vec<ScalarValue>;
    /// The loops of the hooks, in the order of their site codes.
    fn loop_sites(&self) -> Vec<LoopSite>;
}
