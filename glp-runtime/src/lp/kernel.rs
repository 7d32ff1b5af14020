//! What the `#[glp::lp_variant]` attribute adds to a variant: its hooks compiled to CUDA and
//! the metadata engines need (features, parameters), next to the native Rust impl.

use super::LpVariant;
pub use glp_codegen::ir::{ParamDecl, Scalar, ScalarValue};
use glp_codegen::lp::LpFeatures;

/// A label propagation variant compiled by glp: the native hooks ([`LpVariant`]) plus their
/// CUDA translation and metadata. Implemented by `#[glp::lp_variant]`, and by variants
/// compiled from a source file at run time.
pub trait LpKernel: LpVariant {
    /// The implementing type's name.
    fn kernel_name(&self) -> &str;
    /// The hooks as CUDA device functions (the parameter struct, then one function per hook
    /// and helper).
    fn device_functions(&self) -> &str;
    /// The impl's source tokens, from which the compiler can rebuild the program (for the
    /// interpreter).
    fn program_source(&self) -> &str;
    /// The optional facilities the hooks use; engines allocate only these.
    fn features(&self) -> LpFeatures;
    /// Whether every neighbour contributes weight exactly 1 (see
    /// [`glp_codegen::lp::mfl::unit_neighbor_weight`]): GPU kernels then count instead of
    /// summing weights. `false` is always correct.
    fn unit_neighbor_weight(&self) -> bool {
        false
    }
    /// Whether `label_score` is exactly the weighted count of the label (`freq`; see
    /// [`glp_codegen::lp::sketch::score_is_frequency`]): only such variants may use the
    /// sketch MFL strategies, which estimate that count. `false` is always safe.
    fn score_is_frequency(&self) -> bool {
        false
    }
    /// The parameters the hooks read, in kernel-argument order.
    fn param_decls(&self) -> Vec<ParamDecl>;
    /// The parameters' values, in the same order.
    fn param_values(&self) -> Vec<ScalarValue>;
}
