//! The label propagation kind: GLP's hooks and the view's methods ([`LP_KIND`]), the view's
//! CUDA header, the features a variant's hooks imply, the attribute's expansion, and the
//! analysis of a variant's score the GPU kernels rely on. The MFL kernel library that runs a
//! variant on the GPU is [`crate::lp_kernels`]; the generic compiler knows nothing of either.

mod expand;
mod features;
pub mod layout;
pub mod properties;
mod spec;

/// The generic loop budget, which label propagation uses as it is.
pub use crate::loops::{decode_loop_fault, default_loop_budget, LoopFault, LOOP_SITE_FAULT};
pub use expand::expand_attribute;
pub use features::LpFeatures;
pub use spec::{DEFAULT_HOOKS, INITIAL_LABEL, LABEL_SCORE, LOAD_NEIGHBOR, LP_KIND, PICK_LABEL, UPDATE_VERTEX};

use crate::diag::Diagnostics;
use crate::frontend::FieldDecl;
use crate::ir::Program;
use crate::program::source::SourceError;

/// A label propagation variant compiled to IR, with the features its hooks use.
#[derive(Debug, Clone)]
pub struct LpProgram {
    pub program: Program,
    pub features: LpFeatures,
}

/// Compiles an `impl LpVariant for T` block.
pub fn compile_impl(item: &syn::ItemImpl, fields: Option<&[FieldDecl]>) -> Result<LpProgram, Diagnostics> {
    let compiled = crate::program::compile_impl(&LP_KIND, item, fields)?;
    Ok(LpProgram::new(compiled.program))
}

/// Compiles the label propagation variant defined in `source` (see
/// [`crate::program::source`]).
pub fn compile_source(source: &str) -> Result<LpProgram, SourceError> {
    Ok(LpProgram::new(crate::program::source::compile_source(&LP_KIND, source)?.program))
}

/// The initial-label and pick kernels every label propagation module has.
pub const PHASE_KERNELS_CUDA: &str = include_str!("phase_kernels.cuh");

/// The reference kernels (thread per vertex, exhaustive MFL): a variant's hooks fused into
/// initial / pick / update kernels.
pub const REFERENCE_KERNEL: crate::template::Template =
    crate::template::Template::new("kinds/lp/reference_kernel.cu", include_str!("reference_kernel.cu"));

impl LpProgram {
    pub fn new(program: Program) -> Self {
        let features = LpFeatures::of(&program);
        LpProgram { program, features }
    }

    /// The variant's hooks as CUDA device functions (deterministic), followed by
    /// `glp_lp_score_monotone(params)`: whether `label_score` is proven non-decreasing in
    /// `freq` for the running parameters (see [`properties`]).
    pub fn device_functions(&self) -> String {
        device_functions(&self.program)
    }

    /// Whether `label_score` is non-decreasing in `freq`, and if not, why not.
    pub fn score_monotonicity(&self) -> crate::analysis::monotone::Monotonicity {
        properties::score_monotonicity(&self.program)
    }

    /// A complete translation unit: prelude, view, hooks and the reference kernels.
    pub fn reference_kernel_source(&self) -> Result<String, crate::template::TemplateError> {
        reference_kernel_source(&self.device_functions())
    }
}

/// A variant's hooks as CUDA device functions, followed by its monotonicity predicate (see
/// [`LpProgram::device_functions`]).
pub fn device_functions(program: &Program) -> String {
    let mut cuda = crate::cuda::emit_program(&LP_KIND, program);
    cuda.push_str(&properties::emit_predicate(program));
    cuda
}

/// The reference kernels with `device_functions` (a variant's emitted hooks) fused in.
pub fn reference_kernel_source(device_functions: &str) -> Result<String, crate::template::TemplateError> {
    REFERENCE_KERNEL.fill(&[
        ("PRELUDE", crate::cuda::PRELUDE),
        ("VIEW", &layout::view_cuda()),
        ("PROGRAM", device_functions),
        ("PHASES", PHASE_KERNELS_CUDA),
    ])
}
