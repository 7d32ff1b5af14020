//! The sampler kind (NextDoor's graph sampling API): its hooks and the sample view's
//! methods ([`SAMPLE_KIND`]), the view's CUDA header ([`layout`]), the attribute's expansion
//! and the reference kernels a sampler's hooks are fused into.
//!
//! A sampler is written as `impl Sampler for T` (glp-runtime's `sample::Sampler`), the
//! struct's fields its parameters. Its hooks split in two:
//! - the schedule (`steps`, `sample_size`, `sampling`, `next_transits`, `unique`) takes no
//!   view: engines evaluate it on the host, before and between steps, so it may not loop;
//! - the draws (`next` for individual samplers; `combined_weight` and `next_entry` for
//!   collective ones) take the view and run wherever the engine runs, on the CPU natively or
//!   on the interpreter, on the GPU fused into kernels.
//!
//! The trait's host methods (`name`, `validate`, `failure`) are not hooks: they are ordinary
//! Rust the compiler leaves out ([`crate::program::kind::KindSpec::host_methods`]).

pub mod engine;
mod expand;
pub mod layout;
mod spec;

pub use expand::expand_attribute;
pub use spec::{
    ADDED, ALL_NEIGHBOURS, COLLECTIVE, COMBINED_WEIGHT, DEFAULT_HOOKS, INDIVIDUAL, NEXT, NEXT_ENTRY, NEXT_TRANSITS,
    NONE, NONE_ENTRY, REPLACE, SAMPLE_KIND, SAMPLE_SIZE, SAMPLING, STEPS, UNIQUE,
};

use crate::diag::Diagnostics;
use crate::frontend::FieldDecl;
use crate::ir::Program;
use crate::program::source::SourceError;
use std::collections::BTreeSet;

/// A sampler compiled to IR, with the optional facilities of the view its hooks use.
#[derive(Debug, Clone)]
pub struct SampleProgram {
    pub program: Program,
    /// The facilities ([`crate::program::kind::IntrinsicSpec::feature`]) the hooks use:
    /// `edge_weights`, `weight_prefix`, `max_weight`, `history`, `combined`, `combined_count`
    /// (the engines then sort each step's combined neighbourhood), `random`.
    pub features: BTreeSet<&'static str>,
}

/// Compiles an `impl Sampler for T` block.
pub fn compile_impl(item: &syn::ItemImpl, fields: Option<&[FieldDecl]>) -> Result<SampleProgram, Diagnostics> {
    let compiled = crate::program::compile_impl(&SAMPLE_KIND, item, fields)?;
    Ok(SampleProgram::new(compiled.program))
}

/// Compiles the sampler defined in `source` (see [`crate::program::source`]).
pub fn compile_source(source: &str) -> Result<SampleProgram, SourceError> {
    Ok(SampleProgram::new(crate::program::source::compile_source(&SAMPLE_KIND, source)?.program))
}

/// The reference kernels: one sample's step, one thread per draw (see the template).
pub const REFERENCE_KERNEL: crate::template::Template =
    crate::template::Template::new("kinds/sample/reference_kernel.cu", include_str!("reference_kernel.cu"));

/// The entry points of [`REFERENCE_KERNEL`].
pub const REFERENCE_KERNEL_NAMES: [&str; 3] =
    ["glp_sample_next_lanes", "glp_sample_combined_weights", "glp_sample_entry_lanes"];

impl SampleProgram {
    pub fn new(program: Program) -> Self {
        let features = crate::program::features::used(&SAMPLE_KIND, &program);
        SampleProgram { program, features }
    }

    /// The sampler's hooks as CUDA device functions (deterministic).
    pub fn device_functions(&self) -> String {
        crate::cuda::emit_program(&SAMPLE_KIND, &self.program)
    }

    /// A complete translation unit: prelude, view, hooks and the reference kernels.
    pub fn reference_kernel_source(&self) -> Result<String, crate::template::TemplateError> {
        reference_kernel_source(&self.device_functions())
    }
}

/// The reference kernels with `device_functions` (a sampler's emitted hooks) fused in.
pub fn reference_kernel_source(device_functions: &str) -> Result<String, crate::template::TemplateError> {
    REFERENCE_KERNEL.fill(&[
        ("PRELUDE", crate::cuda::PRELUDE),
        ("VIEW", &layout::view_cuda(layout::ViewTraits::ANY)),
        ("PROGRAM", device_functions),
    ])
}
