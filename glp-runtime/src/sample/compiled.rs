//! What the `#[glp::sampler]` attribute adds to a sampler: its hooks compiled to CUDA and the
//! metadata engines need (the view's facilities it uses, its parameters, where its loops
//! are), next to the native Rust impl.

use super::Sampler;
use crate::program::LoopSite;
use glp_codegen::ir::{ParamDecl, ScalarValue};

/// A sampler compiled by glp: the native hooks ([`Sampler`]) plus their CUDA translation and
/// metadata. Implemented by `#[glp::sampler]`, and by samplers compiled from a source file at
/// run time ([`super::InterpretedSampler`]).
pub trait CompiledSampler: Sampler {
    /// The hooks as CUDA device functions (the parameter struct, then one function per hook).
    fn device_functions(&self) -> &str;
    /// The impl's source tokens (or the file's text), from which the compiler can rebuild
    /// the program (for the interpreter).
    fn program_source(&self) -> &str;
    /// The optional facilities of the view the hooks use (`history`, `weight_prefix`, ...;
    /// [`glp_codegen::kinds::sample::SampleProgram::features`]), in name order.
    fn features(&self) -> &[&'static str];
    /// The parameters the hooks read, in kernel-argument order.
    fn param_decls(&self) -> Vec<ParamDecl>;
    /// The parameters' values, in the same order.
    fn param_values(&self) -> Vec<ScalarValue>;
    /// The loops of the hooks, in the order of their site codes
    /// ([`glp_codegen::loops::loop_sites`]): where the GPU's loop faults point.
    fn loop_sites(&self) -> Vec<LoopSite>;
    /// The loop step budget of one hook call when the sampler sets its own
    /// ([`super::InterpretedSampler::with_loop_budget`]); `None` (the default): the graph's
    /// [`glp_codegen::loops::default_loop_budget`]. The CPU and the GPU engines use the same.
    fn loop_budget(&self) -> Option<u64> {
        None
    }
}
