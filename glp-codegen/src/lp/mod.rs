//! Everything specific to label propagation variants: the hooks, the view's methods, the
//! features they imply. The general compiler (IR, emitter, interpreter) knows nothing of it.

mod expand;
mod features;
mod loop_budget;
pub mod mfl;
pub mod monotone;
pub mod sketch;
pub mod sort;
mod source_file;
mod spec;

pub use expand::expand_attribute;
pub use features::LpFeatures;
pub use loop_budget::{decode_loop_fault, default_loop_budget, LoopFault, LOOP_SITE_FAULT};
pub use source_file::{compile_source, SourceError};
pub use spec::{DEFAULT_HOOKS, INITIAL_LABEL, LABEL_SCORE, LOAD_NEIGHBOR, LP_KIND, PICK_LABEL, UPDATE_VERTEX};

use crate::diag::Diagnostics;
use crate::frontend::FieldDecl;
use crate::ir::{ExprKind, Program, Role};

/// A compiled label propagation variant.
#[derive(Debug, Clone)]
pub struct LpProgram {
    pub program: Program,
    pub features: LpFeatures,
}

/// Compiles an `impl LpVariant for T` block.
pub fn compile_impl(item: &syn::ItemImpl, fields: Option<&[FieldDecl]>) -> Result<LpProgram, Diagnostics> {
    let compiled = crate::compile_impl(&LP_KIND, item, fields)?;
    Ok(LpProgram::new(compiled.program))
}

/// The optional facilities `program`'s hooks use.
pub fn features_of(program: &Program) -> LpFeatures {
    let mut features = LpFeatures {
        custom_pick_label: program.functions.iter().any(|f| f.role == Role::Hook(PICK_LABEL)),
        ..LpFeatures::default()
    };
    for f in &program.functions {
        crate::visit::walk_block(&f.body, &mut |e| {
            if let ExprKind::Intrinsic(id, _) = e.kind {
                match LP_KIND.intrinsics[id as usize].feature {
                    Some("histogram") => features.histogram = true,
                    Some("label_memory") => features.label_memory = true,
                    Some("seeds") => features.seeds = true,
                    Some("random") => features.random = true,
                    Some("vertex_weights") => features.vertex_weights = true,
                    Some("edge_weights") => features.edge_weights = true,
                    _ => {}
                }
            }
        });
    }
    features
}

/// The label propagation view and its intrinsics in CUDA.
pub const VIEW_CUDA: &str = include_str!("view.cuh");

/// The initial-label and pick kernels every label propagation module has.
pub const PHASE_KERNELS_CUDA: &str = include_str!("phase_kernels.cuh");

/// The reference kernels (thread per vertex, exhaustive MFL): a variant's hooks fused into
/// initial / pick / update kernels.
pub const REFERENCE_KERNEL: crate::template::Template =
    crate::template::Template::new("lp/reference_kernel.cu", include_str!("reference_kernel.cu"));

impl LpProgram {
    pub fn new(program: Program) -> Self {
        let features = features_of(&program);
        LpProgram { program, features }
    }

    /// The variant's hooks as CUDA device functions (deterministic), followed by
    /// `glp_lp_score_monotone(params)`: whether `label_score` is proven non-decreasing in
    /// `freq` for the running parameters (see [`monotone`]).
    pub fn device_functions(&self) -> String {
        let mut cuda = crate::cuda::emit_program(&LP_KIND, &self.program);
        cuda.push_str(&monotone::emit_predicate(&self.program));
        cuda
    }

    /// Whether `label_score` is non-decreasing in `freq`, and if not, why not.
    pub fn score_monotonicity(&self) -> monotone::Monotonicity {
        monotone::score_monotonicity(&self.program)
    }

    /// A complete translation unit: prelude, view, hooks and the reference kernels.
    pub fn reference_kernel_source(&self) -> Result<String, crate::template::TemplateError> {
        reference_kernel_source(&self.device_functions())
    }
}

/// The reference kernels with `device_functions` (a variant's emitted hooks) fused in.
pub fn reference_kernel_source(device_functions: &str) -> Result<String, crate::template::TemplateError> {
    REFERENCE_KERNEL.fill(&[
        ("PRELUDE", crate::cuda::PRELUDE),
        ("VIEW", VIEW_CUDA),
        ("PROGRAM", device_functions),
        ("PHASES", PHASE_KERNELS_CUDA),
    ])
}
